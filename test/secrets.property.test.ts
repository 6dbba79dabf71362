/**
 * Random requests using the second edition's fields (recommended, preview,
 * secret, timeout, onTimeout) × a scripted provider that answers (a secret
 * as a `Redacted`, as a plain string from JSON, or as custom text), skips,
 * or lets the time run out; asked through the seam or through the
 * model-facing tool. Every run: the answer keeps the answer rules (a
 * defaulted one only when the time ran out with onTimeout "recommended"),
 * and no secret value appears in the events, the spans, the logs (the
 * answer itself logged, as an app would) or what the model reads.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, type Duration, Effect, Exit, Fiber, Layer, Logger, Redacted, References, Result, Schema, Stream } from "effect"
import { type Tool } from "effect/ai"
import { TestClock } from "effect/testing"
import {
  type AskEvent,
  type AskUserQuestionAnswer,
  type AskUserQuestionAnswerItem,
  AskUserQuestionHandlers,
  type AskUserQuestionRequest,
  AskUserQuestionToolkit,
  checkAnswer,
  ScriptedProvider,
  UserInteraction
} from "effect-user-interaction"
import { recommendedAnswer } from "../src/internal/onTimeout.js"
import { requests } from "./support/arbitraries.js"
import { memoryTracer } from "./support/tracer.js"

const behaviours = ["redacted", "plain", "custom", "skip", "late"] as const
type Behaviour = (typeof behaviours)[number]
/** Where a late ask's deadline comes from: its own timeout, the seam's, or both (the smaller applies). */
const deadlines = ["own", "seam", "ownSmaller", "seamSmaller"] as const
type Deadline = (typeof deadlines)[number]

let run = 0

/** What an ask gave: the caller's answer and, through the tool, what the model read. */
interface Asked {
  readonly answer: AskUserQuestionAnswer
  readonly modelRead: unknown
}

/** The secret typed for question `index` in this run: nothing else generated contains it. */
const secretFor = (index: number) => `§s3cr3t§${run}§${index}§`

/** The provider's answer to `request`, secrets given the way `behaviour` says. */
const answerTo = (request: AskUserQuestionRequest, behaviour: Behaviour, picks: ReadonlyArray<number>): unknown => ({
  answers: request.questions.map((question, i) => {
    const pick = picks[i % Math.max(1, picks.length)] ?? 0
    if (behaviour === "skip") return { id: question.id, selected: [] }
    if (question.secret === true) {
      const value = secretFor(i)
      return behaviour === "redacted"
        ? { id: question.id, selected: [], secret: Redacted.make(value) }
        : behaviour === "plain"
        ? { id: question.id, selected: [], secret: value }
        : { id: question.id, selected: [], custom: value }
    }
    const labels = question.options?.map((o) => o.label) ?? []
    if (labels.length === 0 || pick % 3 === 0) return { id: question.id, selected: [], custom: `typed ${pick}` }
    return { id: question.id, selected: question.multiSelect === true ? labels.slice(0, 1 + (pick % labels.length)) : [labels[pick % labels.length]!] }
  })
})

/** The request as a model writes it in the tool's arguments. */
const toolArgs = (request: AskUserQuestionRequest) => ({
  questions: request.questions.map(({ multiSelect, ...question }) =>
    multiSelect === undefined ? question : { ...question, multi_select: multiSelect }
  ),
  ...(request.timeout === undefined ? {} : { timeout: request.timeout }),
  ...(request.onTimeout === undefined ? {} : { on_timeout: request.onTimeout })
})

const timeouts = (deadline: Deadline): { readonly own?: string; readonly seam?: Duration.Input } => {
  switch (deadline) {
    case "own":
      return { own: "1s" }
    case "seam":
      return { seam: "1 second" }
    case "ownSmaller":
      return { own: "1s", seam: "1 hour" }
    case "seamSmaller":
      return { own: "1h", seam: "1 second" }
  }
}

const Case = {
  request: requests,
  onTimeout: Schema.Literals(["absent", "fail", "recommended"]),
  behaviour: Schema.Literals(behaviours),
  deadline: Schema.Literals(deadlines),
  via: Schema.Literals(["seam", "tool"]),
  picks: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 })))
}

describe("second-edition requests × provider behaviours", () => {
  it.effect.prop("the answer rules hold and a secret never leaves the caller's answer", Case, (drawn) => {
    run++
    const { behaviour, deadline, picks, via } = drawn
    const late = behaviour === "late"
    const { own, seam } = late ? timeouts(deadline) : {}
    const request: AskUserQuestionRequest = {
      ...drawn.request,
      ...(own === undefined ? {} : { timeout: own }),
      ...(drawn.onTimeout === "absent" ? {} : { onTimeout: drawn.onTimeout })
    }
    const secrets = request.questions.flatMap((q, i) => q.secret === true ? [secretFor(i)] : [])

    const { spans, tracer } = memoryTracer()
    const logs: Array<string> = []
    const collector = Logger.make((options) => {
      logs.push(String(Logger.formatLogFmt.log(options)), String(Logger.formatSimple.log(options)))
    })
    const provider = ScriptedProvider.layer((seen) =>
      late ? Effect.never : Effect.succeed(answerTo(seen, behaviour, picks) as AskUserQuestionAnswer)
    )
    const seamLayer = UserInteraction.layerWith(provider, seam === undefined ? {} : { timeout: seam })

    return Effect.gen(function*() {
      const events = yield* Effect.forkChild(Stream.runCollect(Stream.take(yield* UserInteraction.subscribe, 2)))
      const asking: Effect.Effect<Asked, unknown, UserInteraction | Tool.Handler<"ask_user_question">> = via === "seam"
        ? UserInteraction.ask(request).pipe(
          Effect.tap((answer) => Effect.logInfo("answered", answer)),
          Effect.map((answer) => ({ answer, modelRead: undefined }))
        )
        : Effect.gen(function*() {
          const toolkit = yield* AskUserQuestionToolkit
          const [result] = yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", toolArgs(request) as never))
          if (result!.isFailure) return yield* Effect.fail(result!.result as { readonly code: string })
          yield* Effect.logDebug("tool result", result!.result, result!.encodedResult)
          return { answer: result!.result as AskUserQuestionAnswer, modelRead: result!.encodedResult }
        })
      const fiber = yield* Effect.forkChild(Effect.exit(asking), { startImmediately: true })
      if (late) yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.join(fiber)
      const seenEvents: ReadonlyArray<AskEvent> = yield* Fiber.join(events)

      // The outcome the behaviour calls for.
      if (late && request.onTimeout !== "recommended") {
        expect(Exit.isFailure(exit) && exit.cause.reasons[0]).toMatchObject({ error: { code: "ASK_TIMEOUT" } })
      } else {
        expect(Exit.isSuccess(exit)).toBe(true)
        if (Exit.isFailure(exit)) return
        const { answer, modelRead } = exit.value
        // The answer keeps the rules, as returned.
        expect(checkAnswer(request, answer)).toEqual(Result.succeed(answer))
        if (late) {
          expect(answer).toEqual(recommendedAnswer(request))
        } else {
          expect(answer.defaulted).toBeUndefined()
        }
        request.questions.forEach((question, i) => {
          const item: AskUserQuestionAnswerItem = answer.answers[i]!
          expect(item.id).toBe(question.id)
          if (question.secret !== true) return expect(item.secret).toBeUndefined()
          expect(item.custom).toBeUndefined()
          expect(item.selected).toEqual([])
          if (late || behaviour === "skip") expect(item.secret).toBeUndefined()
          else expect(Redacted.value(item.secret!)).toBe(secretFor(i))
        })
        if (via === "tool") {
          const read = modelRead as { readonly answers: ReadonlyArray<Record<string, unknown>>; readonly defaulted?: true; readonly note?: string }
          request.questions.forEach((question, i) => {
            if (question.secret === true && answer.answers[i]!.secret !== undefined) {
              expect(read.answers[i]).toEqual({ id: question.id, secret: "received" })
            }
          })
          expect(read.defaulted).toBe(answer.defaulted)
          expect(read.note !== undefined).toBe(answer.defaulted === true)
        }
        // The harness's own copy is the one place the value is: logging it shows <redacted>.
        expect(logs.length).toBeGreaterThan(0)
      }

      // Nowhere but the caller's answer.
      expect(seenEvents.map((event) => event._tag)).toEqual(["Asked", "Settled"])
      const elsewhere = [
        JSON.stringify(seenEvents),
        JSON.stringify(spans.map((span) => [span.name, [...span.attributes], span.events])),
        ...logs,
        Exit.isSuccess(exit) ? JSON.stringify(exit.value.modelRead ?? null) : JSON.stringify(exit.cause.reasons)
      ]
      for (const secret of secrets) for (const text of elsewhere) expect(text).not.toContain(secret)
    }).pipe(
      Effect.provide(AskUserQuestionHandlers.pipe(Layer.provideMerge(seamLayer))),
      Effect.withTracer(tracer),
      Effect.provideService(Logger.CurrentLoggers, new Set([collector])),
      Effect.provideService(References.MinimumLogLevel, "All")
    )
  }, { timeout: 120_000, arbitrary: { runs: 2000 } })
})

describe("the arbitrary behind it", () => {
  it.effect("draws secret questions, recommended options and previews often enough to matter", () =>
    Effect.gen(function*() {
      const samples = yield* Arbitrary.sampleEffect(requests, { count: 200, seed: 31 })
      const questions = samples.flatMap((request) => request.questions)
      expect(questions.filter((q) => q.secret === true).length).toBeGreaterThan(10)
      expect(questions.flatMap((q) => q.options ?? []).filter((o) => o.recommended === true).length).toBeGreaterThan(10)
      expect(questions.flatMap((q) => q.options ?? []).filter((o) => o.preview !== undefined).length).toBeGreaterThan(10)
    }))
})
