/**
 * Asks on a terminal. With a TTY the questions are menus drawn with
 * `effect/cli` prompts (arrows and Enter, Space to toggle, an "Other" entry
 * for free text, Esc to cancel, Ctrl+C to abort); without one (pipes, CI)
 * they are printed with numbered options and answered one line each.
 *
 * ```ts
 * const answer = UserInteraction.ask(request).pipe(
 *   Effect.provide(UserInteraction.layerWith(TerminalProvider.layer()))
 * )
 * ```
 *
 * Plain mode (`mode: "plain"`, or `ASK_USER_PLAIN=1`, or `TERM=dumb`) asks in
 * numbered lines on the TTY too, with no cursor movement, redraw or colour,
 * for screen readers and dumb terminals.
 *
 * The cursor starts on a recommended option, marked "(recommended)"; the
 * preview of the option under the cursor is shown in a box under the menu
 * (in line mode, under each option). A secret question is typed masked (in
 * plain mode, with echo off); line mode on a pipe refuses it unless
 * `allowPipedSecrets`. `review: true` ends a request of two or more
 * questions, on a TTY, with a review of every answer before they are sent.
 *
 * One question is on screen at a time: concurrent asks wait their turn in
 * order. Model-supplied text is shown inert (no escape sequence, control
 * character, BiDi override or invisible format character reaches the
 * terminal); answers carry labels unchanged.
 *
 * Who answers here is the account running the process, `os:<user>@<host>`:
 * the answer's receipt names it, and so does a cancel's. An ask whose
 * `answerableBy` does not allow that account is never shown: it fails
 * `NotAuthorized` at once (in a fan-out, the other surfaces go on).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Terminal from "effect/Terminal"
import type * as tty from "node:tty"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import {
  makeTerminal,
  openControllingTerminal,
  openTerminalOutput,
  type TerminalOutput
} from "./device.js"
import { askOnLines, type LineSource, makeLineSource } from "./lines.js"
import { desktopNotification, type Notify } from "./notify.js"
import { askOnTerminal } from "./prompt.js"
import { askAs } from "../internal/answeredBy.js"
import { osAnswerer } from "../internal/osAnswerer.js"
import { sanitizeLine } from "../internal/sanitize.js"
import { ProviderClosed, type UserInteractionError } from "../UserInteractionError.js"
import {
  describeSurface,
  type SettledElsewhere,
  settledElsewhere,
  UserInteractionProvider
} from "../UserInteractionProvider.js"

export type { Notify } from "./notify.js"

/**
 * Options of the terminal provider.
 *
 * @since 0.1.0
 */
export interface TerminalProviderOptions {
  /**
   * How a question is announced when it appears (TTY mode): `"bell"` (the
   * default) rings the bell; `"desktop"` also writes a desktop notification
   * (OSC 777 and OSC 9) that the terminal turns into a system notification;
   * `"none"` stays quiet.
   */
  readonly notify?: Notify | undefined
  /** `false` silences the bell whatever `notify` says (default `true`). */
  readonly bell?: boolean | undefined
  /** Draw with colours (default: when the terminal drawn on supports them and `NO_COLOR` is unset). */
  readonly colors?: boolean | undefined
  /**
   * `true`: a request of two or more questions ends, on a TTY, with a review
   * of every answer: Enter on "Submit" sends them, Enter on a question goes
   * back to it, Esc cancels. Off by default, so the keys that answer a batch
   * today still do. Line and plain mode have no review.
   *
   * @since 0.3.0
   */
  readonly review?: boolean | undefined
}

/**
 * Options of `TerminalProvider.layer`: where keys or lines come from.
 *
 * @since 0.1.0
 */
export interface TerminalProviderLayerOptions extends TerminalProviderOptions {
  /**
   * `"stdin"` (default): read from standard input, as menus when it is a TTY,
   * else as lines. `"tty"`: read keys from the controlling terminal
   * (`/dev/tty`), for programs whose stdin carries data; falls back to stdin
   * when there is no controlling terminal, and fails each ask `ProviderClosed`
   * at once when that stdin has ended too.
   */
  readonly input?: "stdin" | "tty" | undefined
  /**
   * `"menu"`: menus drawn with cursor movement (on a TTY). `"plain"`: the
   * numbered line prompts of line mode, on the TTY too, with no cursor
   * movement, redraw or colour: what a screen reader can follow. Default:
   * `"plain"` when `ASK_USER_PLAIN` is set (and not `0`) or `TERM` is `dumb`,
   * else `"menu"`.
   */
  readonly mode?: TerminalMode | undefined
  /** In line mode on a pipe, read a secret question's answer from it (see `TerminalProviderLineOptions`). @since 0.3.0 */
  readonly allowPipedSecrets?: boolean | undefined
}

/**
 * How the terminal asks on a TTY: menus, or plain numbered lines.
 *
 * @since 0.3.0
 */
export type TerminalMode = "menu" | "plain"

/**
 * The mode the environment asks for: `"plain"` with `ASK_USER_PLAIN` set
 * (and not `0`) or `TERM=dumb`, else `"menu"`.
 *
 * @since 0.3.0
 */
export const modeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): TerminalMode => {
  const plain = env["ASK_USER_PLAIN"]
  return (plain !== undefined && plain !== "" && plain !== "0") || env["TERM"] === "dumb" ? "plain" : "menu"
}

/**
 * Options of `TerminalProvider.layerLines`.
 *
 * @since 0.1.0
 */
export interface TerminalProviderLineOptions {
  /** Where answers are read, one per line. */
  readonly input: NodeJS.ReadableStream
  /** Where questions and hints are printed (default: stderr). */
  readonly output?: NodeJS.WritableStream | undefined
  /**
   * `true`: when `input` is not a TTY, a secret question's answer is the
   * next line read from it (never printed). Off by default: such a request
   * fails `ProviderFailed` before anything is asked, since whatever writes
   * the pipe sees the secret. A TTY reads secrets with echo off either way.
   *
   * @since 0.3.0
   */
  readonly allowPipedSecrets?: boolean | undefined
}

const wantsColors = (output: TerminalOutput): boolean => {
  const hasColors = (output as { hasColors?: () => boolean }).hasColors
  return process.env["NO_COLOR"] === undefined && typeof hasColors === "function" && hasColors.call(output)
}

/**
 * "Answered in the web page.", or "Answered by Ana in the web page." when
 * that surface knew the answerer's name (a device's, a client's title). Both
 * names are shown inert: the surface's is the developer's, the answerer's
 * may be anyone's.
 */
const elsewhereLine = ({ by, outcome, surface }: SettledElsewhere["Service"]): string =>
  `${outcome === "answered" ? "Answered" : outcome === "ASK_DECLINED" ? "Declined" : "Cancelled"}${
    by?.name === undefined ? "" : ` by ${sanitizeLine(by.name)}`
  } in ${sanitizeLine(describeSurface(surface))}.`

/**
 * A provider whose asks run one at a time, and are interrupted (prompt taken
 * down, terminal restored) when the provider's scope closes. Its answers and
 * cancels are the account's running the process; an ask that account may not
 * settle is refused before it waits for a turn.
 */
const makeProvider = (
  askOne: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>,
  say: (line: string) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const turn = yield* Semaphore.make(1)
    const running = yield* FiberSet.make<AskUserQuestionAnswer, UserInteractionError>()
    const by = osAnswerer()
    return UserInteractionProvider.of({
      name: "terminal",
      ask: (request) =>
        askAs(by, request, Effect.uninterruptibleMask((restore) => {
          // Whether the ask had its turn on screen: one still queued goes silently.
          let shown = false
          const own = turn.withPermits(1)(Effect.suspend(() => {
            shown = true
            return askOne(request)
          }))
          return Effect.flatMap(FiberSet.run(running, own), (fiber) =>
            restore(Fiber.join(fiber)).pipe(
              Effect.onInterrupt(() => Fiber.interrupt(fiber)),
              // Another surface settled the ask: once its prompt is down, say where.
              Effect.onExit((exit) => {
                const elsewhere = shown && Exit.isFailure(exit) ? settledElsewhere(exit.cause) : undefined
                return elsewhere === undefined ? Effect.void : say(elsewhereLine(elsewhere))
              }),
              // Interrupted without our caller being interrupted: the provider's scope closed.
              Effect.catchCause((cause) =>
                Cause.hasInterruptsOnly(cause)
                  ? Effect.fail(new ProviderClosed({ message: "The terminal provider closed before an answer." }))
                  : Effect.failCause(cause)
              )
            ))
        }))
    })
  })

/**
 * TTY mode over the `Terminal` service in context: menus drawn with
 * `effect/cli` prompts. Use it with a `Terminal` of your own (tests feed key
 * presses this way); `layer` builds one over the process's terminal.
 *
 * @since 0.1.0
 */
export const layerTerminal = (
  options: TerminalProviderOptions = {}
): Layer.Layer<UserInteractionProvider, never, Terminal.Terminal> =>
  Layer.effect(
    UserInteractionProvider,
    Effect.gen(function*() {
      const terminal = yield* Terminal.Terminal
      const notify = options.notify ?? "bell"
      const promptOptions = {
        bell: notify !== "none" && options.bell !== false,
        colors: options.colors ?? false,
        review: options.review === true
      }
      const display = (text: string) => Effect.ignore(terminal.display(text))
      // Written when the request's turn comes, so the notification matches what is on screen.
      const announce = (request: AskUserQuestionRequest) =>
        notify === "desktop" ? display(desktopNotification(request)) : Effect.void
      return yield* makeProvider(
        (request) =>
          Effect.andThen(announce(request), askOnTerminal(request, promptOptions)).pipe(
            Effect.provideService(Terminal.Terminal, terminal)
          ),
        (line) => display(`${line}\n`)
      )
    })
  )

/**
 * Line mode: questions printed with numbered options on `output` (stderr by
 * default), one answer per line read from `input` (a number, numbers, a
 * label, free text, `-` to skip, `!` to cancel). End of input fails pending
 * asks with `ProviderClosed`.
 *
 * @since 0.1.0
 */
export const layerLines = (options: TerminalProviderLineOptions): Layer.Layer<UserInteractionProvider> =>
  Layer.effect(
    UserInteractionProvider,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const output = options.output ?? process.stderr
      // Input is read from the first ask on, not when the provider is built.
      let source: LineSource | undefined
      const lines = Effect.suspend(() =>
        source !== undefined
          ? Effect.succeed(source)
          : Effect.map(Scope.provide(scope)(makeLineSource(options.input)), (made) => (source = made))
      )
      return yield* makeProvider(
        (request) => Effect.flatMap(lines, (made) => askOnLines(request, made, output, options)),
        (line) => Effect.sync(() => void output.write(`${line}\n`))
      )
    })
  )

/**
 * The terminal provider for this process: TTY mode when the chosen input is
 * a terminal (menus drawn on `/dev/tty`, never on stdout; stderr when
 * `/dev/tty` cannot be opened; plain numbered lines there in plain mode),
 * else line mode on stdin with questions on stderr. Closing the layer's
 * scope takes any prompt down and restores the terminal.
 *
 * @since 0.1.0
 */
export const layer = (options: TerminalProviderLayerOptions = {}): Layer.Layer<UserInteractionProvider> =>
  Layer.unwrap(Effect.gen(function*() {
    const onTty = (options.mode ?? modeFromEnvironment()) === "plain"
      ? (input: tty.ReadStream, output: TerminalOutput) => layerLines({ input, output })
      : (input: tty.ReadStream, output: TerminalOutput) => ttyLayer(options, input, output)
    if (options.input === "tty") {
      const device = yield* openControllingTerminal
      if (Option.isSome(device)) return onTty(device.value.input, device.value.output)
      // Stdin carried the program's data to its end: printing a question there would wait on nothing.
      if (process.stdin.readableEnded) return noTerminal
    }
    const stdin = process.stdin
    if (!stdin.isTTY) {
      return layerLines({ input: stdin, output: process.stderr, allowPipedSecrets: options.allowPipedSecrets })
    }
    const output = Option.getOrElse(yield* openTerminalOutput, (): TerminalOutput => process.stderr)
    return onTty(stdin, output)
  }))

/** Fails every ask at once: there is no controlling terminal, and stdin has ended. */
const noTerminal = Layer.succeed(
  UserInteractionProvider,
  UserInteractionProvider.of({
    name: "terminal",
    ask: () =>
      Effect.fail(
        new ProviderClosed({
          message: "There is no terminal to ask on: no controlling terminal (/dev/tty), and standard input has ended."
        })
      )
  })
)

const ttyLayer = (
  options: TerminalProviderOptions,
  input: tty.ReadStream,
  output: TerminalOutput
): Layer.Layer<UserInteractionProvider> =>
  layerTerminal({ ...options, colors: options.colors ?? wantsColors(output) }).pipe(
    Layer.provide(Layer.succeed(Terminal.Terminal, makeTerminal({ input, output })))
  )
