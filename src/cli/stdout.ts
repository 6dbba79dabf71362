/**
 * Writing `ask-user`'s output (the answer JSON, `pending`'s lines, a status,
 * the help) on stdout, and what happens when stdout is broken. A reader that
 * has gone (`ask-user … | head -0`, EPIPE) ends the program quietly with
 * 141, the status a shell shows for a Unix tool killed by SIGPIPE; Node
 * ignores SIGPIPE, so the write fails instead. Any other write error (a full
 * disk) is one line, `ask-user: cannot write the answer: <reason>`, and exit
 * 1. Neither prints a stack trace (decision 079).
 *
 * @since 0.2.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/**
 * stdout could not take `what` ("the answer", "the pending asks", …);
 * `cause` is Node's write error.
 *
 * @since 0.2.0
 */
export class CannotWrite extends Data.TaggedError("CannotWrite")<{
  readonly what: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `cannot write ${this.what}: ${(this.cause as Error | undefined)?.message ?? String(this.cause)}`
  }
}

/**
 * True when the reader of stdout has gone (EPIPE): the program then ends
 * quietly.
 *
 * @since 0.2.0
 */
export const isBrokenPipe = (error: CannotWrite): boolean => (error.cause as { code?: unknown } | undefined)?.code === "EPIPE"

let listening = false

/**
 * Writes `chunk` on stdout and waits until it is handed to the system;
 * fails with `CannotWrite` when stdout cannot take it.
 *
 * @since 0.2.0
 */
export const writeStdout = (what: string, chunk: string): Effect.Effect<void, CannotWrite> =>
  Effect.callback<void, CannotWrite>((resume) => {
    // The write's callback reports the error; without a listener Node would also
    // throw it as an unhandled 'error' event, with a stack trace.
    if (!listening) {
      listening = true
      process.stdout.on("error", () => {})
    }
    process.stdout.write(chunk, (error) =>
      resume(error === null || error === undefined ? Effect.void : Effect.fail(new CannotWrite({ what, cause: error }))))
  })
