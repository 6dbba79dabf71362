/**
 * `UserInteraction.events`: `Asked` when an ask reaches a provider, `Settled`
 * when it ends, with outcome, surface and millis; and a subscriber that never
 * reads holds no ask up.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import {
  AskCancelled,
  type AskEvent,
  type AskUserQuestionRequest,
  FanoutProvider,
  ScriptedProvider,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { single, singleAnswer } from "./support/requests.js"

/** Collects the seam's events from now on, in the test's scope. */
const record = Effect.gen(function*() {
  const seen: Array<AskEvent> = []
  yield* Effect.forkScoped(Stream.runForEach(UserInteraction.events, (event) => Effect.sync(() => void seen.push(event))), {
    startImmediately: true
  })
  return seen
})

/** Lets forked fibers (the recorder, the provider) run. */
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })

/** The events minus their timestamps (`at`), which are checked separately. */
const shapes = (events: ReadonlyArray<AskEvent>) => events.map(({ at: _, ...rest }) => rest)

const named = (name: string, ask: UserInteractionProvider["Service"]["ask"]) =>
  Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({ ask, name }))

const request = (id: string): AskUserQuestionRequest => ({ ...single, id, agent: { id: "agent-7", name: "Planner" } })
const wire = (id: string) => ({ questions: single.questions, agent: { id: "agent-7", name: "Planner" }, id })

describe("UserInteraction.events", () => {
  it.effect("an answered ask: Asked, then Settled with surface and millis from the clock", () =>
    Effect.gen(function*() {
      const seen = yield* record
      const fiber = yield* Effect.forkChild(UserInteraction.ask(request("ask-1")))
      yield* settle
      yield* TestClock.adjust("4 seconds")
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      yield* settle
      expect(shapes(seen)).toEqual([
        { _tag: "Asked", id: "ask-1", request: wire("ask-1") },
        { _tag: "Settled", id: "ask-1", outcome: "answered", surface: "scripted", by: { id: "scripted:test" }, millis: 4000 }
      ])
      const [asked, settled] = seen
      assert(asked?._tag === "Asked" && settled?._tag === "Settled")
      expect(settled.at.getTime() - asked.at.getTime()).toBe(4000)
      // The request as the event carries it has no signal.
      expect("signal" in asked.request).toBe(false)
    }).pipe(Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.as(Effect.sleep("4 seconds"), singleAnswer))))))

  it.effect("cancelled, timed out, aborted and provider-closed asks, in order", () =>
    Effect.gen(function*() {
      const seam = yield* Layer.build(UserInteraction.layerConfig({ timeout: "10 seconds" }))
      const ui = Context.get(seam, UserInteraction)
      const seen = yield* Effect.provideContext(record, seam)
      const providerScope = yield* Scope.make()
      yield* ui.register(UserInteractionProvider.of({
        name: "scripted",
        ask: (r) =>
          r.id === "cancel"
            ? Effect.fail(new AskCancelled())
            : Effect.never
      })).pipe(Scope.provide(providerScope))

      expect((yield* Effect.flip(ui.ask(request("cancel"))))._tag).toBe("AskCancelled")

      const timedOut = yield* Effect.forkChild(ui.ask(request("timeout")))
      yield* settle
      yield* TestClock.adjust("10 seconds")
      expect(yield* Effect.flip(Fiber.join(timedOut))).toMatchObject({ code: "ASK_TIMEOUT" })

      const controller = new AbortController()
      const aborted = yield* Effect.forkChild(ui.ask({ ...request("abort"), signal: controller.signal }))
      yield* settle
      yield* TestClock.adjust("2 seconds")
      controller.abort()
      expect(yield* Effect.flip(Fiber.join(aborted))).toMatchObject({ code: "ASK_ABORTED" })

      const closed = yield* Effect.forkChild(ui.ask(request("close")))
      yield* settle
      yield* TestClock.adjust("3 seconds")
      yield* Scope.close(providerScope, Exit.void)
      expect(yield* Effect.flip(Fiber.join(closed))).toMatchObject({ code: "PROVIDER_CLOSED" })
      yield* settle

      expect(shapes(seen)).toEqual([
        { _tag: "Asked", id: "cancel", request: wire("cancel") },
        { _tag: "Settled", id: "cancel", outcome: "ASK_CANCELLED", surface: "scripted", millis: 0 },
        { _tag: "Asked", id: "timeout", request: wire("timeout") },
        // The seam ended these three: no surface settled them.
        { _tag: "Settled", id: "timeout", outcome: "ASK_TIMEOUT", millis: 10_000 },
        { _tag: "Asked", id: "abort", request: wire("abort") },
        { _tag: "Settled", id: "abort", outcome: "ASK_ABORTED", millis: 2000 },
        { _tag: "Asked", id: "close", request: wire("close") },
        { _tag: "Settled", id: "close", outcome: "PROVIDER_CLOSED", millis: 3000 }
      ])
    }))

  it.effect("an interrupted caller's ask settles ASK_ABORTED: its fiber interrupted, or a timeout of its own", () =>
    Effect.gen(function*() {
      const seen = yield* record
      const interrupted = yield* Effect.forkChild(UserInteraction.ask(request("interrupted")), { startImmediately: true })
      yield* settle
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.interrupt(interrupted)
      const timedOut = yield* Effect.forkChild(UserInteraction.ask(request("caller-timeout")).pipe(Effect.timeout("5 seconds")), {
        startImmediately: true
      })
      yield* settle
      yield* TestClock.adjust("5 seconds")
      expect((yield* Effect.flip(Fiber.join(timedOut)))._tag).toBe("TimeoutError")
      yield* settle
      expect(shapes(seen)).toEqual([
        { _tag: "Asked", id: "interrupted", request: wire("interrupted") },
        { _tag: "Settled", id: "interrupted", outcome: "ASK_ABORTED", millis: 2000 },
        { _tag: "Asked", id: "caller-timeout", request: wire("caller-timeout") },
        { _tag: "Settled", id: "caller-timeout", outcome: "ASK_ABORTED", millis: 5000 }
      ])
    }).pipe(Effect.provide(UserInteraction.layerWith(named("scripted", () => Effect.never)))))

  it.effect("an ask without an id gets one, the same in Asked and Settled; rejected asks send nothing", () =>
    Effect.gen(function*() {
      const seen = yield* record
      yield* UserInteraction.ask(single)
      yield* UserInteraction.ask(single)
      expect((yield* Effect.flip(UserInteraction.ask({ questions: [] })))._tag).toBe("EmptyQuestions")
      yield* settle
      expect(seen.map((e) => e._tag)).toEqual(["Asked", "Settled", "Asked", "Settled"])
      const [first, , second] = seen
      expect(first?.id).toMatch(/^ask-[0-9a-f-]+-[0-9a-z]+$/)
      expect(seen[1]?.id).toBe(first?.id)
      expect(second?.id).not.toBe(first?.id)
    }).pipe(Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(singleAnswer))))))

  it.effect("a fan-out reports the member that answered as the surface", () =>
    Effect.gen(function*() {
      const seen = yield* record
      yield* UserInteraction.ask(request("fan"))
      yield* settle
      expect(seen[1]).toMatchObject({ _tag: "Settled", outcome: "answered", surface: "web" })
    }).pipe(Effect.provide(UserInteraction.layerWith(FanoutProvider.layer(
      named("terminal", () => Effect.never),
      named("web", () => Effect.succeed(singleAnswer))
    )))))

  it.effect("an unnamed provider settles without a surface", () =>
    Effect.gen(function*() {
      const seen = yield* record
      yield* UserInteraction.ask(request("anon"))
      yield* settle
      expect(seen[1]).toEqual({ _tag: "Settled", id: "anon", outcome: "answered", millis: 0, at: expect.any(Date) })
    }).pipe(Effect.provide(UserInteraction.layerWith(
      Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({ ask: () => Effect.succeed(singleAnswer) }))
    ))))

  it.live("a subscriber that never reads does not hold up 10,000 asks", () =>
    Effect.gen(function*() {
      const stuck = yield* Deferred.make<void>()
      // Takes one batch of events and then never reads again.
      const stalled = yield* Effect.forkScoped(
        Stream.runForEach(UserInteraction.events, () => Effect.andThen(Deferred.succeed(stuck, undefined), Effect.never)),
        { startImmediately: true }
      )
      const last: Array<AskEvent> = []
      yield* Effect.forkScoped(
        Stream.runForEach(UserInteraction.events, (event) => Effect.sync(() => void (last[0] = event))),
        { startImmediately: true }
      )
      for (let i = 0; i < 10_000; i++) yield* UserInteraction.ask(request(`n${i}`))
      expect(yield* Deferred.isDone(stuck)).toBe(true)
      expect(stalled.pollUnsafe()).toBeUndefined()
      // The reading subscriber gets the newest events even though the stalled one filled its buffer.
      yield* Effect.repeat(Effect.yieldNow, { until: () => last[0]?.id === "n9999" && last[0]._tag === "Settled", times: 100_000 })
      expect(last[0]).toMatchObject({ _tag: "Settled", id: "n9999", outcome: "answered" })
    }).pipe(Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(singleAnswer))))), 60_000)

  it.effect("the event stream ends when the seam closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const seam = yield* Layer.buildWithScope(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(singleAnswer))), scope)
      const reader = yield* Effect.forkChild(Stream.runCollect(UserInteraction.events).pipe(Effect.provideContext(seam)), { startImmediately: true })
      yield* UserInteraction.ask(request("last")).pipe(Effect.provideContext(seam))
      yield* settle
      yield* Scope.close(scope, Exit.void)
      const events = yield* Fiber.join(reader)
      expect(events.map((e) => `${e._tag}:${e.id}`)).toEqual(["Asked:last", "Settled:last"])
    }))

  it.effect("an ask the seam's closing settles still reports before the stream ends", () =>
    Effect.gen(function*() {
      const seamScope = yield* Scope.make()
      const seam = yield* Layer.buildWithScope(UserInteraction.layerConfig({ handover: "1 hour" }), seamScope)
      const reader = yield* Effect.forkChild(Stream.runCollect(UserInteraction.events).pipe(Effect.provideContext(seam)), { startImmediately: true })
      const providerScope = yield* Scope.make()
      yield* UserInteraction.use((ui) => ui.register(UserInteractionProvider.of({ ask: () => Effect.never }))).pipe(
        Effect.provideContext(seam),
        Scope.provide(providerScope)
      )
      const asking = yield* Effect.forkChild(UserInteraction.ask(request("orphan")).pipe(Effect.provideContext(seam)), { startImmediately: true })
      // The provider goes; the ask waits for a successor that never comes, until the seam closes.
      yield* Scope.close(providerScope, Exit.void)
      yield* Scope.close(seamScope, Exit.void)
      expect(Exit.isFailure(yield* Fiber.await(asking))).toBe(true)
      const events = yield* Fiber.join(reader)
      expect(events.map((e) => `${e._tag}:${e.id}:${e._tag === "Settled" ? e.outcome : ""}`)).toEqual([
        "Asked:orphan:",
        "Settled:orphan:PROVIDER_CLOSED"
      ])
    }))

  it.effect("subscribe, then ask at once: a reader that has not run yet still gets every event, the last ones too, as the seam closes", () =>
    Effect.gen(function*() {
      const seamScope = yield* Scope.make()
      const seam = yield* Layer.buildWithScope(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(singleAnswer))), seamScope)
      const events = yield* UserInteraction.subscribe.pipe(Effect.provideContext(seam))
      // Forked, not started: nothing reads until the asks are done and the seam is closing.
      const reader = yield* Effect.forkChild(Stream.runCollect(events))
      for (const id of ["one", "two", "three"]) yield* UserInteraction.ask(request(id)).pipe(Effect.provideContext(seam))
      yield* Scope.close(seamScope, Exit.void)
      expect((yield* Fiber.join(reader)).map((e) => `${e._tag}:${e.id}`)).toEqual([
        "Asked:one", "Settled:one", "Asked:two", "Settled:two", "Asked:three", "Settled:three"
      ])
      // A subscription made once the seam has closed is empty, and ends.
      const late = yield* UserInteraction.subscribe.pipe(Effect.provideContext(seam))
      expect(yield* Stream.runCollect(late)).toEqual([])
    }))

  it.effect("a UserInteraction built by hand with SPEC's { ask, register } (a test double) asks, and has no events", () =>
    Effect.gen(function*() {
      expect(yield* UserInteraction.ask(request("double"))).toEqual(singleAnswer)
      expect(yield* Stream.runCollect(UserInteraction.events)).toEqual([])
      expect(yield* Stream.runCollect(yield* UserInteraction.subscribe)).toEqual([])
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.succeed(UserInteraction, UserInteraction.of({ ask: () => Effect.succeed(singleAnswer), register: () => Effect.void })))
    ))
})
