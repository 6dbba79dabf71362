/**
 * Announcing a waiting question at the terminal (`notify`), and saying where
 * an ask went when another surface of a fan-out settled it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { FanoutProvider, UserInteraction, UserInteractionProvider } from "effect-user-interaction"
import { TerminalProvider } from "effect-user-interaction/terminal"
import { PassThrough } from "node:stream"
import { enter, makeTestTerminal, type TestTerminal } from "./terminalHarness.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

const request = {
  agent: { id: "a", name: "Planner\x1b]52;c;cHduZWQ=\x07" },
  questions: [{ id: "go", question: "Deploy\x07 now; really?", options: [{ label: "yes" }, { label: "no" }] }]
}

/** Asks `request` on a test terminal with `options` and answers with Enter; gives everything written. */
const askedWith = (options: TerminalProvider.TerminalProviderOptions) =>
  Effect.gen(function*() {
    const terminal = yield* makeTestTerminal
    const layer = UserInteraction.layerWith(TerminalProvider.layerTerminal(options).pipe(Layer.provide(terminal.layer)))
    yield* terminal.press({ name: "return", input: "\r" })
    yield* UserInteraction.ask(request).pipe(Effect.provide(layer))
    return terminal.written()
  })

const bells = (text: string) => text.replace(/\x1b\][^\x07]*\x07/g, "").split("\x07").length - 1

describe("TerminalProvider notify", () => {
  it.effect("bell (the default) rings once and sends no notification", () =>
    Effect.gen(function*() {
      const written = yield* askedWith({})
      expect(bells(written)).toBe(1)
      expect(written).not.toContain("\x1b]")
    }))

  it.effect("desktop writes OSC 777 and OSC 9 with sanitised text, and rings too", () =>
    Effect.gen(function*() {
      const written = yield* askedWith({ notify: "desktop" })
      const title = "Planner\\x1b]52,c,cHduZWQ=\\x07 asks"
      const body = "Deploy\\x07 now, really?"
      expect(written).toContain(`\x1b]777;notify;${title};${body}\x07`)
      expect(written).toContain(`\x1b]9;${title}: ${body}\x07`)
      // Exactly two OSC sequences: the model's own never start one.
      expect(written.match(/\x1b\]/g)).toHaveLength(2)
      expect(bells(written)).toBe(1)
    }))

  it.effect("none stays quiet; bell: false silences the bell of desktop", () =>
    Effect.gen(function*() {
      const quiet = yield* askedWith({ notify: "none" })
      expect(bells(quiet)).toBe(0)
      expect(quiet).not.toContain("\x1b]")
      const silent = yield* askedWith({ notify: "desktop", bell: false })
      expect(bells(silent)).toBe(0)
      expect(silent).toContain("\x1b]777;notify;")
    }))
})

describe("settled on another surface", () => {
  const web = (gate: Deferred.Deferred<void>) =>
    Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({
      name: "web",
      ask: () => Effect.as(Deferred.await(gate), singleAnswer)
    }))

  it.effect("the terminal prompt comes down and the terminal says \"Answered in the web page.\"", () =>
    Effect.gen(function*() {
      const terminal: TestTerminal = yield* makeTestTerminal
      const gate = yield* Deferred.make<void>()
      const both = FanoutProvider.layer(
        TerminalProvider.layerTerminal({ bell: false }).pipe(Layer.provide(terminal.layer)),
        web(gate)
      )
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provide(UserInteraction.layerWith(both))))
      yield* terminal.waitFor((text) => text.includes("Deploy now?"))
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      expect(terminal.written()).toMatch(/\x1b\[\?25h[^]*Answered in the web page\.\n$/)
    }))

  it.effect("a batch answered on the web after a question was answered here: the terminal says its answer was not used", () =>
    Effect.gen(function*() {
      const terminal: TestTerminal = yield* makeTestTerminal
      const gate = yield* Deferred.make<void>()
      const both = FanoutProvider.layer(
        TerminalProvider.layerTerminal({ bell: false }).pipe(Layer.provide(terminal.layer)),
        Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({ name: "web", ask: () => Effect.as(Deferred.await(gate), batchAnswer) }))
      )
      const fiber = yield* Effect.forkChild(UserInteraction.ask(batch).pipe(Effect.provide(UserInteraction.layerWith(both))))
      yield* terminal.waitFor((text) => text.includes("Question 1 of 3"))
      yield* terminal.press(enter)
      yield* terminal.waitFor((text) => text.includes("Question 2 of 3"))
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(fiber)).toEqual(batchAnswer)
      expect(terminal.written()).toMatch(/✔[^]*The answer above was not used\.\n[^]*Answered in the web page\.\n$/)
    }))

  it.effect("a queued ask answered on the web goes silently: nothing is written over the prompt on screen", () =>
    Effect.gen(function*() {
      const terminal: TestTerminal = yield* makeTestTerminal
      const gate = yield* Deferred.make<void>()
      const second = { questions: [{ id: "later", question: "Later?", options: [{ label: "ok" }] }] }
      const secondAnswer = { answers: [{ id: "later", selected: ["ok"] }] }
      const both = FanoutProvider.layer(
        TerminalProvider.layerTerminal({ bell: false }).pipe(Layer.provide(terminal.layer)),
        Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({
          name: "web",
          ask: (request) => request.questions[0]!.id === "later" ? Effect.as(Deferred.await(gate), secondAnswer) : Effect.never
        }))
      )
      const context = yield* Layer.build(UserInteraction.layerWith(both))
      const ask = (request: typeof single) => Effect.forkChild(UserInteraction.ask(request).pipe(Effect.provideContext(context)))
      const first = yield* ask(single)
      yield* terminal.waitFor((text) => text.includes("Deploy now?"))
      const queued = yield* ask(second)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(queued)).toEqual(secondAnswer)
      yield* terminal.press(enter)
      expect(yield* Fiber.join(first)).toEqual(singleAnswer)
      expect(terminal.written()).not.toContain("Answered in")
      expect(terminal.written()).not.toContain("Later?")
    }))

  it.effect("line mode says it too", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      let printed = ""
      output.on("data", (chunk) => void (printed += String(chunk)))
      const gate = yield* Deferred.make<void>()
      const both = FanoutProvider.layer(TerminalProvider.layerLines({ input, output }), web(gate))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provide(UserInteraction.layerWith(both))))
      yield* Effect.repeat(Effect.yieldNow, { until: () => printed.includes("Deploy now?"), times: 10_000 })
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      yield* Effect.repeat(Effect.yieldNow, { until: () => printed.includes("Answered"), times: 10_000 })
      expect(printed).toContain("Answered in the web page.\n")
      input.end()
    }))

  it.effect("a surface that knows the answerer's name: \"Answered by Ana's phone in the web page.\", the name inert; none without a name", () =>
    Effect.gen(function*() {
      const said = (by: { readonly id: string; readonly name?: string }) =>
        Effect.gen(function*() {
          const terminal: TestTerminal = yield* makeTestTerminal
          const gate = yield* Deferred.make<void>()
          const both = FanoutProvider.layer(
            TerminalProvider.layerTerminal({ bell: false }).pipe(Layer.provide(terminal.layer)),
            Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({
              name: "web",
              ask: () => Effect.as(Deferred.await(gate), { ...singleAnswer, by })
            }))
          )
          const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provide(UserInteraction.layerWith(both))))
          yield* terminal.waitFor((text) => text.includes("Deploy now?"))
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(fiber)
          return terminal.written().split("\x1b[?25h").at(-1)!
        })
      expect(yield* said({ id: "device:3f2a", name: "Ana's phone" })).toMatch(/Answered by Ana's phone in the web page\.\n$/)
      const unnamed = yield* said({ id: "web:token" })
      expect(unnamed).toMatch(/Answered in the web page\.\n$/)
      expect(unnamed).not.toContain("Answered by")
      const hostile = yield* said({ id: "device:x", name: "Eve\x1b]0;pwned\x07\u202e" })
      expect(hostile).toMatch(/Answered by Eve\\x1b\]0;pwned\\x07\\u202e in the web page\.\n$/)
      expect(hostile).not.toContain("\x1b]0")
      expect(hostile).not.toContain("\u202e")
    }))
})
