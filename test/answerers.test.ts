/**
 * Who answered and who may, on the live seam: `answerableBy` patterns,
 * refusals that leave the ask pending, receipts from `askWithReceipt`,
 * `Settled.by`, a fan-out's member, and what the model reads (`answeredBy`).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema, Stream } from "effect"
import { Tool } from "effect/ai"
import { TestClock } from "effect/testing"
import {
  AskCancelled,
  type Answerer,
  answerablePatternProblem,
  AskReceipt,
  askUserQuestionHandlers,
  type AskUserQuestionRequest,
  AskUserQuestionTool,
  AskUserQuestionToolkit,
  FanoutProvider,
  isAnswerableBy,
  type ProviderAnswer,
  ScriptedProvider,
  UserInteraction,
  type UserInteractionError,
  UserInteractionProvider
} from "effect-user-interaction"
import { single, singleAnswer } from "./support/requests.js"

const ana: Answerer = { id: "os:ana@build-01", name: "Ana Lima" }
const stranger: Answerer = { id: "os:mallory@build-01" }
const onlyAna: AskUserQuestionRequest = { ...single, id: "deploy", answerableBy: ["os:ana@*"] }

/** A provider whose n-th ask is settled by `turns[n]` (the last one repeats), counting its asks. */
const turnsOf = (turns: ReadonlyArray<() => Effect.Effect<ProviderAnswer, UserInteractionError>>) => {
  let asked = 0
  const provider = UserInteractionProvider.of({
    name: "terminal",
    ask: () => Effect.suspend(() => turns[Math.min(asked++, turns.length - 1)]!())
  })
  return { layer: Layer.succeed(UserInteractionProvider, provider), asked: () => asked }
}

const answerAs = (by: Answerer | undefined) => () => Effect.succeed<ProviderAnswer>(by === undefined ? singleAnswer : { ...singleAnswer, by })

describe("answerableBy patterns", () => {
  it.each([
    ["", "is empty"],
    ["  ", "is empty"],
    ["os:*@*", "has more than one *"],
    ["ana", "is not of the form kind:value"],
    [":ana", "is not of the form kind:value"],
    ["*:ana", "is not of the form kind:value"],
    ["*@example.com", "is not of the form kind:value"],
    ["os:", "has no value after kind:"]
  ])("%j is refused: %s", (pattern, problem) => {
    expect(answerablePatternProblem(pattern)).toBe(problem)
  })

  it.each(["os:ana@build-01", "os:ana@*", "device:*", "email:*@example.com", "slack:U024BE7LH", "*"])(
    "%j is a pattern",
    (pattern) => expect(answerablePatternProblem(pattern)).toBeUndefined()
  )

  it.effect("a bad entry is INVALID_REQUEST naming its path, and the provider is never asked", () =>
    Effect.gen(function*() {
      for (const [entry, problem] of [["", "is empty"], ["os:*@*", "more than one *"], ["ana", "kind:value"]] as const) {
        const error = yield* Effect.flip(UserInteraction.ask({ ...single, answerableBy: ["device:*", entry] }))
        expect(error.code).toBe("INVALID_REQUEST")
        expect(error.message).toContain("answerableBy[1]")
        expect(error.message).toContain(problem)
      }
      expect(yield* ScriptedProvider.requests).toHaveLength(0)
    }).pipe(Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(singleAnswer))))))

  it("exact, starred and several patterns; an unknown answerer matches none", () => {
    expect(isAnswerableBy(undefined, undefined)).toBe(true)
    expect(isAnswerableBy(["slack:U024BE7LH"], { id: "slack:U024BE7LH" })).toBe(true)
    expect(isAnswerableBy(["slack:U024BE7LH"], { id: "slack:U024BE7LHX" })).toBe(false)
    expect(isAnswerableBy(["os:ana@*"], ana)).toBe(true)
    expect(isAnswerableBy(["os:ana@*"], { id: "os:anabel@build-01" })).toBe(false)
    expect(isAnswerableBy(["email:*@example.com"], { id: "email:ana@example.com" })).toBe(true)
    expect(isAnswerableBy(["email:*@example.com"], { id: "email:ana@example.com.evil.test" })).toBe(false)
    expect(isAnswerableBy(["device:*", "os:ana@*"], { id: "device:3f2a" })).toBe(true)
    expect(isAnswerableBy(["*"], { id: "web:token" })).toBe(true)
    expect(isAnswerableBy(["*"], undefined)).toBe(false)
    expect(isAnswerableBy([], ana)).toBe(false)
  })

  const part = Schema.String.check(Schema.isMaxLength(6), Schema.makeFilter((s: string) => !s.includes("*")))
  it.prop(
    "a pattern with one * matches exactly the ids with its head and tail",
    { head: part, middle: part, tail: part },
    ({ head, middle, tail }) => {
      const pattern = `k:${head}*${tail}`
      expect(isAnswerableBy([pattern], { id: `k:${head}${middle}${tail}` })).toBe(true)
      const id = `k:${middle}`
      const expected = id.length >= pattern.length - 1 && id.startsWith(`k:${head}`) && id.endsWith(tail)
      expect(isAnswerableBy([pattern], { id })).toBe(expected)
      // Without a *, only the very id.
      expect(isAnswerableBy([`k:${head}`], { id })).toBe(head === middle)
    },
    { arbitrary: { runs: 500 } }
  )
})

describe("answerableBy on the live seam", () => {
  it.effect("a refused answer leaves the ask pending; a later allowed one wins, with its receipt", () => {
    const provider = turnsOf([answerAs(stranger), answerAs(ana)])
    return Effect.gen(function*() {
      const { answer, receipt } = yield* UserInteraction.askWithReceipt(onlyAna)
      expect(answer).toEqual(singleAnswer)
      expect(receipt.by).toEqual(ana)
      expect(receipt.surface).toBe("terminal")
      expect(provider.asked()).toBe(2)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider.layer)))
  })

  it.effect("a refused cancel or decline leaves it pending too; an answer from nobody known is refused", () => {
    const provider = turnsOf([
      () => Effect.fail(new AskCancelled()),
      answerAs(undefined),
      () => Effect.fail(new AskCancelled()),
      answerAs(ana)
    ])
    return Effect.gen(function*() {
      expect(yield* UserInteraction.ask(onlyAna)).toEqual(singleAnswer)
      expect(provider.asked()).toBe(4)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider.layer)))
  })

  it.effect("an allowed cancel ends the ask, and Settled names who cancelled", () =>
    Effect.gen(function*() {
      const events = yield* UserInteraction.subscribe
      const error = yield* Effect.flip(UserInteraction.ask(onlyAna))
      expect(error.code).toBe("ASK_CANCELLED")
      const seen = yield* events.pipe(Stream.take(2), Stream.runCollect)
      expect(seen[1]).toMatchObject({ _tag: "Settled", outcome: "ASK_CANCELLED", by: ana })
    }).pipe(Effect.scoped, Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.fail(new AskCancelled()), { by: ana })))))

  it.effect("a surface that only ever answers as a stranger never settles it: the timeout does", () => {
    const provider = turnsOf([answerAs(stranger)])
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(UserInteraction.ask(onlyAna))
      yield* TestClock.adjust("1 minute")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.code).toBe("ASK_TIMEOUT")
      expect(provider.asked()).toBeGreaterThan(1)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider.layer, { timeout: "1 minute" })))
  })

  it.live("a fan-out: a stranger's answer on one surface wins nothing; Ana's on the other does", () =>
    Effect.gen(function*() {
      const { receipt } = yield* UserInteraction.askWithReceipt(onlyAna)
      expect(receipt).toMatchObject({ surface: "web", by: ana })
    }).pipe(Effect.provide(UserInteraction.layerWith(FanoutProvider.layer(
      Layer.succeed(UserInteractionProvider, { name: "terminal", ask: () => Effect.succeed({ ...singleAnswer, by: stranger }) }),
      Layer.succeed(UserInteractionProvider, { name: "web", ask: () => Effect.as(Effect.sleep("10 millis"), { ...singleAnswer, by: ana }) })
    )))))

  it.effect("a defaulted answer (the recommended options, taken when time ran out) is nobody's: no answerer is asked of it", () => {
    const recommended: AskUserQuestionRequest = {
      questions: [{ id: "go", question: "Deploy now?", options: [{ label: "yes", recommended: true }, { label: "no" }] }],
      answerableBy: ["os:ana@*"]
    }
    const provider = turnsOf([() => Effect.succeed({ answers: [{ id: "go", selected: ["yes"] }], defaulted: true as const })])
    return Effect.gen(function*() {
      const { answer, receipt } = yield* UserInteraction.askWithReceipt(recommended)
      expect(answer).toEqual({ answers: [{ id: "go", selected: ["yes"] }], defaulted: true })
      expect(receipt.defaulted).toBe(true)
      expect(receipt.by).toBeUndefined()
      expect(provider.asked()).toBe(1)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider.layer)))
  })

  it.effect("the seam's own timeout with onTimeout recommended answers with a receipt that has no by", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(UserInteraction.askWithReceipt({
        questions: [{ id: "go", question: "Deploy now?", options: [{ label: "yes", recommended: true }, { label: "no" }] }],
        answerableBy: ["os:ana@*"],
        timeout: "1m",
        onTimeout: "recommended"
      }))
      yield* TestClock.adjust("1 minute")
      const { answer, receipt } = yield* Fiber.join(fiber)
      expect(answer.defaulted).toBe(true)
      expect(receipt).toEqual({ at: new Date(60_000), millis: 60_000, defaulted: true })
    }).pipe(Effect.provide(UserInteraction.layerWith(turnsOf([() => Effect.never]).layer))))

  it.effect("a provider naming who answered with no answerer id fails INVALID_ANSWER", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(UserInteraction.ask(single))
      expect(error.code).toBe("INVALID_ANSWER")
    }).pipe(Effect.provide(UserInteraction.layerWith(
      Layer.succeed(UserInteractionProvider, { ask: () => Effect.succeed({ ...singleAnswer, by: { id: "ana" } }) })
    ))))
})

describe("receipts", () => {
  it.effect("askWithReceipt: surface, by, at and millis from the clock; ask returns { answers } alone", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(UserInteraction.askWithReceipt(single))
      yield* TestClock.adjust("3 seconds")
      const { answer, receipt } = yield* Fiber.join(fiber)
      expect(answer).toEqual(singleAnswer)
      expect(Object.keys(answer)).toEqual(["answers"])
      expect(receipt).toEqual({ surface: "scripted", by: ana, at: new Date(3000), millis: 3000 })
      expect(Schema.decodeUnknownSync(AskReceipt)(Schema.encodeSync(AskReceipt)(receipt))).toEqual(receipt)
      const plain = yield* UserInteraction.ask({ ...single, id: "at once" })
      expect(Object.keys(plain)).toEqual(["answers"])
    }).pipe(Effect.provide(UserInteraction.layerWith(
      ScriptedProvider.layer((request) => Effect.as(Effect.sleep(request.id === undefined ? "3 seconds" : 0), singleAnswer), { by: ana })
    ))))

  it.effect("ScriptedProvider answers as scripted:test unless told otherwise, and keeps an answer's own by", () =>
    Effect.gen(function*() {
      const first = yield* UserInteraction.askWithReceipt(single)
      expect(first.receipt.by).toEqual({ id: "scripted:test" })
      const second = yield* UserInteraction.askWithReceipt({ ...single, id: "own" })
      expect(second.receipt.by).toEqual(ana)
    }).pipe(Effect.provide(UserInteraction.layerWith(
      ScriptedProvider.layer((request) => Effect.succeed(request.id === "own" ? { ...singleAnswer, by: ana } : singleAnswer))
    ))))

  it.effect("a hand-built seam without askWithReceipt still gives a receipt with when and how long", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(UserInteraction.askWithReceipt(single))
      yield* TestClock.adjust("2 seconds")
      const { receipt } = yield* Fiber.join(fiber)
      expect(receipt).toEqual({ at: new Date(2000), millis: 2000 })
    }).pipe(Effect.provideService(UserInteraction, {
      ask: () => Effect.as(Effect.sleep("2 seconds"), singleAnswer),
      register: () => Effect.void
    })))
})

describe("the model-facing tool and who answered", () => {
  const callTool = (handlers: ReturnType<typeof askUserQuestionHandlers>, provider: Layer.Layer<UserInteractionProvider | ScriptedProvider>) =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      const stream = yield* toolkit.handle("ask_user_question", { questions: single.questions })
      const results = yield* Stream.runCollect(stream)
      const last = results.at(-1)
      assert(last !== undefined && !last.isFailure)
      return { encoded: last.encodedResult, requests: yield* ScriptedProvider.requests }
    }).pipe(Effect.provide(handlers.pipe(Layer.provideMerge(UserInteraction.layerWith(provider)))))

  it.effect("answeredBy names a person known by account and the surface; a script, token or client reads as before", () =>
    Effect.gen(function*() {
      const byAna = yield* callTool(askUserQuestionHandlers(), ScriptedProvider.layer(() => Effect.succeed(singleAnswer), { by: ana }))
      expect(byAna.encoded).toEqual({ ...singleAnswer, answeredBy: "Ana Lima (scripted)" })
      const byDevice = yield* callTool(
        askUserQuestionHandlers(),
        ScriptedProvider.layer(() => Effect.succeed(singleAnswer), { by: { id: "device:3f2a" } })
      )
      expect(byDevice.encoded).toEqual({ ...singleAnswer, answeredBy: "device:3f2a (scripted)" })
      for (const id of ["scripted:test", "web:token", "mcp:claude-code", "acp:zed", "ntfy:alerts"]) {
        const other = yield* callTool(askUserQuestionHandlers(), ScriptedProvider.layer(() => Effect.succeed(singleAnswer), { by: { id } }))
        expect(other.encoded).toEqual(singleAnswer)
      }
    }))

  it.effect("the handlers built with answerableBy put it on every ask; the model cannot set it", () =>
    Effect.gen(function*() {
      const { requests } = yield* callTool(
        askUserQuestionHandlers({ answerableBy: ["os:ana@*"] }),
        ScriptedProvider.layer(() => Effect.succeed(singleAnswer), { by: ana })
      )
      expect(requests[0]?.answerableBy).toEqual(["os:ana@*"])
      expect(JSON.stringify(Tool.getJsonSchema(AskUserQuestionTool))).not.toContain("answerable")
    }))
})
