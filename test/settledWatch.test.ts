/**
 * The watch of the asks a process waits for (`src/durable/settledWatch.ts`,
 * decision 169): while the cluster's runners change or a waiter had to be
 * asked again, the rows of every ask waited for are read together every
 * 50 ms and a settled one wakes its caller; at rest nothing is read.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Schema, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { SettledStatus } from "../src/durable/AskWorkflow.js"
import { makeSettledWatch, movingForMillis, movingPollMillis, type SettledWatch } from "../src/durable/settledWatch.js"

/** A store's rows as the watch reads them, the statements it was sent, and runner changes told at will. */
const fakeStore = () => {
  const settled = new Map<string, SettledStatus>()
  const statements: Array<ReadonlyArray<string>> = []
  let failing = false
  let lastAt = -movingForMillis
  const listeners = new Set<() => void>()
  return {
    settled,
    statements,
    failNext: () => void (failing = true),
    read: (ids: ReadonlyArray<string>) =>
      Effect.suspend(() => {
        statements.push(ids)
        if (failing) {
          failing = false
          return Effect.fail(new Error("the store is restarting"))
        }
        return Effect.succeed(ids.flatMap((id) => {
          const status = settled.get(id)
          return status === undefined ? [] : [{ id, status }]
        }))
      }),
    runners: {
      lastAt: () => lastAt,
      onChange: (listener: () => void) =>
        Effect.acquireRelease(Effect.sync(() => void listeners.add(listener)), () => Effect.sync(() => void listeners.delete(listener)))
    },
    /** The process sees its cluster's runners change now. */
    change: Effect.map(Clock.currentTimeMillis, (now) => {
      lastAt = now
      listeners.forEach((listener) => listener())
    })
  }
}

/** A watch on a fake store, in the test's scope. */
const watched = Effect.suspend(() => {
  const store = fakeStore()
  return Effect.map(makeSettledWatch(store.read, store.runners), (watch) => ({ store, watch }))
})

const tick = TestClock.adjust(movingPollMillis)

/** A caller waiting for the ask `id`, watched from now on. */
const waitFor = (watch: SettledWatch, id: string) => Effect.forkChild(watch.settled(id), { startImmediately: true })

/** Lets the watch's loop run what a change started (a read at once), and no next tick. */
const soon = TestClock.adjust(movingPollMillis / 2)

describe("settledWatch", () => {
  it.effect("at rest nothing is read: the cluster wakes the caller, and an ask settled meanwhile waits", () =>
    Effect.gen(function*() {
      const { store, watch } = yield* watched
      store.settled.set("a", "answered")
      const waiting = yield* waitFor(watch, "a")
      yield* TestClock.adjust("1 minute")
      expect(store.statements).toEqual([])
      expect(waiting.pollUnsafe()).toBeUndefined()
      // A change of the runners: read at once, and the caller wakes.
      yield* store.change
      yield* tick
      expect(yield* Fiber.join(waiting)).toEqual({ status: "answered" })
      expect(store.statements).toEqual([["a"]])
    }))

  it.effect("after runners change, every ask waited for is read in one statement each 50 ms, for 5 s", () =>
    Effect.gen(function*() {
      const { store, watch } = yield* watched
      const a = yield* waitFor(watch, "a")
      const b = yield* waitFor(watch, "b")
      yield* store.change
      yield* tick
      expect(store.statements.at(-1)).toEqual(["a", "b"])
      store.settled.set("b", "declined")
      yield* tick
      expect(yield* Fiber.join(b)).toEqual({ status: "declined" })
      // b is no longer read; a still is.
      yield* tick
      expect(store.statements.at(-1)).toEqual(["a"])
      yield* TestClock.adjust(movingForMillis)
      const afterWindow = store.statements.length
      expect(afterWindow).toBeGreaterThanOrEqual(movingForMillis / movingPollMillis - 1)
      yield* TestClock.adjust("1 minute")
      expect(store.statements).toHaveLength(afterWindow)
      expect(a.pollUnsafe()).toBeUndefined()
      yield* Fiber.interrupt(a)
    }))

  it.effect("a waiter asked again (its shard moved) has the rows read for a while, as a runner change does", () =>
    Effect.gen(function*() {
      const { store, watch } = yield* watched
      const a = yield* waitFor(watch, "a")
      yield* tick
      expect(store.statements).toEqual([])
      yield* watch.moving
      store.settled.set("a", "cancelled")
      yield* tick
      expect(yield* Fiber.join(a)).toEqual({ status: "cancelled" })
    }))

  it.effect("two callers waiting for one ask are both woken; an interrupted caller's ask is read no more", () =>
    Effect.gen(function*() {
      const { store, watch } = yield* watched
      const first = yield* waitFor(watch, "same")
      const second = yield* waitFor(watch, "same")
      const gone = yield* waitFor(watch, "gone")
      yield* store.change
      yield* tick
      expect(store.statements.at(-1)).toEqual(["same", "gone"])
      yield* Fiber.interrupt(gone)
      store.settled.set("same", "expired")
      yield* tick
      expect(yield* Fiber.join(first)).toEqual({ status: "expired" })
      expect(yield* Fiber.join(second)).toEqual({ status: "expired" })
      expect(store.statements.at(-1)).toEqual(["same"])
      // Nobody waits: nothing is read, even while moving.
      const count = store.statements.length
      yield* TestClock.adjust(movingForMillis / 2)
      expect(store.statements).toHaveLength(count)
    }))

  it.effect("a read that fails is tried again at the next tick", () =>
    Effect.gen(function*() {
      const { store, watch } = yield* watched
      store.settled.set("a", "answered")
      store.failNext()
      const a = yield* waitFor(watch, "a")
      yield* store.change
      yield* soon
      expect(store.statements).toHaveLength(1)
      expect(a.pollUnsafe()).toBeUndefined()
      yield* tick
      expect(yield* Fiber.join(a)).toEqual({ status: "answered" })
      expect(store.statements).toHaveLength(2)
    }))

  it.effect("the watch's loop ends with its scope", () =>
    Effect.gen(function*() {
      const store = fakeStore()
      const scope = yield* Scope.make()
      const watch = yield* makeSettledWatch(store.read, store.runners).pipe(Scope.provide(scope))
      const a = yield* waitFor(watch, "a")
      yield* store.change
      yield* tick
      const count = store.statements.length
      yield* Scope.close(scope, Effect.void as never)
      yield* TestClock.adjust(movingForMillis)
      expect(store.statements).toHaveLength(count)
      yield* Fiber.interrupt(a)
    }))

  it.effect.prop(
    "however many asks wait, each settled one wakes in one read, in statements of at most 500 ids",
    {
      count: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_300 })),
      every: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 7 }))
    },
    ({ count, every }) =>
      Effect.gen(function*() {
        const { store, watch } = yield* watched
        const ids = Array.from({ length: count }, (_, i) => `ask-${i}`)
        const fibers = yield* Effect.forEach(ids, (id) => waitFor(watch, id))
        ids.forEach((id, i) => i % every === 0 && store.settled.set(id, "answered"))
        yield* store.change
        yield* soon
        expect(store.statements.length).toBe(Math.ceil(count / 500))
        expect(store.statements.every((statement) => statement.length <= 500)).toBe(true)
        for (const [i, fiber] of fibers.entries()) {
          if (i % every === 0) expect(yield* Fiber.join(fiber)).toEqual({ status: "answered" })
          else expect(fiber.pollUnsafe()).toBeUndefined()
        }
        yield* Fiber.interruptAll(fibers)
      }),
    { arbitrary: { runs: 20 } }
  )
})
