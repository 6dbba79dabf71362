/**
 * Opening a durable store while another process holds its lock: the store
 * is built again from scratch (each failed attempt's resources released)
 * while SQLite reports it locked, and not for any other failure; a store
 * fault the engine's own opening steps die with counts as that failure.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlError } from "effect/sql"
import { retryUnlessLocked, retryWhileLocked, storeFaultsAsFailures } from "../src/durable/retryWhileLocked.js"

class Store extends Context.Service<Store, { readonly attempt: number }>()("test/Store") {}

const locked = () =>
  new SqlError.SqlError({ reason: new SqlError.LockTimeoutError({ message: "SQLite: database is locked", cause: null }) })
const syntax = () =>
  new SqlError.SqlError({ reason: new SqlError.SqlSyntaxError({ message: "SQLite: near \"CREAT\": syntax error", cause: null }) })

/** A store whose first `failures` builds fail with `error` after acquiring a resource. */
const flaky = (failures: number, error: () => SqlError.SqlError) => {
  const log = { attempts: 0, open: 0 }
  const layer = Layer.effect(
    Store,
    Effect.gen(function*() {
      const attempt = ++log.attempts
      yield* Effect.acquireRelease(Effect.sync(() => void log.open++), () => Effect.sync(() => void log.open--))
      if (attempt <= failures) return yield* Effect.fail(error())
      return Store.of({ attempt })
    })
  )
  return { log, layer }
}

const useStore = Effect.gen(function*() {
  return yield* Store
})

describe("opening a locked durable store", () => {
  it.live("builds the store again while it is locked, releasing each failed attempt", () =>
    Effect.gen(function*() {
      const { layer, log } = flaky(2, locked)
      const store = yield* useStore.pipe(Effect.provide(retryWhileLocked(layer)))
      expect(store.attempt).toBe(3)
      expect(log).toEqual({ attempts: 3, open: 0 })
    }))

  it.live("keeps the store's resources open for as long as its layer", () =>
    Effect.gen(function*() {
      const { layer, log } = flaky(1, locked)
      yield* Effect.gen(function*() {
        yield* Store
        expect(log.open).toBe(1)
      }).pipe(Effect.provide(retryWhileLocked(layer)))
      expect(log.open).toBe(0)
    }))

  it.live.each([
    { name: "fails at once for anything but a lock", failures: 1, error: syntax, reason: "SqlSyntaxError", attempts: 1 },
    { name: "gives up after five locked attempts with the lock error", failures: 99, error: locked, reason: "LockTimeoutError", attempts: 5 }
  ])("$name", ({ attempts, error, failures, reason }) =>
    Effect.gen(function*() {
      const { layer, log } = flaky(failures, error)
      const failure = yield* Effect.flip(useStore.pipe(Effect.provide(retryWhileLocked(layer))))
      expect(failure.reason._tag).toBe(reason)
      expect(log).toEqual({ attempts, open: 0 })
    }), 15_000)
})

describe("one step of opening a store", () => {
  it.live.each([
    { name: "is tried again for a lost creation race, four times in all", error: syntax, reason: "SqlSyntaxError", attempts: 4 },
    // The whole store is retried around it: retrying here too would wait out the busy timeout 4 × 5 times.
    { name: "is not tried again for a lock, which the whole store's retry handles", error: locked, reason: "LockTimeoutError", attempts: 1 }
  ])("$name", ({ attempts, error, reason }) =>
    Effect.gen(function*() {
      let tried = 0
      const failure = yield* Effect.flip(retryUnlessLocked(Effect.suspend(() => {
        tried++
        return Effect.fail(error())
      })))
      expect(failure.reason._tag).toBe(reason)
      expect(tried).toBe(attempts)
    }), 15_000)
})

describe("the engine's own steps of opening a store", () => {
  it.live("die on a store fault: read as the SQL error it carries, a lock is retried like the store's own", () =>
    Effect.gen(function*() {
      let attempts = 0
      // The engine wraps the SQL error in a PersistenceError and dies with it (its layers are orDie).
      const engine = Layer.effect(
        Store,
        Effect.suspend(() =>
          ++attempts === 1
            ? Effect.die(Object.assign(new Error(""), { _tag: "PersistenceError", cause: locked() }))
            : Effect.succeed(Store.of({ attempt: attempts }))
        )
      )
      const store = yield* useStore.pipe(Effect.provide(retryWhileLocked(storeFaultsAsFailures(engine))))
      expect(store.attempt).toBe(2)
      const failure = yield* Effect.flip(
        useStore.pipe(Effect.provide(storeFaultsAsFailures(Layer.effect(Store, Effect.die(syntax())))))
      )
      expect(failure.reason._tag).toBe("SqlSyntaxError")
      // Any other defect stays one.
      const other = yield* Effect.exit(useStore.pipe(Effect.provide(storeFaultsAsFailures(Layer.effect(Store, Effect.die("bug"))))))
      expect(other._tag === "Failure" && other.cause.reasons[0]?._tag).toBe("Die")
    }))
})
