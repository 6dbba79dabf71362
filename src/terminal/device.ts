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
 * A hung-up terminal is not a failure: drawing stops, and the key queue ends
 * after a short grace in which a SIGHUP can arrive. Bracketed paste is on
 * while keys are read: pasted text arrives as text, its line breaks and tabs
 * as one space each run and its control keys dropped, so a multi-line paste
 * into a text field is one answer, not several keystrokes that submit.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PlatformError from "effect/PlatformError"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Terminal from "effect/Terminal"
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

/**
 * How long after a terminal hangs up its input is reported closed. The input
 * ends (EOF or EIO) a few milliseconds before the kernel's SIGHUP reaches the
 * process: the session leader gets it first, and we get it when that leader
 * exits. Waiting lets the signal, when one comes, decide how the program
 * ends (`ask-user` exits 129); when none comes (SIGHUP ignored by a wrapper),
 * the ask fails `ProviderClosed`.
 */
export const hangUpGrace = 500

// Errors of a hung-up terminal (EIO) are reported where they matter (the key queue ends, a write
// is dropped); the streams' own "error" events must not crash the process while it restores the
// terminal. One listener per stream, however many terminals are made over it.
const ignoreError = () => {}
const ignoringHangUp = <S extends NodeJS.EventEmitter>(stream: S): S => {
  if (!stream.listeners("error").includes(ignoreError)) stream.on("error", ignoreError)
  return stream
}

/** Asks the terminal to mark pasted text (`ESC[200~` … `ESC[201~`), and to stop. */
const bracketedPasteOn = "\x1b[?2004h"
const bracketedPasteOff = "\x1b[?2004l"

// A write to a terminal that hung up fails with EIO, and every later one on the stream that EIO destroyed.
const isHangUp = (error: Error): boolean => (error as NodeJS.ErrnoException).code === "EIO"

/**
 * A `Terminal` that reads keys from `input` (a TTY) and draws on `output`.
 * Once the terminal hangs up, drawing does nothing (there is no screen left
 * to draw on, and taking a prompt down must not fail), and the key queue ends
 * `hangUpGrace` later.
 */
export const makeTerminal = ({ input, output }: TerminalStreams): Terminal.Terminal => {
  ignoringHangUp(input)
  ignoringHangUp(output)
  let hungUp = false
  const readInput: Effect.Effect<Queue.Dequeue<Terminal.UserInput, Cause.Done>, never, Scope.Scope> = Effect.gen(
    function*() {
      const queue = yield* Queue.unbounded<Terminal.UserInput, Cause.Done>()
      const offer = (typed: string | undefined, key: readline.Key | undefined) =>
        Queue.offerUnsafe(queue, {
          input: Option.fromUndefinedOr(typed),
          key: { name: key?.name ?? "", ctrl: key?.ctrl === true, meta: key?.meta === true, shift: key?.shift === true }
        })
      let pasting = false
      let pastedBreak = false
      const onKeypress = (typed: string | undefined, key: readline.Key | undefined) => {
        if (key?.name === "paste-start" || key?.name === "paste-end") {
          pasting = key.name === "paste-start"
          pastedBreak = false
          return
        }
        if (!pasting) return offer(typed, key)
        if (key?.name === "return" || key?.name === "enter" || key?.name === "tab") {
          // Text, not a key: one space for a run of them ("\r\n" is two keys).
          if (!pastedBreak) offer(" ", undefined)
          pastedBreak = true
          return
        }
        pastedBreak = false
        // Pasted control characters (Esc, Ctrl+C as bytes) must not cancel or abort anything.
        if (key?.ctrl === true || key?.meta === true || key?.name === "escape" || typed === undefined) return
        // Pasted text is text, never a key: a pasted space must not tick the option under the cursor.
        offer(typed, undefined)
      }
      let ending: ReturnType<typeof setTimeout> | undefined
      const onEnd = () => {
        ending ??= setTimeout(() => Queue.endUnsafe(queue), hangUpGrace)
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          // A lone Esc is reported after this delay (readline's own default is 500 ms).
          readline.emitKeypressEvents(input, { escapeCodeTimeout: 50 } as unknown as readline.Interface)
          input.on("keypress", onKeypress)
          input.once("end", onEnd)
          input.once("error", onEnd)
          input.setRawMode(true)
          input.resume()
          if (!hungUp) output.write(bracketedPasteOn)
        }),
        () =>
          Effect.sync(() => {
            if (!hungUp && !(output as { destroyed?: boolean }).destroyed) output.write(bracketedPasteOff)
            clearTimeout(ending)
            input.off("keypress", onKeypress)
            input.off("end", onEnd)
            input.off("error", onEnd)
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
      // Input that ended before this prompt: no signal is on its way.
      if (input.readableEnded || input.destroyed) Queue.endUnsafe(queue)
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
        if (hungUp) return resume(Effect.void)
        output.write(text, (error) => {
          if (error && isHangUp(error)) hungUp = true
          resume(
            error && !hungUp
              ? Effect.fail(PlatformError.badArgument({
                module: "Terminal",
                method: "display",
                description: "Failed to write to the terminal",
                cause: error
              }))
              : Effect.void
          )
        })
      }).pipe(Effect.uninterruptible)
  })
}

/**
 * Opens `/dev/tty` for drawing, its size kept current: Node refreshes the
 * size of `process.stdout` and `process.stderr` on SIGWINCH, never of a
 * stream opened here, whose `columns` and `rows` would stay what they were at
 * start-up and every frame drawn after a resize would wrap. `close` destroys
 * the stream and stops following the window's size.
 */
const openTtyOutput = (): { readonly output: tty.WriteStream; readonly close: () => void } => {
  const output = ignoringHangUp(new tty.WriteStream(fs.openSync("/dev/tty", "w")))
  // The same refresh Node runs for stdout: reads the window's size, emits "resize" when it changed.
  const refresh = () => (output as unknown as { readonly _refreshSize?: () => void })._refreshSize?.()
  process.on("SIGWINCH", refresh)
  return {
    output,
    close: () => {
      process.off("SIGWINCH", refresh)
      output.destroy()
    }
  }
}

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
          return Option.none()
        }
        const input = new tty.ReadStream(inputFd)
        return Option.some({ input, ...openTtyOutput() })
      } catch {
        return Option.none()
      }
    }),
    (opened) =>
      Effect.sync(() => {
        if (Option.isNone(opened)) return
        opened.value.input.destroy()
        opened.value.close()
      })
  ).pipe(Effect.map(Option.map(({ input, output }): TerminalStreams => ({ input, output }))))

/**
 * Opens `/dev/tty` for drawing only (when keys come from a stdin that is a
 * TTY); `None` when it cannot be opened.
 */
export const openTerminalOutput: Effect.Effect<Option.Option<TerminalOutput>, never, Scope.Scope> = Effect
  .acquireRelease(
    Effect.sync(() => {
      try {
        return Option.some(openTtyOutput())
      } catch {
        return Option.none()
      }
    }),
    (opened) => Effect.sync(() => Option.isSome(opened) && opened.value.close())
  ).pipe(Effect.map(Option.map(({ output }): TerminalOutput => output)))
