import { describe, expect, it } from "@effect/vitest"
import { getEventListeners } from "node:events"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, Layer, Scope, Tracer } from "effect"
import { TestClock } from "effect/testing"
import {
  AskCancelled,
  AskDeclined,
  ScriptedProvider,
  interruptionReason,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { makeProbe, probeProvider } from "./support/providers.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

const answering = (answer: unknown) => ScriptedProvider.layer(() => Effect.succeed(answer as typeof singleAnswer))

describe("UserInteraction.ask", () => {
  it.effect("returns the provider's answer, checked and in question order", () =>
    Effect.gen(function*() {
      const reversed = { answers: [...batchAnswer.answers].reverse() }
      const answer = yield* UserInteraction.ask(batch).pipe(Effect.provide(UserInteraction.layerWith(answering(reversed))))
      expect(answer).toEqual(batchAnswer)
    }))

  it.effect("fails NO_PROVIDER when the slot is empty", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(UserInteraction.ask(single))
      expect(error.code).toBe("NO_PROVIDER")
    }).pipe(Effect.provide(UserInteraction.layer)))

  it.effect("checks in the contract's order and never calls the provider for a bad request", () =>
    Effect.gen(function*() {
      const reason = new Error("the user closed the tab")
      const aborted = AbortSignal.abort(reason)
      // An aborted signal comes first, even before an empty or broken request; its reason is the cause.
      const early = yield* Effect.flip(UserInteraction.ask({ questions: [], signal: aborted }))
      expect([early.code, early.cause]).toEqual(["ASK_ABORTED", reason])
      expect((yield* Effect.flip(UserInteraction.ask({ questions: [] }))).code).toBe("EMPTY_QUESTIONS")
      const invalid = yield* Effect.flip(UserInteraction.ask({ questions: [{ id: "a", question: "" }] }))
      expect(invalid.code).toBe("INVALID_REQUEST")
      expect(invalid.message).toContain("questions[0].question")
      expect(yield* ScriptedProvider.requests).toEqual([])
    }).pipe(Effect.provide(UserInteraction.layerWith(answering(singleAnswer)))))

  it.effect("a request whose getters throw is INVALID_REQUEST, with a tracer on too, and the provider is never called", () =>
    Effect.gen(function*() {
      const throwing = (key: string) =>
        Object.defineProperty({ ...single }, key, {
          enumerable: true,
          get: () => {
            throw new Error(`${key} getter boom`)
          }
        }) as typeof single
      for (const key of ["signal", "questions", "id", "agent"]) {
        const error = yield* Effect.flip(UserInteraction.ask(throwing(key)).pipe(Effect.withTracer(Tracer.make({ span: (o) => new Tracer.NativeSpan(o) }))))
        expect([key, error.code]).toEqual([key, "INVALID_REQUEST"])
      }
      const wrongSignal = yield* Effect.flip(UserInteraction.ask({ ...single, signal: "soon" as unknown as AbortSignal }))
      expect(wrongSignal.message).toContain("signal: Expected AbortSignal")
      expect(yield* ScriptedProvider.requests).toEqual([])
    }).pipe(Effect.provide(UserInteraction.layerWith(answering(singleAnswer)))))

  it.effect("checks the request before the slot: a bad request is INVALID_REQUEST even without a provider", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(UserInteraction.ask({ questions: [{ id: "a", question: "A", options: [{ label: "x" }, { label: "x" }] }] }))
      expect(error.code).toBe("INVALID_REQUEST")
    }).pipe(Effect.provide(UserInteraction.layer)))

  it.effect("fails INVALID_ANSWER when the provider breaks the answer rules", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(UserInteraction.ask(single))
      expect(error.code).toBe("INVALID_ANSWER")
      expect(error.message).toContain("maybe")
    }).pipe(Effect.provide(UserInteraction.layerWith(answering({ answers: [{ id: "go", selected: ["maybe"] }] })))))

  it.effect("passes the provider's tagged failures through unchanged", () =>
    Effect.gen(function*() {
      const cancelled = new AskCancelled({ message: "Esc pressed" })
      const error = yield* Effect.flip(UserInteraction.ask(single).pipe(
        Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.fail(cancelled))))
      ))
      expect(error).toBe(cancelled)
      const declined = yield* Effect.flip(UserInteraction.ask(single).pipe(
        Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.fail(new AskDeclined()))))
      ))
      expect(declined.code).toBe("ASK_DECLINED")
    }))

  it.effect("turns a provider defect or unknown failure into PROVIDER_FAILED, keeping the cause", () =>
    Effect.gen(function*() {
      const boom = new Error("socket hung up")
      const defect = yield* Effect.flip(UserInteraction.ask(single).pipe(
        Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.die(boom))))
      ))
      expect(defect.code).toBe("PROVIDER_FAILED")
      expect(defect.cause).toBe(boom)
      expect(defect.message).toContain("socket hung up")
      const unknown = yield* Effect.flip(UserInteraction.ask(single).pipe(
        Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.fail("weird" as never))))
      ))
      expect(unknown.code).toBe("PROVIDER_FAILED")
      expect(unknown.cause).toBe("weird")
    }))

  it.effect("passes the request to the provider and records it", () =>
    Effect.gen(function*() {
      yield* UserInteraction.ask({ ...single, agent: { id: "s1", name: "Coder" } })
      expect(yield* ScriptedProvider.requests).toEqual([{ ...single, agent: { id: "s1", name: "Coder" } }])
    }).pipe(Effect.provide(UserInteraction.layerWith(answering(singleAnswer)))))
})

describe("interruption and cleanup", () => {
  it.effect("aborting the signal interrupts the provider, runs its finalizer and fails ASK_ABORTED", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const controller = new AbortController()
      const exit = yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(UserInteraction.ask({ ...single, signal: controller.signal }))
        yield* Deferred.await(probe.asked)
        controller.abort("user pressed stop")
        return yield* Fiber.await(fiber)
      }).pipe(Effect.provide(UserInteraction.layerWith(probeProvider(probe, "p"))))
      expect(Exit.isFailure(exit) && Cause.findErrorOption(exit.cause)).toMatchObject({
        value: { code: "ASK_ABORTED", cause: "user pressed stop" }
      })
      expect(probe.finalized).toEqual(["p: prompt taken down", "p: provider closed"])
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    }))

  it.effect("the timeout interrupts the provider, runs its finalizer and fails ASK_TIMEOUT", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const exit = yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(UserInteraction.ask(single))
        yield* Deferred.await(probe.asked)
        yield* TestClock.adjust("29 seconds")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 second")
        return yield* Fiber.await(fiber)
      }).pipe(Effect.provide(UserInteraction.layerWith(probeProvider(probe, "p"), { timeout: "30 seconds" })))
      expect(Exit.isFailure(exit) && Cause.findErrorOption(exit.cause)).toMatchObject({ value: { code: "ASK_TIMEOUT" } })
      expect(probe.finalized[0]).toBe("p: prompt taken down")
    }))

  it.effect("a zero or negative timeout is no timeout: the ask waits as long as its provider", () =>
    Effect.gen(function*() {
      for (const timeout of [0, "-5 seconds"] as const) {
        const probe = yield* makeProbe
        yield* Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(UserInteraction.ask(single))
          yield* Deferred.await(probe.asked)
          yield* TestClock.adjust("7 days")
          expect(fiber.pollUnsafe()).toBeUndefined()
          yield* Fiber.interrupt(fiber)
        }).pipe(Effect.provide(UserInteraction.layerWith(probeProvider(probe, "p"), { timeout })))
      }
    }))

  it.effect("interrupting the caller interrupts the provider and runs its finalizer", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const exit = yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(UserInteraction.ask(single))
        yield* Deferred.await(probe.asked)
        yield* Fiber.interrupt(fiber)
        expect(probe.finalized).toEqual(["p: prompt taken down"])
        return yield* Fiber.await(fiber)
      }).pipe(Effect.provide(UserInteraction.layerWith(probeProvider(probe, "p"))))
      expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
    }))

  it.effect("tells the provider why it was interrupted: aborted, timeout or closed", () =>
    Effect.gen(function*() {
      const reasons: Array<string | undefined> = []
      const asked = yield* Deferred.make<void>()
      const provider = Layer.succeed(UserInteractionProvider, {
        ask: () =>
          Deferred.succeed(asked, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onExit((exit) => Effect.sync(() => reasons.push(Exit.isFailure(exit) ? interruptionReason(exit.cause) : "answered")))
          )
      })
      const seam = yield* Layer.build(UserInteraction.layerConfig({ timeout: "1 minute" }))
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(UserInteraction.provide(provider), scope).pipe(Effect.provideContext(seam))
      const ask = (request: typeof single) => UserInteraction.ask(request).pipe(Effect.provideContext(seam))

      const controller = new AbortController()
      const aborted = yield* Effect.forkChild(ask({ ...single, signal: controller.signal }))
      yield* Deferred.await(asked)
      controller.abort()
      yield* Fiber.await(aborted)
      const interrupted = yield* Effect.forkChild(ask(single))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(interrupted)
      const timedOut = yield* Effect.forkChild(ask(single))
      yield* Effect.yieldNow
      yield* TestClock.adjust("1 minute")
      yield* Fiber.await(timedOut)
      const closed = yield* Effect.forkChild(ask(single))
      yield* Effect.yieldNow
      yield* Scope.close(scope, Exit.void)
      yield* Fiber.await(closed)
      expect(reasons).toEqual(["aborted", "aborted", "timeout", "closed"])
    }))

  // A timer can fire while the wall clock still reads short of its deadline (Node's timers run on
  // the event loop's own time): the reason must come from the timer, not from reading the clock.
  it.live("tells the provider `timeout` when its timer fires, whatever the clock reads", () =>
    Effect.gen(function*() {
      const reasons: Array<string | undefined> = []
      const provider = Layer.succeed(UserInteractionProvider, {
        ask: () =>
          Effect.never.pipe(
            Effect.onExit((exit) => Effect.sync(() => reasons.push(Exit.isFailure(exit) ? interruptionReason(exit.cause) : "answered")))
          )
      })
      const stopped: Clock.Clock = {
        currentTimeMillisUnsafe: () => 0,
        currentTimeMillis: Effect.succeed(0),
        currentTimeNanosUnsafe: () => 0n,
        currentTimeNanos: Effect.succeed(0n),
        monotonicTimeNanosUnsafe: () => 0n,
        monotonicTimeNanos: Effect.succeed(0n),
        sleep: () => Effect.callback<void>((resume) => {
          const timer = setTimeout(() => resume(Effect.void), 5)
          return Effect.sync(() => clearTimeout(timer))
        })
      }
      const error = yield* Effect.flip(UserInteraction.ask(single).pipe(
        Effect.provide(UserInteraction.layerWith(provider, { timeout: "1 minute" })),
        Effect.provideService(Clock.Clock, stopped)
      ))
      expect(error.code).toBe("ASK_TIMEOUT")
      expect(reasons).toEqual(["timeout"])
    }))

  it.effect("an answer that arrives after the abort still fails ASK_ABORTED", () =>
    Effect.gen(function*() {
      const controller = new AbortController()
      const provider = Layer.succeed(UserInteractionProvider, {
        // Ignores interruption while it "answers", as a sloppy provider might.
        ask: () => Effect.uninterruptible(Effect.sync(() => controller.abort()).pipe(Effect.as(singleAnswer)))
      })
      const error = yield* Effect.flip(UserInteraction.ask({ ...single, signal: controller.signal }).pipe(
        Effect.provide(UserInteraction.layerWith(provider))
      ))
      expect(error.code).toBe("ASK_ABORTED")
    }))

  it.effect("an abort while a timed-out provider is still closing wins over the timeout", () =>
    Effect.gen(function*() {
      const controller = new AbortController()
      const slowToClose = Layer.succeed(UserInteractionProvider, {
        ask: () => Effect.uninterruptible(Effect.sleep("10 seconds")).pipe(Effect.as(singleAnswer))
      })
      const fiber = yield* Effect.forkChild(UserInteraction.ask({ ...single, signal: controller.signal }).pipe(
        Effect.provide(UserInteraction.layerWith(slowToClose, { timeout: "1 second" }))
      ))
      yield* TestClock.adjust("5 seconds")
      controller.abort()
      yield* TestClock.adjust("5 seconds")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Cause.findErrorOption(exit.cause)).toMatchObject({ value: { code: "ASK_ABORTED" } })
    }))

  it.effect("removes every listener it adds, across 1000 asks sharing one signal", () =>
    Effect.gen(function*() {
      const controller = new AbortController()
      const results = yield* Effect.forEach(
        Array.from({ length: 1000 }, () => ({ ...single, signal: controller.signal })),
        (request) => UserInteraction.ask(request),
        { concurrency: 50 }
      )
      expect(results).toHaveLength(1000)
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    }).pipe(Effect.provide(UserInteraction.layerWith(answering(singleAnswer)))))

  it.effect("removes listeners of failed and aborted asks too", () =>
    Effect.gen(function*() {
      const controller = new AbortController()
      const failing = UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.fail(new AskCancelled())))
      for (let i = 0; i < 20; i++) {
        yield* Effect.flip(UserInteraction.ask({ ...single, signal: controller.signal }).pipe(Effect.provide(failing)))
      }
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    }))

  it.effect("leaves no fiber running once the seam's layer is closed", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerWith(probeProvider(probe, "p")), scope)
      const asks = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => Effect.forkDetach(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      )
      yield* Deferred.await(probe.asked)
      yield* Effect.yieldNow
      yield* Scope.close(scope, Exit.void)
      const exits = asks.map((fiber) => fiber.pollUnsafe())
      expect(exits.every((exit) => exit !== undefined)).toBe(true)
      expect(exits.map((exit) => exit && Exit.isFailure(exit) && Cause.findErrorOption(exit.cause).pipe((o) => o._tag === "Some" && o.value.code)))
        .toEqual(Array(10).fill("PROVIDER_CLOSED"))
      expect(probe.finalized.filter((f) => f === "p: prompt taken down")).toHaveLength(10)
      expect(probe.finalized.at(-1)).toBe("p: provider closed")
    }))
})

describe("closing a provider", () => {
  it.effect("waits for the finalizers of its asks that do not end at once, and settles every ask PROVIDER_CLOSED", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      let finalized = 0
      // Every other ask takes its prompt down only when `release` completes.
      let n = 0
      const provider = UserInteractionProvider.of({
        ask: () =>
          Effect.suspend(() => {
            const slow = n++ % 2 === 0
            return Effect.never.pipe(Effect.onInterrupt(() =>
              (slow ? Deferred.await(release) : Effect.void).pipe(Effect.andThen(Effect.sync(() => void finalized++)))
            ))
          })
      })
      const seam = yield* UserInteraction
      const providerScope = yield* Scope.make()
      yield* seam.register(provider).pipe(Scope.provide(providerScope))
      const asks = yield* Effect.forEach(Array.from({ length: 6 }), () => Effect.forkChild(seam.ask(single)))
      yield* Effect.yieldNow
      const closing = yield* Effect.forkChild(Scope.close(providerScope, Exit.void))
      yield* Effect.yieldNow
      expect(closing.pollUnsafe()).toBeUndefined()
      expect(finalized).toBe(3)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(closing)
      expect(finalized).toBe(6)
      const codes = yield* Effect.forEach(asks, (fiber) => Effect.flip(Fiber.join(fiber)))
      expect(codes.map((error) => error.code)).toEqual(Array(6).fill("PROVIDER_CLOSED"))
    }).pipe(Effect.provide(UserInteraction.layer)))
})

describe("registration", () => {
  it.effect("refuses a second provider with DUPLICATE_PROVIDER and keeps the first", () =>
    Effect.gen(function*() {
      const seam = yield* UserInteraction
      const first = UserInteractionProvider.of({ ask: () => Effect.succeed(singleAnswer) })
      const second = UserInteractionProvider.of({ ask: () => Effect.succeed({ answers: [{ id: "go", selected: ["no"] }] }) })
      yield* seam.register(first)
      const error = yield* Effect.flip(seam.register(second))
      expect(error.code).toBe("DUPLICATE_PROVIDER")
      expect(yield* seam.ask(single)).toEqual(singleAnswer)
    }).pipe(Effect.provide(UserInteraction.layer)))

  it.effect("UserInteraction.provide fails DUPLICATE_PROVIDER on a seam that has one", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const both = UserInteraction.provide(answering(singleAnswer)).pipe(
        Layer.provideMerge(UserInteraction.provide(probeProvider(probe, "first"))),
        Layer.provideMerge(UserInteraction.layer)
      )
      const error = yield* Effect.flip(Layer.build(both))
      expect(error.code).toBe("DUPLICATE_PROVIDER")
    }))

  it.effect("layerWith passes the provider layer's other services through", () =>
    Effect.gen(function*() {
      yield* UserInteraction.ask(single)
      expect(yield* ScriptedProvider.requests).toHaveLength(1)
    }).pipe(Effect.provide(UserInteraction.layerWith(answering(singleAnswer)))))
})
