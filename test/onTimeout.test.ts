/**
 * SPEC "Vocabulary, second edition": a request's own `timeout` (the smaller
 * of it and the seam's applies) and `onTimeout`. With `"recommended"` the
 * time running out answers each question that has a recommended option with
 * it, skips the others and marks the answer `defaulted: true`, which the
 * model reads with a note; with `"fail"` (the default) the ask fails
 * ASK_TIMEOUT saying nobody answered and nothing was agreed to. A durable
 * ask's expiry follows the same rule.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Exit, Fiber, Layer, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import {
  type AskUserQuestionAnswer,
  AskUserQuestionHandlers,
  type AskUserQuestionRequest,
  AskUserQuestionToolkit,
  checkAnswer,
  interruptionReason,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { DurableInbox, DurableProvider, DurableStore } from "effect-user-interaction/durable"
import { inProcess as mcpInProcess, waitFor } from "./support/mcpClient.js"
import { memoryTracer } from "./support/tracer.js"

const request: AskUserQuestionRequest = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres (Recommended)" }] },
    {
      id: "features",
      question: "Which features?",
      options: [{ label: "auth", recommended: true }, { label: "billing" }, { label: "search", recommended: true }],
      multiSelect: true
    },
    { id: "name", question: "Project name?" },
    { id: "token", question: "Deploy token?", secret: true },
    { id: "region", question: "Region?", options: [{ label: "eu" }, { label: "us" }] }
  ]
}

const defaults: AskUserQuestionAnswer = {
  answers: [
    { id: "db", selected: ["Postgres (Recommended)"] },
    { id: "features", selected: ["auth", "search"] },
    { id: "name", selected: [] },
    { id: "token", selected: [] },
    { id: "region", selected: [] }
  ],
  defaulted: true
}

/** A provider that never answers, and records why its prompt came down. */
const silent = () => {
  const reasons: Array<string | undefined> = []
  const layer = Layer.succeed(UserInteractionProvider, {
    name: "silent",
    ask: () => Effect.never.pipe(Effect.onExit((exit) => Effect.sync(() => {
      if (Exit.isFailure(exit)) reasons.push(interruptionReason(exit.cause))
    })))
  })
  return { layer, reasons }
}

/** Forks `effect`, moves the test clock by `by`, and returns how the fork ended. */
const after = <A, E, R>(effect: Effect.Effect<A, E, R>, by: Duration.Input) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect, { startImmediately: true })
    yield* TestClock.adjust(by)
    return yield* Fiber.await(fiber)
  })

describe("a request's own timeout", () => {
  it.effect("applies when it is smaller than the seam's, and takes the prompt down with the reason timeout", () => {
    const { layer, reasons } = silent()
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(UserInteraction.ask({ ...request, timeout: "30s" }), { startImmediately: true })
      yield* TestClock.adjust("29 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      expect(exit).toMatchObject({ _tag: "Failure" })
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      expect(error).toMatchObject({ error: { code: "ASK_TIMEOUT" } })
      expect(reasons).toEqual(["timeout"])
    }).pipe(Effect.provide(UserInteraction.layerWith(layer, { timeout: "1 hour" })))
  })

  it.effect("the seam's applies when it is the smaller", () =>
    Effect.gen(function*() {
      const early = yield* after(UserInteraction.ask({ ...request, timeout: "1h" }), "10 seconds")
      expect(Exit.isFailure(early) && early.cause.reasons[0]).toMatchObject({ error: { code: "ASK_TIMEOUT" } })
    }).pipe(Effect.provide(UserInteraction.layerWith(silent().layer, { timeout: "10 seconds" }))))

  it.effect("applies on a seam without a timeout", () =>
    Effect.gen(function*() {
      const exit = yield* after(UserInteraction.ask({ ...request, timeout: "5m" }), "5 minutes")
      expect(Exit.isFailure(exit) && exit.cause.reasons[0]).toMatchObject({ error: { code: "ASK_TIMEOUT" } })
    }).pipe(Effect.provide(UserInteraction.layerWith(silent().layer))))

  it.effect("an answer in time is the human's: not defaulted", () =>
    Effect.gen(function*() {
      const answer = yield* UserInteraction.ask({ ...request, timeout: "5m", onTimeout: "recommended" })
      expect(answer.defaulted).toBeUndefined()
      expect(answer.answers[0]).toEqual({ id: "db", selected: ["SQLite"] })
    }).pipe(Effect.provide(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, {
      ask: (r) => Effect.succeed({ answers: r.questions.map((q) => q.id === "db" ? { id: "db", selected: ["SQLite"] } : { id: q.id, selected: [] }) })
    })))))
})

describe("onTimeout", () => {
  it.effect("\"fail\", and its absence, fail ASK_TIMEOUT saying nobody answered and nothing was agreed to", () =>
    Effect.gen(function*() {
      for (const onTimeout of ["fail", undefined] as const) {
        const exit = yield* after(UserInteraction.ask({ ...request, timeout: "2m", ...(onTimeout ? { onTimeout } : {}) }), "2 minutes")
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        expect(error).toMatchObject({
          error: { code: "ASK_TIMEOUT", message: "No answer arrived within 2m: nobody answered, so nothing was agreed to." }
        })
      }
    }).pipe(Effect.provide(UserInteraction.layerWith(silent().layer))))

  it.effect("\"recommended\": the recommended options (every one of a multi-select), the rest skipped, defaulted: true", () => {
    const { layer, reasons } = silent()
    return Effect.gen(function*() {
      const exit = yield* after(UserInteraction.ask({ ...request, timeout: "1m", onTimeout: "recommended" }), "1 minute")
      expect(exit).toEqual(Exit.succeed(defaults))
      expect(reasons).toEqual(["timeout"])
      // By the seam's own timeout too.
      const bySeam = yield* after(UserInteraction.ask({ ...request, onTimeout: "recommended" }), "1 hour")
      expect(bySeam).toEqual(Exit.succeed(defaults))
    }).pipe(Effect.provide(UserInteraction.layerWith(layer, { timeout: "1 hour" })))
  })

  it.effect("\"recommended\" without any recommended option skips every question, still defaulted", () =>
    Effect.gen(function*() {
      const exit = yield* after(
        UserInteraction.ask({ questions: [{ id: "go", question: "Go?", options: [{ label: "yes" }, { label: "no" }] }], timeout: "1s", onTimeout: "recommended" }),
        "1 second"
      )
      expect(exit).toEqual(Exit.succeed({ answers: [{ id: "go", selected: [] }], defaulted: true }))
    }).pipe(Effect.provide(UserInteraction.layerWith(silent().layer))))

  it.effect("an aborted signal wins over the defaults: ASK_ABORTED", () =>
    Effect.gen(function*() {
      const controller = new AbortController()
      const fiber = yield* Effect.forkChild(
        UserInteraction.ask({ ...request, timeout: "1m", onTimeout: "recommended", signal: controller.signal }),
        { startImmediately: true }
      )
      controller.abort()
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && exit.cause.reasons[0]).toMatchObject({ error: { code: "ASK_ABORTED" } })
    }).pipe(Effect.provide(UserInteraction.layerWith(silent().layer))))

  it.effect("the span of a defaulted ask says so; an answered one does not", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      yield* after(UserInteraction.ask({ ...request, timeout: "1s", onTimeout: "recommended" }), "1 second")
      const [span] = spans.filter((s) => s.name === "UserInteraction.ask")
      expect(span?.attributes.get("ask.outcome")).toBe("answered")
      expect(span?.attributes.get("ask.defaulted")).toBe(true)
    }).pipe(Effect.provide(UserInteraction.layerWith(silent().layer)), Effect.withTracer(tracer))
  })
})

describe("a defaulted answer from a provider", () => {
  it("must be exactly the recommended options, every other question skipped", () => {
    expect(checkAnswer(request, defaults)).toEqual(Result.succeed(defaults))
    // In another order, with blank text: normalized as any answer.
    const shuffled = { answers: [...defaults.answers].reverse().map((item) => ({ ...item, custom: " " })), defaulted: true }
    expect(checkAnswer(request, shuffled)).toEqual(Result.succeed(defaults))
    const broken = [
      { ...defaults, answers: defaults.answers.map((item) => item.id === "db" ? { id: "db", selected: ["SQLite"] } : item) },
      { ...defaults, answers: defaults.answers.map((item) => item.id === "features" ? { id: "features", selected: ["auth"] } : item) },
      { ...defaults, answers: defaults.answers.map((item) => item.id === "name" ? { id: "name", selected: [], custom: "atlas" } : item) },
      { ...defaults, answers: defaults.answers.map((item) => item.id === "token" ? { id: "token", selected: [], secret: "x" } : item) }
    ]
    for (const answer of broken) {
      const checked = checkAnswer(request, answer)
      expect(Result.isFailure(checked) && checked.failure.message).toBe(
        "The answer breaks the answer rules: a defaulted answer must take the recommended options and skip every other question."
      )
    }
    expect(Result.isFailure(checkAnswer(request, { ...defaults, defaulted: false }))).toBe(true)
  })
})

describe("what the model reads", () => {
  const toolResult = (args: unknown) =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(toolkit.handle("ask_user_question", args as never), Stream.runCollect),
        { startImmediately: true }
      )
      yield* TestClock.adjust("5 minutes")
      const [result] = yield* Fiber.join(fiber)
      return result!
    }).pipe(Effect.provide(AskUserQuestionHandlers.pipe(Layer.provideMerge(UserInteraction.layerWith(silent().layer)))))

  it.effect("a defaulted answer: defaulted: true and a note that the human did not answer", () =>
    Effect.gen(function*() {
      const result = yield* toolResult({
        questions: [{ id: "go", question: "Deploy?", options: [{ label: "no", recommended: true }, { label: "yes" }] }],
        timeout: "5m",
        on_timeout: "recommended"
      })
      expect(result.isFailure).toBe(false)
      expect(result.encodedResult).toEqual({
        answers: [{ id: "go", selected: ["no"] }],
        defaulted: true,
        note: "The human did not answer in time: nothing here was chosen by them. " +
          "The recommended options were taken (a question without one is skipped)."
      })
    }))

  it.effect("ASK_TIMEOUT: nobody answered, nothing agreed to", () =>
    Effect.gen(function*() {
      const result = yield* toolResult({ questions: [{ id: "go", question: "Deploy?" }], timeout: "5m" })
      expect(result.isFailure).toBe(true)
      expect(result.encodedResult).toEqual({
        name: "UserInteractionError",
        code: "ASK_TIMEOUT",
        message: "No answer arrived within 5m: nobody answered, so nothing was agreed to."
      })
    }))
})

describe("what a model behind an MCP client reads", () => {
  // Pushed forms only: a 2026-07-28 call's time runs in the client's retries, which a human that
  // never answers never sends.
  it.live.each(["2025-11-25", "2025-06-18"] as const)("%s: the defaults, defaulted: true, and the note", (era) =>
    Effect.gen(function*() {
      const h = yield* mcpInProcess({ era })
      const outcome = yield* Effect.promise(() =>
        h.ask({
          questions: [{ id: "go", question: "Deploy?", options: [{ label: "no", recommended: true }, { label: "yes" }] }],
          timeout: "1s",
          on_timeout: "recommended"
        })
      )
      expect(outcome).toEqual({
        isError: false,
        json: { answers: [{ id: "go", selected: ["no"] }], defaulted: true, note: expect.stringContaining("did not answer") }
      })
      // The form that went unanswered was taken down.
      yield* waitFor(() => h.cancelled.length === 1)
    }))
})

describe("a durable ask's expiry", () => {
  const storeWith = (expiresIn: Duration.Input) =>
    Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer({ expiresIn })), DurableInbox.layer).pipe(
      Layer.provideMerge(DurableStore.layer("sqlite::memory:"))
    )
  const durable = (id: string, onTimeout?: "fail" | "recommended"): AskUserQuestionRequest => ({
    id,
    questions: [{ id: "q", question: "Deploy?", options: [{ label: "Yes" }, { label: "No", recommended: true }] }],
    ...(onTimeout === undefined ? {} : { onTimeout })
  })

  it.live("with onTimeout \"recommended\" gives the recommended options, defaulted; the store says expired; a rerun gets the same", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const expected = { answers: [{ id: "q", selected: ["No"] }], defaulted: true }
      expect(yield* UserInteraction.ask(durable("r1", "recommended"))).toEqual(expected)
      expect(yield* inbox.status("r1")).toMatchObject({ id: "r1", status: "expired", receipt: { defaulted: true } })
      expect((yield* inbox.status("r1")).receipt?.by).toBeUndefined()
      // What the expiry means was fixed when the ask was created: a rerun naming "fail" still gets the defaults.
      expect(yield* UserInteraction.ask(durable("r1", "fail"))).toEqual(expected)
    }).pipe(Effect.provide(storeWith("1 second"))))

  it.live("without it, or with \"fail\", is ASK_TIMEOUT saying nobody answered", () =>
    Effect.gen(function*() {
      for (const [id, onTimeout] of [["f1", undefined], ["f2", "fail"]] as const) {
        const error = yield* Effect.flip(UserInteraction.ask(durable(id, onTimeout)))
        expect(error.code).toBe("ASK_TIMEOUT")
        expect(error.message).toBe(`The ask "${id}" expired before an answer: nobody answered, so nothing was agreed to.`)
      }
    }).pipe(Effect.provide(storeWith("1 second"))))
})
