/**
 * A `Terminal` for tests: key presses are fed through a queue, every byte
 * the prompts write is recorded, and raw-mode sessions (`readInput` scopes)
 * are counted so tests can check the terminal is restored.
 */
import { type Cause, Effect, Layer, Option, Queue, Terminal } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { TerminalProvider } from "effect-user-interaction/terminal"

export interface Key {
  readonly name: string
  readonly ctrl?: boolean
  readonly shift?: boolean
  readonly input?: string
}

export const key = (name: string, input?: string): Key => input === undefined ? { name } : { name, input }
export const ctrl = (name: string): Key => ({ name, ctrl: true })
export const typed = (text: string): ReadonlyArray<Key> => Array.from(text, (ch) => key(ch === " " ? "space" : ch, ch))
export const enter = key("return", "\r")
export const down = key("down")
export const up = key("up")
export const space = key("space", " ")
export const esc = key("escape")
export const left = key("left")
export const right = key("right")
export const tab = key("tab", "\t")
/** Shift+Tab, as Node's key reader decodes `\x1b[Z`: the Tab key with shift held. */
export const shiftTab: Key = { name: "tab", shift: true }

export interface TestTerminal {
  readonly layer: Layer.Layer<Terminal.Terminal>
  /** Queues key presses (they are read in order, whenever a prompt wants input). */
  readonly press: (...keys: ReadonlyArray<Key | ReadonlyArray<Key>>) => Effect.Effect<void>
  /** Ends the input, like a closed terminal. */
  readonly end: Effect.Effect<void>
  /** Resizes the terminal (80x24 at first), as a window resize tells its subscribers. */
  readonly resize: (columns: number, rows: number) => Effect.Effect<void>
  /** How many subscriptions to the terminal's size are open now. */
  readonly sizeSubscribers: () => number
  /** Everything written so far. */
  readonly written: () => string
  /** How many raw-mode sessions are open now. */
  readonly openSessions: () => number
  /** Waits until the written text satisfies `predicate` (a bounded number of scheduler turns). */
  readonly waitFor: (predicate: (written: string) => boolean) => Effect.Effect<void>
}

export const makeTestTerminal: Effect.Effect<TestTerminal> = Effect.gen(function*() {
  const keys = yield* Queue.unbounded<Terminal.UserInput, Cause.Done>()
  let out = ""
  let sessions = 0
  let size: Terminal.Size = { columns: 80, rows: 24 }
  const subscribers = new Set<Queue.Queue<Terminal.Size, Cause.Done>>()
  const terminal = Terminal.make({
    columns: Effect.sync(() => size.columns),
    rows: Effect.sync(() => size.rows),
    size: Effect.gen(function*() {
      const q = yield* Queue.sliding<Terminal.Size, Cause.Done>(1)
      yield* Queue.offer(q, size)
      yield* Effect.acquireRelease(Effect.sync(() => subscribers.add(q)), () => Effect.sync(() => subscribers.delete(q)))
      return q
    }),
    readInput: Effect.acquireRelease(Effect.sync(() => sessions++), () => Effect.sync(() => sessions--)).pipe(
      Effect.as(keys)
    ),
    readLine: Effect.fail(new Terminal.QuitError({})),
    display: (text) => Effect.sync(() => void (out += text))
  })
  const toInput = (k: Key): Terminal.UserInput => ({
    input: Option.fromUndefinedOr(k.input),
    key: { name: k.name, ctrl: k.ctrl === true, meta: false, shift: k.shift === true }
  })
  return {
    layer: Layer.succeed(Terminal.Terminal, terminal),
    press: (...pressed) => Queue.offerAll(keys, pressed.flat().map(toInput)).pipe(Effect.asVoid),
    end: Queue.end(keys).pipe(Effect.asVoid),
    resize: (columns, rows) =>
      Effect.sync(() => {
        size = { columns, rows }
        for (const q of subscribers) Queue.offerUnsafe(q, size)
      }),
    sizeSubscribers: () => subscribers.size,
    written: () => out,
    openSessions: () => sessions,
    // Everything here runs on fibers of the same test, so yielding lets the prompt make progress;
    // no clock is involved (it.effect runs on the TestClock).
    waitFor: (predicate) =>
      Effect.gen(function*() {
        for (let turn = 0; turn < 10_000; turn++) {
          if (predicate(out)) return
          yield* Effect.yieldNow
        }
        return yield* Effect.die(new Error(`waitFor: never satisfied; written so far: ${JSON.stringify(out)}`))
      })
  }
})

/** The control sequences the prompts themselves write (cursor, bracketed paste, erase, caret, bell); everything else must be inert. */
export const ownSequences = /\x1b\[\?(?:25|2004)[lh]|\x1b\[2K|\x1b\[1A|\x1b\[2?7m|\r|\x07/g

/**
 * Characters that must never reach a terminal from model text: controls other than tab and
 * newline, every format character (Cf: zero-width, BiDi, tags, …), the line and paragraph
 * separators, every other default-ignorable (invisible) character except variation selectors,
 * and a variation selector right after a Latin letter, white space or the start, where it only
 * hides (`ye\ufe0fs`). Written with Unicode properties (the `v` flag's class subtraction), not
 * as the sanitizer's own list, so that it checks that list.
 */
export const unsafeChars = new RegExp(
  String.raw`[[\p{Cc}--[\t\n]]\p{Cf}\p{Zl}\p{Zp}[\p{Default_Ignorable_Code_Point}--\p{Variation_Selector}]]` +
    String.raw`|(?:^|[\p{Script=Latin}\s])\p{Variation_Selector}`,
  "v"
)

/** Runs `program` against a seam whose provider is the TTY prompt over a fresh test terminal. */
export const withTerminal = <A, E>(
  program: (terminal: TestTerminal) => Effect.Effect<A, E, UserInteraction>,
  options: TerminalProvider.TerminalProviderOptions = { bell: false }
) =>
  Effect.gen(function*() {
    const terminal = yield* makeTestTerminal
    return yield* program(terminal).pipe(
      Effect.provide(UserInteraction.layerWith(TerminalProvider.layerTerminal(options).pipe(Layer.provide(terminal.layer))))
    )
  })

/** Each frame drawn while a question was being answered (the line left once it is done cut off). */
export const framesOf = (terminal: TestTerminal) =>
  terminal.written().split("\x1b[?25l").slice(1).map((frame) => frame.replace(ownSequences, "").split("✔")[0]!)

/** The written text with the prompt's own control sequences removed. */
export const visibleText = (terminal: TestTerminal) => terminal.written().replace(ownSequences, "")
