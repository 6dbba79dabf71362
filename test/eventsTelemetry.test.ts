/**
 * The span and the metrics of each ask, through Effect's own `Tracer` and
 * `Metric`: an in-memory tracer records the spans, a fresh registry the
 * metrics.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Metric, Option, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { AskCancelled, ScriptedProvider, UserInteraction } from "effect-user-interaction"
import { single, singleAnswer } from "./support/requests.js"
import { memoryTracer } from "./support/tracer.js"


const byName = (spans: ReadonlyArray<Tracer.NativeSpan>, name: string) => spans.filter((span) => span.name === name)

/** Answers "go" after 3 seconds, cancels "stop" at once. */
const provider = ScriptedProvider.layer((request) =>
  request.id === "stop" ? Effect.fail(new AskCancelled()) : Effect.as(Effect.sleep("3 seconds"), singleAnswer)
)

/** Runs a test's asks on a seam whose provider answers at once, spans going to `tracer`. */
const answeredUnder = (tracer: Tracer.Tracer) => <A, E>(self: Effect.Effect<A, E, UserInteraction>) =>
  self.pipe(
    Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(singleAnswer)))),
    Effect.withTracer(tracer)
  )

describe("span per ask", () => {
  it.effect("an answered ask: one span under the caller's, with its attributes, ended with the answer", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        UserInteraction.ask({ ...single, id: "go", agent: { id: "agent-7" } }).pipe(Effect.withSpan("tool call")),
        { startImmediately: true }
      )
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(fiber)
      const [span] = byName(spans, "UserInteraction.ask")
      const [parent] = byName(spans, "tool call")
      expect(span).toBeDefined()
      expect(Object.fromEntries(span!.attributes)).toEqual({
        "ask.id": "go",
        "ask.agent.id": "agent-7",
        "ask.questions": 1,
        "ask.outcome": "answered",
        "ask.surface": "scripted",
        "ask.answerer": "scripted:test"
      })
      expect(Option.getOrUndefined(span!.parent)).toBe(parent)
      expect(span!.status._tag).toBe("Ended")
      if (span!.status._tag !== "Ended") return
      expect(Exit.isSuccess(span!.status.exit)).toBe(true)
      // Backdated to the ask's start: the span covers the 3 seconds the human took.
      expect(span!.status.endTime - span!.status.startTime).toBe(3_000_000_000n)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider)), Effect.withTracer(tracer))
  })

  it.effect("a cancelled ask: the span ends failed, outcome ASK_CANCELLED; no span when tracing is off", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      yield* Effect.flip(UserInteraction.ask({ ...single, id: "stop" }))
      const [span] = byName(spans, "UserInteraction.ask")
      expect(span?.attributes.get("ask.outcome")).toBe("ASK_CANCELLED")
      expect(span?.attributes.get("ask.surface")).toBe("scripted")
      expect(span?.attributes.has("ask.agent.id")).toBe(false)
      expect(span?.status._tag === "Ended" && Exit.isFailure(span.status.exit)).toBe(true)

      yield* Effect.flip(UserInteraction.ask({ ...single, id: "stop" })).pipe(Effect.withTracerEnabled(false))
      expect(byName(spans, "UserInteraction.ask")).toHaveLength(1)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider)), Effect.withTracer(tracer))
  })

  it.effect("the ask's span gets the annotations, links, timing and trace level in force, as Effect's own spans do", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      const session = yield* Effect.makeSpan("session")
      yield* UserInteraction.ask({ ...single, id: "go-now" }).pipe(
        Effect.annotateSpans({ "tenant.id": "acme" }),
        Effect.linkSpans(session, { relationship: "follows" })
      )
      const [span] = byName(spans, "UserInteraction.ask")
      expect(span?.attributes.get("tenant.id")).toBe("acme")
      expect(span?.attributes.get("ask.id")).toBe("go-now")
      expect(span?.links).toEqual([{ span: session, attributes: { relationship: "follows" } }])

      // With span timing off, Effect's spans carry no times; the ask's span neither.
      yield* UserInteraction.ask({ ...single, id: "go-now" }).pipe(Effect.withTracerTiming(false))
      const untimed = byName(spans, "UserInteraction.ask")[1]
      expect(untimed?.status).toMatchObject({ _tag: "Ended", startTime: 0n, endTime: 0n })

      // Below the minimum trace level, Effect's spans go unsampled; the ask's span too.
      yield* UserInteraction.ask({ ...single, id: "go-now" }).pipe(
        Effect.provideService(Tracer.MinimumTraceLevel, "Warn")
      )
      expect(byName(spans, "UserInteraction.ask").map((span) => span.sampled)).toEqual([true, true, false])
    }).pipe(answeredUnder(tracer))
  })

  it.effect("asks from one fiber in changing contexts each take their own: parent, annotations, timing", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      const ask = UserInteraction.ask({ ...single, id: "again" })
      yield* TestClock.adjust("1 second")
      const inSpan = (name: string) => ask.pipe(Effect.withSpan(name))
      yield* inSpan("a")
      yield* inSpan("b")
      yield* ask.pipe(Effect.annotateSpans({ round: 3 }), Effect.withTracerTiming(false))
      yield* inSpan("a")
      yield* ask
      const asks = byName(spans, "UserInteraction.ask")
      const [a1, a2] = byName(spans, "a")
      const [b] = byName(spans, "b")
      const parents = asks.map((span) => Option.getOrUndefined(span.parent))
      expect(parents.map((parent, i) => parent === [a1, b, undefined, a2, undefined][i])).toEqual([true, true, true, true, true])
      expect(asks.map((span) => span.attributes.get("round"))).toEqual([undefined, undefined, 3, undefined, undefined])
      expect(asks.map((span) => span.status._tag === "Ended" && span.status.endTime > 0n)).toEqual([true, true, false, true, true])
    }).pipe(answeredUnder(tracer))
  })

  it.effect("an interrupted caller's ask: the span ends interrupted, outcome ASK_ABORTED", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(UserInteraction.ask({ ...single, id: "go" }), { startImmediately: true })
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      const [span] = byName(spans, "UserInteraction.ask")
      expect(span?.attributes.get("ask.outcome")).toBe("ASK_ABORTED")
      expect(span?.status._tag === "Ended" && Exit.hasInterrupts(span.status.exit)).toBe(true)
    }).pipe(Effect.provide(UserInteraction.layerWith(provider)), Effect.withTracer(tracer))
  })

  it.effect("an ask the seam rejects still gets a span with its outcome", () => {
    const { spans, tracer } = memoryTracer()
    return Effect.gen(function*() {
      yield* Effect.flip(UserInteraction.ask({ questions: [] }))
      const [span] = byName(spans, "UserInteraction.ask")
      expect(span?.attributes.get("ask.outcome")).toBe("EMPTY_QUESTIONS")
      expect(span?.attributes.get("ask.questions")).toBe(0)
      expect(span?.attributes.get("ask.id")).toMatch(/^ask-[0-9a-f-]+-[0-9a-z]+$/)
    }).pipe(Effect.provide(UserInteraction.layer), Effect.withTracer(tracer))
  })
})

describe("metrics", () => {
  const series = (snapshots: ReadonlyArray<Metric.Metric.Snapshot>, id: string, outcome?: string) =>
    snapshots.find((s) => s.id === id && (outcome === undefined || s.attributes?.["outcome"] === outcome))

  it.effect("counts asks by outcome, gauges the pending ones, and times the settled ones", () =>
    Effect.gen(function*() {
      const pending = yield* Effect.forkChild(UserInteraction.ask({ ...single, id: "go" }), { startImmediately: true })
      const during = yield* Metric.snapshot
      expect(series(during, "user_interaction_pending")?.state).toMatchObject({ value: 1 })

      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(pending)
      yield* Effect.flip(UserInteraction.ask({ ...single, id: "stop" }))
      yield* Effect.flip(UserInteraction.ask({ ...single, id: "stop" }))
      yield* Effect.flip(UserInteraction.ask({ questions: [] }))

      // An interrupted caller's ask is counted and leaves the gauge too.
      const interrupted = yield* Effect.forkChild(UserInteraction.ask({ ...single, id: "go" }), { startImmediately: true })
      yield* Fiber.interrupt(interrupted)

      const after = yield* Metric.snapshot
      expect(series(after, "user_interaction_asks", "ASK_ABORTED")?.state).toMatchObject({ count: 1 })
      expect(series(after, "user_interaction_asks", "answered")?.state).toMatchObject({ count: 1 })
      expect(series(after, "user_interaction_asks", "ASK_CANCELLED")?.state).toMatchObject({ count: 2 })
      expect(series(after, "user_interaction_asks", "EMPTY_QUESTIONS")?.state).toMatchObject({ count: 1 })
      expect(series(after, "user_interaction_pending")?.state).toMatchObject({ value: 0 })
      // Only asks that reached the provider are timed: 3000 ms, 0 ms, 0 ms, 0 ms.
      expect(series(after, "user_interaction_answer_millis")?.state).toMatchObject({ count: 4, sum: 3000, min: 0, max: 3000 })
    }).pipe(
      Effect.provide(UserInteraction.layerWith(provider)),
      Effect.provideService(Metric.MetricRegistry, new Map())
    ))
})
