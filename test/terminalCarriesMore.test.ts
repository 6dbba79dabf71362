/**
 * The terminal with the second edition's fields: the cursor on the
 * recommended option and its mark, the preview box of the option under the
 * cursor (clipped, inert, never taking the menu's rows), secrets typed masked
 * (menus), with echo off (plain mode) or refused from a pipe unless allowed,
 * and the opt-in review before a batch is sent.
 */
import { describe, expect, it } from "@effect/vitest"
import stringWidth from "fast-string-width"
import { Arbitrary, Context, Effect, Exit, Fiber, Layer, Redacted, Schema, Scope } from "effect"
import { type AskUserQuestionRequest, UserInteraction, UserInteractionProvider } from "effect-user-interaction"
import { TerminalProvider } from "effect-user-interaction/terminal"
import { PassThrough } from "node:stream"
import { questionText } from "../src/terminal/lines.js"
import { initialState, type QuestionContext, rowsOf } from "../src/terminal/question.js"
import { questionFrame, rowCount } from "../src/terminal/render.js"
import { reviewFrame } from "../src/terminal/review.js"
import { hostile } from "./terminalCorpus.js"
import {
  ctrl,
  down,
  enter,
  esc,
  framesOf,
  key,
  space,
  typed,
  unsafeChars,
  up,
  visibleText,
  withTerminal
} from "./terminalHarness.js"

const deploy: AskUserQuestionRequest = {
  questions: [{
    id: "db",
    question: "Which database?",
    options: [
      { label: "SQLite", preview: "One file next to the app.\nNo server to run." },
      { label: "PostgreSQL", recommended: true, preview: "## PostgreSQL\nA server the platform team already runs." },
      { label: "MySQL" }
    ]
  }]
}

const token: AskUserQuestionRequest = { questions: [{ id: "token", question: "Deploy token?", secret: true }] }

const batch: AskUserQuestionRequest = {
  questions: [
    deploy.questions[0]!,
    { id: "features", question: "Which features?", multiSelect: true, options: [{ label: "auth" }, { label: "billing" }, { label: "search" }] },
    { id: "name", question: "Project name?" },
    { id: "token", question: "Deploy token?", secret: true }
  ]
}

const context = (question: QuestionContext["question"], total = 1): QuestionContext => ({
  question,
  index: 0,
  total,
  agentName: undefined
})

describe("recommended options on the terminal", () => {
  it.effect("the cursor starts on the recommended option, marked (recommended); Enter takes it", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        yield* terminal.press(enter)
        const answer = yield* UserInteraction.ask(deploy)
        expect(answer).toEqual({ answers: [{ id: "db", selected: ["PostgreSQL"] }] })
        const first = framesOf(terminal)[0]!
        expect(first).toContain("❯ PostgreSQL (recommended)")
        expect(first).toContain("  SQLite\n")
        // Only the recommended option is marked.
        expect(first.match(/\(recommended\)/g)).toHaveLength(1)
      })
    ))

  it.effect("a label ending \" (Recommended)\" draws the cursor there and is not marked twice; recommended: false wins over it", () =>
    Effect.gen(function*() {
      const byLabel = yield* withTerminal((terminal) =>
        terminal.press(enter).pipe(
          Effect.andThen(UserInteraction.ask({
            questions: [{ id: "q", question: "Which?", options: [{ label: "a" }, { label: "b (Recommended)", recommended: true }] }]
          })),
          Effect.map((answer) => ({ answer, frame: framesOf(terminal)[0]! }))
        )
      )
      expect(byLabel.answer.answers[0]!.selected).toEqual(["b (Recommended)"])
      expect(byLabel.frame).toContain("❯ b (Recommended)\n")
      expect(byLabel.frame.match(/recommended/gi)).toHaveLength(1)
      const refused = yield* withTerminal((terminal) =>
        terminal.press(enter).pipe(
          Effect.andThen(UserInteraction.ask({
            questions: [{ id: "q", question: "Which?", options: [{ label: "a" }, { label: "b (Recommended)", recommended: false }] }]
          }))
        )
      )
      expect(refused.answers[0]!.selected).toEqual(["a"])
    }))

  it.effect("multi-select: the cursor starts on the first recommended option and nothing is ticked", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        const multi: AskUserQuestionRequest = {
          questions: [{
            id: "f",
            question: "Which features?",
            multiSelect: true,
            options: [{ label: "auth" }, { label: "billing", recommended: true }, { label: "search", recommended: true }]
          }]
        }
        // Enter at once: nothing ticked, a skip, not the recommended options.
        yield* terminal.press(enter)
        expect((yield* UserInteraction.ask(multi)).answers).toEqual([{ id: "f", selected: [] }])
        const first = framesOf(terminal)[0]!
        expect(first).toContain("❯ [ ] billing (recommended)")
        expect(first).toContain("  [ ] search (recommended)")
        expect(first).not.toContain("[x]")
        // Space ticks the option under the cursor: the recommended one.
        yield* terminal.press(space, enter)
        expect((yield* UserInteraction.ask(multi)).answers).toEqual([{ id: "f", selected: ["billing"] }])
      })
    ))

  it.effect("line mode marks the recommended option in the numbered list", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      let printed = ""
      output.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")))
      input.write("2\n")
      const answer = yield* UserInteraction.ask(deploy).pipe(
        Effect.provide(UserInteraction.layerWith(TerminalProvider.layerLines({ input, output })))
      )
      expect(answer.answers[0]!.selected).toEqual(["PostgreSQL"])
      expect(printed).toContain("  1. SQLite\n")
      expect(printed).toContain("  2. PostgreSQL (recommended)\n")
      expect(printed).toContain("  3. MySQL\n")
    }))
})

/** The box drawn under the menu, its borders and lines, from a frame (none: []). */
const boxOf = (frame: string): ReadonlyArray<string> => frame.split("\n").filter((line) => /^[┌│└]/.test(line))

describe("previews on the terminal", () => {
  it.effect("a box under the menu shows the preview of the option under the cursor; none on Other", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        yield* terminal.press(up, down, down, down, up, enter)
        const answer = yield* UserInteraction.ask(deploy)
        expect(answer.answers[0]!.selected).toEqual(["MySQL"])
        const frames = framesOf(terminal)
        // PostgreSQL (the recommended option, first under the cursor), SQLite, PostgreSQL, MySQL, Other, MySQL.
        expect(boxOf(frames[0]!).join("\n")).toMatch(/^┌─ Preview ─*┐\n│ ## PostgreSQL +│\n│ A server the platform team already runs\. │\n└─*┘$/)
        expect(boxOf(frames[1]!).slice(1, -1).map((line) => line.slice(2, -2).trimEnd())).toEqual([
          "One file next to the app.",
          "No server to run."
        ])
        expect(boxOf(frames[2]!)).toEqual(boxOf(frames[0]!))
        // MySQL has no preview; neither has the Other row.
        expect(frames[3]!).toContain("❯ MySQL")
        expect(boxOf(frames[3]!)).toEqual([])
        expect(frames[4]!).toContain("❯ Other")
        expect(boxOf(frames[4]!)).toEqual([])
        // The box sits below the menu and above the key hint.
        const lines = frames[0]!.split("\n")
        expect(lines.findIndex((line) => line.startsWith("┌"))).toBeGreaterThan(lines.findIndex((line) => line.includes("Skip") || line.includes("Other")))
        expect(lines.at(-1)).toContain("Enter chooses")
      })
    ))

  it("a preview longer than the rows left, or wider than the pane, is cut with \"…\"", () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i + 1} ${"wide ".repeat(i === 0 ? 30 : 1)}`).join("\n")
    const c = context({ id: "q", question: "Pick", options: [{ label: "a", preview: long }, { label: "b" }] })
    const frame = questionFrame(c, initialState(c), { colors: false }, { columns: 40, rows: 14 })
    const box = boxOf(frame)
    expect(frame.split("\n").length).toBeLessThanOrEqual(13)
    expect(box[1]).toMatch(/^│ line 1 wide wide .*… │$/)
    expect(box.at(-2)).toMatch(/^│ … \d+ more lines +│$/)
    for (const line of frame.split("\n")) expect(stringWidth(line)).toBeLessThanOrEqual(40)
    // The menu is whole: the preview took only the rows left over.
    expect(frame).toContain("❯ a\n  b\n  Other (type your own answer)")
  })

  it("markdown is shown as the text it is; escape sequences, controls and BiDi as visible escapes", () => {
    for (const text of hostile) {
      const c = context({ id: "q", question: "Pick", options: [{ label: "a", preview: `**bold** ${text}\n# heading\t${text}` }] })
      const frame = questionFrame(c, initialState(c), { colors: false }, { columns: 200, rows: 40 })
      const box = boxOf(frame).join("\n")
      expect(box).toContain("**bold**")
      expect(box).toContain("# heading    ")
      expect(box).not.toMatch(unsafeChars)
      expect(box).not.toContain("\x1b")
    }
  })

  it("line mode prints each preview under its option, marked with a bar, at most six lines", () => {
    const many = Array.from({ length: 10 }, (_, i) => `row ${i + 1}`).join("\n")
    const text = questionText(context({ id: "q", question: "Pick", options: [{ label: "a", preview: many }, { label: "b", preview: "\x1b[2J short" }] }))
    expect(text).toContain("  1. a\n     │ row 1\n     │ row 2\n     │ row 3\n     │ row 4\n     │ row 5\n     │ … 5 more lines\n  2. b\n")
    expect(text).toContain("     │ \\x1b[2J short\n")
  })

  const int = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))
  const cases = Arbitrary.schema(Schema.Struct({
    options: int(1, 12),
    cursor: int(0, 20),
    rows: int(1, 40),
    columns: int(20, 120),
    previewLines: int(1, 50),
    lineLength: int(0, 300),
    questionLines: int(1, 30),
    hostileLine: int(0, hostile.length - 1),
    multi: Schema.Boolean
  }))

  it.prop("a frame with a preview fits the pane, and its menu rows are those of the frame without it", [cases], ([c]) => {
    const preview = Array.from(
      { length: c.previewLines },
      (_, i) => i === 1 ? hostile[c.hostileLine]! : `p${i} ${"漢x".repeat(c.lineLength)}`.slice(0, c.lineLength + 3)
    ).join("\n")
    const question = Array.from({ length: c.questionLines }, (_, i) => `question line ${i + 1}`).join("\n")
    const labels = Array.from({ length: c.options }, (_, i) => `option ${i + 1}`)
    const ask = (withPreview: boolean) =>
      context({ id: "q", question, multiSelect: c.multi, options: labels.map((label) => withPreview ? { label, preview } : { label }) }, 2)
    const withBox = ask(true)
    const rows = rowsOf(withBox)
    const state = { ...initialState(withBox), cursor: c.cursor % rows.length }
    const size = { columns: c.columns, rows: c.rows }
    const frame = questionFrame(withBox, state, { colors: false }, size)
    expect(rowCount(frame, c.columns)).toBeLessThanOrEqual(Math.max(1, c.rows - 1))
    for (const line of frame.split("\n")) expect(stringWidth(line)).toBeLessThanOrEqual(c.columns)
    expect(frame).not.toMatch(unsafeChars)
    const menuRows = (text: string) =>
      text.split("\n").filter((line) => /^[❯ ] (\[[ x]\] )?(option \d+|Other|Skip)|^ {2}[↑↓] \d+ more/.test(line))
    expect(menuRows(frame)).toEqual(menuRows(questionFrame(ask(false), state, { colors: false }, size)))
    expect(frame).toContain("❯")
  })
})

/** A stand-in for a TTY's input stream: raw mode is recorded, not set. */
const fakeTty = () => {
  const modes: Array<boolean> = []
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode: (on: boolean) => {
      modes.push(on)
      input.isRaw = on
      return input
    }
  })
  return { input, modes }
}

/** Collects what is written to `stream`; `until` waits (real time, generous) for a text to appear. */
const collected = (stream: PassThrough) => {
  let text = ""
  stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
  return {
    text: () => text,
    until: (wanted: string, from = 0) =>
      Effect.gen(function*() {
        for (let waited = 0; !text.slice(from).includes(wanted); waited += 5) {
          if (waited > 20_000) return yield* Effect.die(new Error(`never printed ${JSON.stringify(wanted)}; printed: ${text}`))
          yield* Effect.sleep("5 millis")
        }
      })
  }
}

// No run of three of its characters appears in any prompt text.
const value = "qZ7§xV9-kW3j"

describe("secrets on the terminal", () => {
  it.effect("menus: typed masked, one • a character; the ✔ line says (secret received); the answer holds it redacted", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        yield* terminal.press(typed(`${value}x`), { name: "backspace" }, enter)
        const answer = yield* UserInteraction.ask(token)
        const item = answer.answers[0]!
        expect(item.selected).toEqual([])
        expect(item.custom).toBeUndefined()
        expect(Redacted.isRedacted(item.secret)).toBe(true)
        expect(Redacted.value(item.secret!)).toBe(value)
        expect(JSON.stringify(answer)).not.toContain("kW3j")
        const text = visibleText(terminal)
        // Nothing typed reaches the terminal: no run of it, however short.
        for (let i = 0; i + 3 <= value.length; i++) expect(terminal.written()).not.toContain(value.slice(i, i + 3))
        expect(text).toContain(`❯ ${"•".repeat(Array.from(value).length)}█`)
        expect(text).toContain("typing is hidden")
        expect(text).toContain("✔ Deploy token? › (secret received)\n")
      })
    ))

  it.effect("line mode on a pipe refuses a secret question before printing or reading anything (PROVIDER_FAILED)", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      const printed = collected(output)
      input.write(`${value}\n`)
      const provider = UserInteraction.layerWith(TerminalProvider.layerLines({ input, output }))
      const [refused, next] = yield* Effect.all([
        Effect.flip(UserInteraction.ask(batch)),
        UserInteraction.ask({ questions: [{ id: "n", question: "Name?" }] })
      ]).pipe(Effect.provide(provider))
      expect(refused.code).toBe("PROVIDER_FAILED")
      expect(refused.message).toMatch(/"token" is secret.*pipe.*--allow-piped-secrets/)
      // Nothing of the refused request was printed, and its line was left for the next ask.
      expect(printed.text()).not.toContain("Which database?")
      expect(next.answers[0]!.custom).toBe(value)
    }))

  it.effect("allowPipedSecrets: the piped line is the secret, and nothing printed holds it", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      const printed = collected(output)
      input.write(`2\n-\n-\n${value}\n`)
      const answer = yield* UserInteraction.ask(batch).pipe(
        Effect.provide(UserInteraction.layerWith(TerminalProvider.layerLines({ input, output, allowPipedSecrets: true })))
      )
      expect(answer.answers[3]!.selected).toEqual([])
      expect(Redacted.value(answer.answers[3]!.secret!)).toBe(value)
      expect(printed.text()).toContain("Deploy token?")
      expect(printed.text()).not.toContain("kW3j")
    }))

  it.live("plain mode on a TTY: the secret's line is read in raw mode (no echo), edited, and cooked mode comes back", () =>
    Effect.gen(function*() {
      const { input, modes } = fakeTty()
      const output = new PassThrough()
      const printed = collected(output)
      const asked = yield* Effect.forkChild(UserInteraction.ask(batch).pipe(
        Effect.provide(UserInteraction.layerWith(TerminalProvider.layerLines({ input, output })))
      ))
      yield* printed.until("Which database?")
      input.write("1\n-\nledger\n")
      yield* printed.until("typing is hidden")
      // Raw mode (no echo) was on before the question was printed: no key typed in answer is echoed.
      expect(input.isRaw).toBe(true)
      // Typed with Backspace, Ctrl+U and Ctrl+W, an arrow key (dropped), then Enter; the next line is typed ahead.
      input.write("nope\x15wrong word\x17\x17")
      input.write(`${value.slice(0, 4)}X\x7f\x1b[D${value.slice(4)}\rtyped ahead\n`)
      const answer = yield* Fiber.join(asked)
      expect(answer.answers.map((item) => item.id)).toEqual(["db", "features", "name", "token"])
      expect(Redacted.value(answer.answers[3]!.secret!)).toBe(value)
      // Raw mode on for the secret's line only, then off.
      expect(modes).toEqual([true, false])
      expect(input.isRaw).toBe(false)
      expect(printed.text()).not.toContain("kW3j")
      expect(printed.text()).not.toContain("\x1b")
      // The line typed after the Enter was given back to the line reader, for the next ask.
      const next = yield* UserInteraction.ask({ questions: [{ id: "n", question: "Name?" }] }).pipe(
        Effect.provide(UserInteraction.layerWith(TerminalProvider.layerLines({ input, output })))
      )
      expect(next.answers[0]!.custom).toBe("typed ahead")
      // Nothing is left listening on the input.
      expect(input.listenerCount("data")).toBe(0)
    }))

  it.live("plain mode: Ctrl+C on the hidden line aborts at once (ASK_ABORTED), Ctrl+D on an empty one cancels, cooked mode back", () =>
    Effect.gen(function*() {
      const ended = (keys: string) =>
        Effect.gen(function*() {
          const { input, modes } = fakeTty()
          const output = new PassThrough()
          const printed = collected(output)
          const asked = yield* Effect.forkChild(Effect.flip(UserInteraction.ask(token).pipe(
            Effect.provide(UserInteraction.layerWith(TerminalProvider.layerLines({ input, output })))
          )))
          yield* printed.until("typing is hidden")
          input.write(keys)
          const error = yield* Fiber.join(asked)
          return { code: error.code, modes, listeners: input.listenerCount("data") }
        })
      expect(yield* ended("half\x03")).toEqual({ code: "ASK_ABORTED", modes: [true, false], listeners: 0 })
      expect(yield* ended("\x04")).toEqual({ code: "ASK_CANCELLED", modes: [true, false], listeners: 0 })
    }))

  it.live("plain mode: the provider closing while the hidden line is read fails the ask PROVIDER_CLOSED and lets go of the input", () =>
    Effect.gen(function*() {
      const { input, modes } = fakeTty()
      const output = new PassThrough()
      const printed = collected(output)
      // The provider itself, without a seam to interrupt its asks first: its own scope's finalizers
      // close the line reader before its asks are interrupted.
      const providerScope = yield* Scope.make()
      const provider = Context.get(
        yield* Layer.buildWithScope(TerminalProvider.layerLines({ input, output }), providerScope),
        UserInteractionProvider
      )
      const asked = yield* Effect.forkChild(Effect.flip(provider.ask(token)))
      yield* printed.until("typing is hidden")
      yield* Scope.close(providerScope, Exit.void)
      expect((yield* Fiber.join(asked)).code).toBe("PROVIDER_CLOSED")
      expect(modes).toEqual([true, false])
      // No line reader was opened again behind the closed provider: nothing holds the input.
      expect(input.listenerCount("data")).toBe(0)
      expect(input.listenerCount("end")).toBe(0)
    }))

  it.live("plain mode: an ask interrupted while the hidden line is read restores cooked mode", () =>
    Effect.gen(function*() {
      const { input, modes } = fakeTty()
      const output = new PassThrough()
      const printed = collected(output)
      const controller = new AbortController()
      const asked = yield* Effect.forkChild(Effect.flip(UserInteraction.ask({ ...token, signal: controller.signal }).pipe(
        Effect.provide(UserInteraction.layerWith(TerminalProvider.layerLines({ input, output })))
      )))
      yield* printed.until("typing is hidden")
      input.write("half typed")
      yield* Effect.sleep("20 millis")
      controller.abort()
      expect((yield* Fiber.join(asked)).code).toBe("ASK_ABORTED")
      expect(modes).toEqual([true, false])
      expect(input.listenerCount("data")).toBe(0)
    }))
})

describe("review before submit (review: true)", () => {
  const two: AskUserQuestionRequest = { questions: [deploy.questions[0]!, batch.questions[1]!] }
  const reviewing = { bell: false, review: true }

  it.effect("a batch ends with the review, cursor on Submit; Enter sends; ✔ lines only once sent", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        const asked = yield* Effect.forkChild(UserInteraction.ask(two))
        yield* terminal.press(enter, space, enter)
        yield* terminal.waitFor((text) => text.includes("Review your answers"))
        const review = framesOf(terminal).at(-1)!
        expect(review).toContain("❯ Submit\n  Which database? › PostgreSQL\n  Which features? › auth\n")
        expect(review).toContain("Enter sends these answers")
        // No ✔ line is left while an answer can still change.
        expect(terminal.written()).not.toContain("✔")
        yield* terminal.press(enter)
        expect(yield* Fiber.join(asked)).toEqual({
          answers: [{ id: "db", selected: ["PostgreSQL"] }, { id: "features", selected: ["auth"] }]
        })
        expect(visibleText(terminal)).toMatch(/✔ Which database\? › PostgreSQL\n✔ Which features\? › auth\n$/)
        expect(terminal.openSessions()).toBe(0)
      }), reviewing))

  it.effect("Enter on a question goes back to it, opened on its answer; the review comes back with the new answer", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        const asked = yield* Effect.forkChild(UserInteraction.ask(batch))
        // SQLite; auth + search; "atlas"; the secret.
        yield* terminal.press(up, enter, space, down, down, space, enter, typed("atlas"), enter, typed(value), enter)
        yield* terminal.waitFor((text) => text.includes("Review your answers"))
        expect(framesOf(terminal).at(-1)).toContain("  Deploy token? › (secret received)")
        // Back to the database question: the cursor is on SQLite, its answer; take MySQL.
        yield* terminal.press(down)
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("❯ Which database? › SQLite"))
        expect(framesOf(terminal).at(-1)).toContain("Enter changes this answer")
        yield* terminal.press(enter)
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("❯ SQLite"))
        yield* terminal.press(down, down, enter)
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("Which database? › MySQL"))
        expect(framesOf(terminal).at(-1)).toContain("❯ Submit")
        // The multiple choice keeps its ticks; untick search.
        yield* terminal.press(down, down, enter)
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("[x] search"))
        expect(framesOf(terminal).at(-1)).toContain("[x] auth")
        yield* terminal.press(down, down, space, enter)
        // The typed text is in its field, to edit.
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("Which features? › auth\n"))
        yield* terminal.press(down, down, down, enter)
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("❯ atlas█"))
        yield* terminal.press(typed("-2"), enter)
        // The secret too, masked.
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes("Project name? › atlas-2"))
        yield* terminal.press(up, enter)
        yield* terminal.waitFor(() => framesOf(terminal).at(-1)!.includes(`❯ ${"•".repeat(Array.from(value).length)}█`))
        yield* terminal.press(enter, enter)
        const answer = yield* Fiber.join(asked)
        expect(answer.answers.map(({ secret, ...item }) => item)).toEqual([
          { id: "db", selected: ["MySQL"] },
          { id: "features", selected: ["auth"] },
          { id: "name", selected: [], custom: "atlas-2" },
          { id: "token", selected: [] }
        ])
        expect(Redacted.value(answer.answers[3]!.secret!)).toBe(value)
        expect(terminal.written()).not.toContain("kW3j")
      }), reviewing))

  it.effect("Esc on the review cancels (ASK_CANCELLED), Ctrl+C aborts; nothing reads as sent", () =>
    Effect.gen(function*() {
      const ended = (...keys: ReadonlyArray<ReturnType<typeof key>>) =>
        withTerminal((terminal) =>
          Effect.gen(function*() {
            yield* terminal.press(enter, enter, ...keys)
            const error = yield* Effect.flip(UserInteraction.ask(two))
            return { code: error.code, text: visibleText(terminal), sessions: terminal.openSessions() }
          }), reviewing)
      const cancelled = yield* ended(esc)
      expect(cancelled.code).toBe("ASK_CANCELLED")
      expect(cancelled.text).toMatch(/✖ Your answers were not sent \(cancelled\)\n$/)
      expect(cancelled.text).not.toContain("✔")
      expect(cancelled.sessions).toBe(0)
      const aborted = yield* ended(down, ctrl("c"))
      expect(aborted.code).toBe("ASK_ABORTED")
      expect(aborted.text).toMatch(/✖ Your answers were not sent \(interrupted\)\n$/)
      // Esc while answering a question again cancels the whole request too.
      expect((yield* ended(down, enter, esc)).code).toBe("ASK_CANCELLED")
    }))

  it.effect("an ask aborted on the review takes it down and restores the terminal; nothing reads as sent", () =>
    withTerminal((terminal) =>
      Effect.gen(function*() {
        const controller = new AbortController()
        const asked = yield* Effect.forkChild(UserInteraction.ask({ ...two, signal: controller.signal }))
        yield* terminal.press(enter, enter)
        yield* terminal.waitFor((text) => text.includes("Review your answers"))
        const before = terminal.written().length
        controller.abort()
        expect((yield* Effect.flip(Fiber.join(asked))).code).toBe("ASK_ABORTED")
        const takedown = terminal.written().slice(before)
        // The review's rows erased (title, Submit, two answers, hint), the cursor shown again, no ✔ line.
        expect(takedown).toContain("\x1b[2K" + "\x1b[1A\x1b[2K".repeat(4))
        expect(takedown.endsWith("\x1b[?25h")).toBe(true)
        expect(terminal.written()).not.toContain("✔")
        expect(terminal.openSessions()).toBe(0)
      }), reviewing))

  it.effect("off by default, and a single question has no review", () =>
    Effect.gen(function*() {
      const answered = (request: AskUserQuestionRequest, options: TerminalProvider.TerminalProviderOptions) =>
        withTerminal((terminal) =>
          terminal.press(enter, enter).pipe(
            Effect.andThen(UserInteraction.ask(request)),
            Effect.map((answer) => ({ answer, reviewed: terminal.written().includes("Review your answers") }))
          ), options)
      expect((yield* answered(two, { bell: false })).reviewed).toBe(false)
      expect((yield* answered(deploy, reviewing))).toEqual({
        answer: { answers: [{ id: "db", selected: ["PostgreSQL"] }] },
        reviewed: false
      })
    }))

  it("the review fits the pane: a window around the cursor, rows cut with \"…\", the hint and title giving way last", () => {
    const questions = Array.from({ length: 20 }, (_, i) => ({ id: `q${i}`, question: `Question ${i + 1} ${"long ".repeat(20)}` }))
    const answers = questions.map((q) => ({ id: q.id, selected: [], custom: "an answer" }))
    for (const [rows, columns] of [[24, 80], [8, 30], [3, 20], [1, 20]] as const) {
      for (const cursor of [0, 5, 20]) {
        const frame = reviewFrame({ request: { questions }, answers }, { cursor }, { colors: false }, { columns, rows })
        const lines = frame.split("\n")
        expect(lines.length).toBeLessThanOrEqual(Math.max(1, rows - 1))
        for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns)
        expect(lines.filter((line) => line.startsWith("❯"))).toHaveLength(1)
      }
    }
  })
})
