/**
 * The asks a process waits for, read from the store together, so that one
 * whose row is settled wakes its caller even while the cluster cannot
 * (decision 169). The row is the ask's truth: an answer, a decline, a cancel
 * and an inbox's expiry write it in the transaction that completes the
 * workflow's deferred, and the engine's own expiry writes it before the
 * workflow ends.
 *
 * The cluster brings an outcome in 15–40 ms, except while shards move: a
 * runner that joins first assigns itself shards another still holds, the
 * holder lets go once its own view catches up, and the taker retries its
 * lock once a second, so an answer given then waited 1–2.5 s. So the rows
 * are read every 50 ms for 5 s after the process saw its cluster's runners
 * change or a waiter had to be asked again: one statement for all of a
 * process's waits, on a SQLite file on a read-only connection of its own
 * (`ReadConnection`), so that a read does not wait behind the process's own
 * transactions. Otherwise they are not read at all: a settled cluster
 * wakes the caller, and a waiter's request that went astray is renewed
 * every 5 s; reading once a second at rest cost a waiting agent about a
 * fifth of its 2 % CPU budget.
 *
 * @internal
 */
import * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import type * as Scope from "effect/Scope"
import type { SettledStatus } from "./AskWorkflow.js"

/** How often the rows are read while shards may be moving. */
export const movingPollMillis = 50

/** How long after a change the shards may still be moving: a join's debounce, a view's refresh, a lock's retry. */
export const movingForMillis = 5_000

/** How many ids one statement reads (SQLite takes at most 32,766 parameters). */
const chunkSize = 500

/** Reads which of `ids` are settled in the store, and how. */
export type ReadSettled = (
  ids: ReadonlyArray<string>
) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly status: SettledStatus }>, unknown>

/** The watch of the asks a process waits for. */
export interface SettledWatch {
  /** Succeeds once the ask's row is settled; the ask is watched only while this waits. */
  readonly settled: (id: string) => Effect.Effect<{ readonly status: SettledStatus }>
  /** Says shards may be moving now (a waiter had to be asked again): read often for a while. */
  readonly moving: Effect.Effect<void>
}

/** When the process last saw its cluster's runners change (epoch ms), and a way to hear of the next changes. */
export interface RunnerChanges {
  readonly lastAt: () => number
  readonly onChange: (listener: () => void) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * A watch reading with `read`, its loop forked in the caller's scope, told
 * of runner changes by `runners`. A read that fails (a store restarting) is
 * tried again at the next tick: the store's own health watch decides when to
 * give up. At rest it sleeps until a change.
 */
export const makeSettledWatch = (read: ReadSettled, runners: RunnerChanges) =>
  Effect.gen(function*() {
    const waiting = new Map<string, { readonly done: Deferred.Deferred<{ readonly status: SettledStatus }>; waiters: number }>()
    const someone = yield* Latch.make(false)
    const stirred = yield* Latch.make(false)
    let movedAt = Number.NEGATIVE_INFINITY
    yield* runners.onChange(() => stirred.openUnsafe())
    const moving = Effect.map(Clock.currentTimeMillis, (now) => now - Math.max(movedAt, runners.lastAt()) < movingForMillis)
    const readAll = Effect.gen(function*() {
      for (const ids of Arr.chunksOf([...waiting.keys()], chunkSize)) {
        const rows = yield* read(ids).pipe(
          Effect.catchCause((cause) => Effect.as(Effect.logDebug("Could not read the asks waited for", cause), []))
        )
        for (const { id, status } of rows) {
          const entry = waiting.get(id)
          if (entry !== undefined) yield* Deferred.succeed(entry.done, { status })
        }
      }
    })
    const tick = Effect.gen(function*() {
      yield* someone.await
      if (yield* moving) {
        yield* readAll
        return yield* Effect.sleep(movingPollMillis)
      }
      stirred.closeUnsafe()
      // A change told between the check and the close opened nothing: look again.
      if (!(yield* moving)) yield* stirred.await
    })
    yield* Effect.forkScoped(Effect.forever(tick))
    const watch = (id: string) =>
      Effect.sync(() => {
        const entry = waiting.get(id) ?? { done: Deferred.makeUnsafe<{ readonly status: SettledStatus }>(), waiters: 0 }
        entry.waiters++
        waiting.set(id, entry)
        someone.openUnsafe()
        return entry
      })
    const unwatch = (id: string) =>
      Effect.sync(() => {
        const entry = waiting.get(id)
        if (entry === undefined || --entry.waiters > 0) return
        waiting.delete(id)
        if (waiting.size === 0) someone.closeUnsafe()
      })
    return {
      settled: (id) => Effect.acquireUseRelease(watch(id), (entry) => Deferred.await(entry.done), () => unwatch(id)),
      moving: Effect.map(Clock.currentTimeMillis, (now) => {
        movedAt = now
        stirred.openUnsafe()
      })
    } satisfies SettledWatch
  })
