import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import { UserInteraction } from "effect-user-interaction"
import { makeProbe, probeProvider } from "./support/providers.js"
import { single, singleAnswer } from "./support/requests.js"

const codeOf = (exit: Exit.Exit<unknown, { readonly code: string }> | undefined) =>
  exit !== undefined && Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause).pipe((o) => o._tag === "Some" ? o.value.code : "no error") : exit

/** Builds `providerLayer` registered on the seam in `context`, in a scope of its own. */
const registerIn = <E>(context: Context.Context<UserInteraction>, providerLayer: Layer.Layer<never, E, UserInteraction>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Layer.buildWithScope(providerLayer, scope).pipe(Effect.provideContext(context))
    return scope
  })

const seamWith = (options: Parameters<typeof UserInteraction.layerConfig>[0]) =>
  Layer.build(UserInteraction.layerConfig(options))

describe("hot reload", () => {
  it.effect("register, close, NO_PROVIDER, register another", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({})
      const ask = UserInteraction.ask(single).pipe(Effect.provideContext(context))
      const probeA = yield* makeProbe
      const scopeA = yield* registerIn(context, UserInteraction.provide(probeProvider(probeA, "A", () => singleAnswer)))
      expect(yield* ask).toEqual(singleAnswer)
      yield* Scope.close(scopeA, Exit.void)
      expect(probeA.finalized).toEqual(["A: provider closed"])
      expect((yield* Effect.flip(ask)).code).toBe("NO_PROVIDER")
      const probeB = yield* makeProbe
      yield* registerIn(context, UserInteraction.provide(probeProvider(probeB, "B", () => singleAnswer)))
      expect(yield* ask).toEqual(singleAnswer)
      expect(probeB.started).toHaveLength(1)
    }))

  it.effect("without hand-over a pending ask fails PROVIDER_CLOSED; its prompt comes down before the provider closes", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({})
      const probe = yield* makeProbe
      const scope = yield* registerIn(context, UserInteraction.provide(probeProvider(probe, "A")))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      yield* Deferred.await(probe.asked)
      yield* Scope.close(scope, Exit.void)
      expect(codeOf(yield* Fiber.await(fiber))).toBe("PROVIDER_CLOSED")
      expect(probe.finalized).toEqual(["A: prompt taken down", "A: provider closed"])
    }))

  it.effect("with hand-over the successor answers the same pending ask and the caller never notices", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({ handover: "5 seconds" })
      const probeA = yield* makeProbe
      const scopeA = yield* registerIn(context, UserInteraction.provide(probeProvider(probeA, "A")))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      yield* Deferred.await(probeA.asked)
      yield* Scope.close(scopeA, Exit.void)
      yield* TestClock.adjust("4 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      const probeB = yield* makeProbe
      yield* registerIn(context, UserInteraction.provide(probeProvider(probeB, "B", () => singleAnswer)))
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      expect(probeB.started).toEqual(probeA.started)
      expect(probeA.finalized).toEqual(["A: prompt taken down", "A: provider closed"])
    }))

  it.effect("with hand-over, no successor within the window is PROVIDER_CLOSED", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({ handover: "5 seconds" })
      const probe = yield* makeProbe
      const scope = yield* registerIn(context, UserInteraction.provide(probeProvider(probe, "A")))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      yield* Deferred.await(probe.asked)
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("5 seconds")
      expect(codeOf(yield* Fiber.await(fiber))).toBe("PROVIDER_CLOSED")
    }))

  it.effect("an ask that starts inside the hand-over window fails NO_PROVIDER at once", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({ handover: "5 seconds" })
      const probe = yield* makeProbe
      const scope = yield* registerIn(context, UserInteraction.provide(probeProvider(probe, "A")))
      const pending = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      yield* Deferred.await(probe.asked)
      yield* Scope.close(scope, Exit.void)
      expect((yield* Effect.flip(UserInteraction.ask(single).pipe(Effect.provideContext(context)))).code).toBe("NO_PROVIDER")
      expect(pending.pollUnsafe()).toBeUndefined()
    }))

  it.effect("the timeout covers the hand-over wait", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({ handover: "1 minute", timeout: "10 seconds" })
      const probe = yield* makeProbe
      const scope = yield* registerIn(context, UserInteraction.provide(probeProvider(probe, "A")))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      yield* Deferred.await(probe.asked)
      yield* TestClock.adjust("6 seconds")
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("4 seconds")
      expect(codeOf(yield* Fiber.await(fiber))).toBe("ASK_TIMEOUT")
    }))

  it.effect("aborting the signal during the hand-over wait fails ASK_ABORTED and removes the listener", () =>
    Effect.gen(function*() {
      const context = yield* seamWith({ handover: "1 minute" })
      const probe = yield* makeProbe
      const controller = new AbortController()
      const scope = yield* registerIn(context, UserInteraction.provide(probeProvider(probe, "A")))
      const fiber = yield* Effect.forkChild(
        UserInteraction.ask({ ...single, signal: controller.signal }).pipe(Effect.provideContext(context))
      )
      yield* Deferred.await(probe.asked)
      yield* Scope.close(scope, Exit.void)
      controller.abort()
      expect(codeOf(yield* Fiber.await(fiber))).toBe("ASK_ABORTED")
    }))

  it.effect("closing the seam ends hand-over waits with PROVIDER_CLOSED", () =>
    Effect.gen(function*() {
      const seamScope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerConfig({ handover: "1 hour" }), seamScope)
      const probe = yield* makeProbe
      const scope = yield* registerIn(context, UserInteraction.provide(probeProvider(probe, "A")))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context)))
      yield* Deferred.await(probe.asked)
      yield* Scope.close(scope, Exit.void)
      yield* Scope.close(seamScope, Exit.void)
      expect(codeOf(yield* Fiber.await(fiber))).toBe("PROVIDER_CLOSED")
    }))
})
