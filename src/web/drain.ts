/**
 * The web provider's last look at its connections before the server closes.
 * Node's `server.close()` destroys every connection that is idle at that
 * moment, and a kept-alive connection whose next request is still unread in
 * the kernel's buffer counts as idle: destroying it answers that request with
 * a TCP reset. So before closing, the provider lets the event loop read what
 * clients have already sent; those requests then count as active and are
 * answered (`404 not-pending` once the table is closed).
 *
 * @internal
 */
import { Effect } from "effect"
import type { Server } from "node:http"

/**
 * One quiet window: long enough for a client that is writing a burst of
 * requests (and may be descheduled midway on a loaded machine) to finish it,
 * short enough not to hold the exit noticeably.
 */
const quietMillis = 25

/** At most this many windows (about a second): a client that keeps sending cannot hold the shutdown. */
const maxRounds = 40

/**
 * One window, ended by an I/O poll: on a loaded machine the process may get
 * no CPU for the whole window, and libuv runs expired timers before it polls,
 * so a timer alone would end the window with requests that arrived during
 * it still unread. `setImmediate` runs after that poll has read them.
 */
const window = Effect.callback<void>((resume) => {
  let immediate: NodeJS.Immediate | undefined
  const timer = setTimeout(() => {
    immediate = setImmediate(() => resume(Effect.void))
  }, quietMillis)
  return Effect.sync(() => {
    clearTimeout(timer)
    if (immediate !== undefined) clearImmediate(immediate)
  })
})

/**
 * Waits until a whole window brings no new request: everything already sent
 * has been read and parsed, and its handler started. (One poll phase was not
 * enough: a burst written by a client that lost the CPU midway arrived after
 * an empty phase and met a closed server.)
 */
export const readInFlight = (server: Server): Effect.Effect<void> =>
  Effect.suspend(() => {
    let requests = 0
    const count = () => void requests++
    server.on("request", count)
    const round = (n: number): Effect.Effect<void> =>
      Effect.flatMap(window, () => {
        if (requests === 0 || n >= maxRounds) return Effect.void
        requests = 0
        return round(n + 1)
      })
    return round(1).pipe(Effect.ensuring(Effect.sync(() => server.off("request", count))))
  })
