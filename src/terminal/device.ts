/**
 * A `Terminal` service over a given TTY: keys from its input stream, frames
 * to its output stream. `ask-user` needs this because its stdout carries the
 * answer JSON (and its stdin may carry the request): prompts go to
 * `/dev/tty`, while the stock `NodeTerminal` is fixed to stdin/stdout.
 *
 * Raw mode and the key listener live exactly as long as a `readInput` scope
 * (one request's prompt), so an interrupted or finished prompt always leaves
 * the terminal in cooked mode. Esc, Ctrl+C and Ctrl+D do not end the key
 * queue: the question sees them and tells cancel from interrupt itself.
 *
 * @internal
 */
import { type Cause, Effect, Option, PlatformError, Queue, type Scope, Terminal } from "effect"
import * as fs from "node:fs"
import * as readline from "node:readline"
import * as tty from "node:tty"

/** The output side: a stream that may know its size. */
export type TerminalOutput = NodeJS.WritableStream & { readonly columns?: number; readonly rows?: number }

/** The TTY streams of a terminal. */
export interface TerminalStreams {
  readonly input: tty.ReadStream
  readonly output: TerminalOutput
}

/** A `Terminal` that reads keys from `input` (a TTY) and draws on `output`. */
export const makeTerminal = ({ input, output }: TerminalStreams): Terminal.Terminal => {
  const readInput: Effect.Effect<Queue.Dequeue<Terminal.UserInput, Cause.Done>, never, Scope.Scope> = Effect.gen(
    function*() {
      const queue = yield* Queue.unbounded<Terminal.UserInput, Cause.Done>()
      const onKeypress = (typed: string | undefined, key: readline.Key | undefined) => {
        Queue.offerUnsafe(queue, {
          input: Option.fromUndefinedOr(typed),
          key: { name: key?.name ?? "", ctrl: key?.ctrl === true, meta: key?.meta === true, shift: key?.shift === true }
        })
      }
      const onEnd = () => Queue.endUnsafe(queue)
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          // A lone Esc is reported after this delay (readline's own default is 500 ms).
          readline.emitKeypressEvents(input, { escapeCodeTimeout: 50 } as unknown as readline.Interface)
          input.on("keypress", onKeypress)
          input.once("end", onEnd)
          input.setRawMode(true)
          input.resume()
        }),
        () =>
          Effect.sync(() => {
            input.off("keypress", onKeypress)
            input.off("end", onEnd)
            if (!input.destroyed) {
              try {
                input.setRawMode(false)
              } catch {
                // The terminal hung up (SIGHUP): there is no mode left to restore.
              }
              input.pause()
            }
          })
      )
      if (input.readableEnded || input.destroyed) onEnd()
      return queue
    }
  )

  const size = Effect.gen(function*() {
    const queue = yield* Queue.sliding<Terminal.Size, Cause.Done>(1)
    const onResize = () => Queue.offerUnsafe(queue, { columns: output.columns ?? 80, rows: output.rows ?? 24 })
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        output.on("resize", onResize)
        onResize()
      }),
      () => Effect.sync(() => output.off("resize", onResize))
    )
    return queue
  })

  return Terminal.make({
    columns: Effect.sync(() => output.columns ?? 80),
    rows: Effect.sync(() => output.rows ?? 24),
    size,
    readInput,
    readLine: Effect.fail(new Terminal.QuitError({})),
    display: (text) =>
      Effect.callback<void, PlatformError.PlatformError>((resume) => {
        output.write(text, (error) =>
          resume(
            error
              ? Effect.fail(PlatformError.badArgument({
                module: "Terminal",
                method: "display",
                description: "Failed to write to the terminal",
                cause: error
              }))
              : Effect.void
          ))
      }).pipe(Effect.uninterruptible)
  })
}

// Writes to a terminal that hung up fail with EIO: `display` reports that through its callback,
// and the stream's own "error" event must not crash the process while it restores the terminal.
const ignoringHangUp = (output: tty.WriteStream): tty.WriteStream => output.on("error", () => {})

/**
 * Opens the controlling terminal (`/dev/tty`) for reading keys and drawing,
 * closed with the scope; `None` when the process has no controlling terminal.
 */
export const openControllingTerminal: Effect.Effect<Option.Option<TerminalStreams>, never, Scope.Scope> = Effect
  .acquireRelease(
    Effect.sync(() => {
      try {
        const inputFd = fs.openSync("/dev/tty", "r")
        if (!tty.isatty(inputFd)) {
          fs.closeSync(inputFd)
          return Option.none<TerminalStreams>()
        }
        const input = new tty.ReadStream(inputFd)
        const output = ignoringHangUp(new tty.WriteStream(fs.openSync("/dev/tty", "w")))
        return Option.some<TerminalStreams>({ input, output })
      } catch {
        return Option.none<TerminalStreams>()
      }
    }),
    (streams) =>
      Effect.sync(() => {
        if (Option.isNone(streams)) return
        streams.value.input.destroy()
        ;(streams.value.output as tty.WriteStream).destroy()
      })
  )

/**
 * Opens `/dev/tty` for drawing only (when keys come from a stdin that is a
 * TTY); `None` when it cannot be opened.
 */
export const openTerminalOutput: Effect.Effect<Option.Option<TerminalOutput>, never, Scope.Scope> = Effect
  .acquireRelease(
    Effect.sync(() => {
      try {
        return Option.some<TerminalOutput>(ignoringHangUp(new tty.WriteStream(fs.openSync("/dev/tty", "w"))))
      } catch {
        return Option.none<TerminalOutput>()
      }
    }),
    (output) => Effect.sync(() => Option.isSome(output) && (output.value as tty.WriteStream).destroy())
  )
