/**
 * How `ask-user` runs its main fiber: like `NodeRuntime.runMain`, but every
 * signal that ends a terminal program (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * interrupts the fiber, so its finalizers take the prompt down and put the
 * terminal back in cooked mode with the cursor shown, and the process exits
 * 128 + the signal's number, as a shell expects. Node's own default for
 * SIGHUP and SIGQUIT kills the process on the spot, leaving the terminal raw
 * and the cursor hidden; `NodeRuntime.runMain` handles only SIGINT and
 * SIGTERM, and exits 130 for both.
 *
 * @since 0.2.0
 */
import * as Runtime from "effect/Runtime"

/**
 * The signals that end `ask-user`, with their numbers (the exit status is
 * 128 + the number: 129, 130, 131, 143).
 *
 * @since 0.2.0
 */
export const endingSignals = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGTERM: 15 } as const

/**
 * Runs `effect` as the program's main fiber; the teardown's status applies
 * unless a signal ended the program.
 *
 * @since 0.2.0
 */
export const runMain = Runtime.makeRunMain(({ fiber, teardown }) => {
  let signalled: number | undefined
  const listeners = Object.entries(endingSignals).map(([signal, number]) => {
    const listener = () => {
      signalled ??= number
      fiber.interruptUnsafe(fiber.id)
    }
    process.on(signal, listener)
    return () => process.removeListener(signal, listener)
  })
  fiber.addObserver((exit) => {
    for (const remove of listeners) remove()
    teardown(exit, (code) => {
      if (signalled !== undefined) process.exit(128 + signalled)
      if (code !== 0) process.exit(code)
    })
  })
})
