/**
 * Every ask settles, whatever the request and whatever the provider does:
 * with an answer that satisfies the rules, or with exactly one of the
 * contract's failures — the one the situation calls for.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Result, Schema } from "effect"
import {
  AskCancelled,
  AskDeclined,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  type AskUserQuestionRequest as Request,
  checkAnswer,
  errorCodes,
  HarnessError,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"

/** Requests as JSON can carry them (no signal). */
const RequestData = Schema.Struct({
  questions: AskUserQuestionRequest.fields.questions,
  agent: AskUserQuestionRequest.fields.agent
})

const corruptions = ["none", "none", "none", "empty", "repeatId", "repeatLabel", "blankQuestion", "notArray"] as const
const behaviours = ["valid", "garbled", "randomAnswer", "cancel", "decline", "defect", "unknownFailure", "hangThenAbort"] as const

/** Breaks a request the way a sloppy model or caller would. */
const corrupt = (request: typeof RequestData.Type, how: (typeof corruptions)[number]): unknown => {
  const [first] = request.questions
  switch (how) {
    case "none":
      return request
    case "empty":
      return { ...request, questions: [] }
    case "repeatId":
      return first === undefined ? request : { ...request, questions: [...request.questions, { ...first, question: "again?" }] }
    case "repeatLabel": {
      const label = first?.options?.[0]?.label
      if (first === undefined || label === undefined) return request
      return { ...request, questions: [{ ...first, options: [...first.options!, { label }] }, ...request.questions.slice(1)] }
    }
    case "blankQuestion":
      return first === undefined ? request : { ...request, questions: [{ ...first, question: "" }] }
    case "notArray":
      return { ...request, questions: "all of them" }
  }
}

const repeats = (xs: ReadonlyArray<string>) => new Set(xs).size !== xs.length

/** A rule-abiding answer to `request`, its choices drawn from `picks`. */
const validAnswer = (request: Request, picks: ReadonlyArray<number>) => ({
  answers: request.questions.map((question, i) => {
    const pick = picks[i % Math.max(picks.length, 1)] ?? 0
    const labels = question.options?.map((o) => o.label) ?? []
    if (labels.length === 0 || pick % 4 === 0) return { id: question.id, selected: [], custom: `typed ${pick}` }
    if (pick % 4 === 1) return { id: question.id, selected: [] }
    const count = question.multiSelect === true ? 1 + (pick % labels.length) : 1
    return { id: question.id, selected: labels.slice(0, count) }
  })
})

const expectedFailure: Record<(typeof behaviours)[number], ReadonlyArray<string>> = {
  valid: [],
  garbled: ["INVALID_ANSWER"],
  randomAnswer: ["INVALID_ANSWER"],
  cancel: ["ASK_CANCELLED"],
  decline: ["ASK_DECLINED"],
  defect: ["PROVIDER_FAILED"],
  unknownFailure: ["PROVIDER_FAILED"],
  hangThenAbort: ["ASK_ABORTED"]
}

describe("every ask settles", () => {
  it.effect.prop(
    "requests × provider behaviours",
    {
      request: RequestData,
      corruption: Schema.Literals(corruptions),
      behaviour: Schema.Literals(behaviours),
      picks: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))),
      randomAnswer: AskUserQuestionAnswer
    },
    ({ behaviour, corruption, picks, randomAnswer, request }) =>
      Effect.gen(function*() {
        const controller = new AbortController()
        let finalized = 0
        const provider = UserInteractionProvider.of({
          ask: (req) => {
            switch (behaviour) {
              case "valid":
                return Effect.succeed(validAnswer(req, picks))
              case "garbled":
                return Effect.succeed({ answers: "yes" } as never)
              case "randomAnswer":
                return Effect.succeed(randomAnswer)
              case "cancel":
                return Effect.fail(new AskCancelled())
              case "decline":
                return Effect.fail(new AskDeclined())
              case "defect":
                return Effect.die(new Error("provider bug"))
              case "unknownFailure":
                return Effect.fail({ weird: true } as never)
              case "hangThenAbort":
                return Effect.sync(() => queueMicrotask(() => controller.abort())).pipe(
                  Effect.andThen(Effect.never),
                  Effect.onInterrupt(() => Effect.sync(() => finalized++))
                )
            }
          }
        })
        const input = corrupt(request, corruption)
        const fiber = yield* Effect.forkChild(
          UserInteraction.ask({ ...(input as Request), signal: controller.signal }).pipe(
            Effect.provide(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, provider)))
          )
        )
        const exit = yield* Fiber.await(fiber)

        // A corruption that found nothing to break hands the request back untouched;
        // generated requests may still repeat ids or labels by chance.
        const validRequest = input === request && request.questions.length > 0 &&
          request.questions.every((q) => q.question.trim() !== "") &&
          !repeats(request.questions.map((q) => q.id)) &&
          request.questions.every((q) => !repeats((q.options ?? []).map((o) => o.label)))
        if (Exit.isSuccess(exit)) {
          expect(validRequest).toBe(true)
          // The answer satisfies the rules of the request, as returned.
          expect(checkAnswer(request, exit.value)).toEqual(Result.succeed(exit.value))
          expect(["valid", "randomAnswer"]).toContain(behaviour)
          return
        }
        const errors = exit.cause.reasons.filter(Cause.isFailReason).map((r) => r.error)
        expect(exit.cause.reasons).toHaveLength(1)
        expect(errors).toHaveLength(1)
        const error = errors[0]!
        expect(error).toBeInstanceOf(HarnessError)
        expect(errorCodes).toContain(error.code)
        if (!validRequest) {
          expect(["EMPTY_QUESTIONS", "INVALID_REQUEST"]).toContain(error.code)
        } else {
          expect(expectedFailure[behaviour]).toContain(error.code)
          if (behaviour === "hangThenAbort") expect(finalized).toBe(1)
        }
      }),
    { timeout: 120_000, arbitrary: { runs: 3000 } }
  )
})
