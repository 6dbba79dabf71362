/**
 * Opening a durable store again while another process holds its lock, and
 * only then.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { SqlError } from "effect/sql"
import { isDamagedStore, isStoreLocked, underlyingError } from "./storeFault.js"
import { storeTimings } from "./storeTimings.js"

/**
 * The engine's own steps of opening a store (its tables, its runner's row)
 * die when the store fails them: such a defect is read as the SQL error it
 * carries, so that a locked store is opened again and every fault of the
 * store is reported as the store's (a bare "SQLite: database is locked"
 * before). Any other failure passes unchanged.
 */
export const storeFaultsAsFailures = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E | SqlError.SqlError, R> =>
  Layer.catchCause(layer, (cause) => {
    const fault = cause.reasons.map((reason) => Cause.isDieReason(reason) ? underlyingError(reason.defect) : undefined)
      .find(SqlError.isSqlError)
    const failure: Effect.Effect<never, E | SqlError.SqlError> = fault === undefined ? Effect.failCause(cause) : Effect.fail(fault)
    return Layer.unwrap(Effect.map(failure, (): Layer.Layer<A, E, R> => layer))
  })

/**
 * Builds `layer` again, from scratch, while it fails because the store is
 * locked: several processes opening one new SQLite store at once (an asker,
 * `ask-user status` polling it, answerers) each create tables and take the
 * engine's locks, and on a loaded machine one can hold the write lock past
 * the busy timeout. Every step of opening is idempotent; each failed attempt's
 * resources are released before the next. Five attempts at most, and none
 * begun once the store has been locked for 30 s (`storeTimings`): with each
 * attempt waiting 10 s for the lock, a store locked for good fails its
 * command in about 31 s.
 */
export const retryWhileLocked = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.effectContext(Effect.flatMap(Effect.scope, (scope) =>
    Effect.suspend(() => {
      const started = Date.now()
      const { giveUpMillis } = storeTimings()
      return Effect.retry(
        Effect.flatMap(Scope.fork(scope), (attempt) =>
          Layer.buildWithScope(layer, attempt).pipe(Effect.onError((cause) => Scope.close(attempt, Exit.failCause(cause))))),
        {
          while: (error) => isStoreLocked(error) && Date.now() - started < giveUpMillis,
          schedule: Schedule.exponential("200 millis"),
          times: 4
        }
      )
    })))

/**
 * Runs one step of opening a store (creating its table, say) again, up to
 * three more times, when it fails for anything but a lock: two processes
 * creating a new PostgreSQL store's table at once can both try (IF NOT
 * EXISTS is not atomic there), and the loser's retry finds it. A lock is left
 * to `retryWhileLocked` around the whole store: retried here too, each of its
 * attempts would wait out the busy timeout four times, and a store locked
 * for good would take minutes to fail instead of well under one.
 */
export const retryUnlessLocked = <A, E, R>(step: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(step, {
    // Nor is a damaged file, which no retry mends.
    while: (error) => !isStoreLocked(error) && !isDamagedStore(error),
    schedule: Schedule.spaced("200 millis"),
    times: 3
  })
