/**
 * The durable store's release is waited for at most so long
 * (`src/durable/boundedShutdown.ts`): a release that never ends (as
 * effect/cluster's shutdown was seen to after a shard move) no longer keeps
 * the program from ending; one that ends runs in full.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import { boundedShutdown } from "../src/durable/boundedShutdown.js"

class Engine extends Context.Service<Engine, { readonly name: string }>()("test/Engine") {}

const engineReleasing = (release: Effect.Effect<void>) =>
  Layer.effect(Engine, Effect.as(Effect.addFinalizer(() => release), Engine.of({ name: "engine" })))

describe("boundedShutdown", () => {
  it.effect("a release that never ends is left after the limit, and the program ends", () =>
    Effect.gen(function*() {
      const program = Effect.forkChild(Effect.scoped(Effect.map(Layer.build(boundedShutdown(engineReleasing(Effect.never), "5 seconds")), Context.get(Engine))))
      const fiber = yield* program
      yield* TestClock.adjust("4 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber)).name).toBe("engine")
    }))

  it.effect("a release that ends runs in full, and the service was there until then", () =>
    Effect.gen(function*() {
      const released = yield* Ref.make(false)
      const name = yield* Effect.scoped(
        Effect.map(Layer.build(boundedShutdown(engineReleasing(Ref.set(released, true)), "5 seconds")), (context) => Context.get(context, Engine).name)
      )
      expect(name).toBe("engine")
      expect(yield* Ref.get(released)).toBe(true)
    }))

  it.effect("a layer that fails to build releases what it had built", () =>
    Effect.gen(function*() {
      const released = yield* Ref.make(false)
      const failing = Layer.effectDiscard(Effect.fail("no store")).pipe(Layer.provideMerge(engineReleasing(Ref.set(released, true))))
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(boundedShutdown(failing, "5 seconds"))))
      expect(exit._tag).toBe("Failure")
      expect(yield* Ref.get(released)).toBe(true)
    }))
})
