/**
 * Opening a durable store again while another process holds its lock, and
 * only then.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { SqlError } from "effect/sql"

/** Whether `error` says another process held the store's lock past the busy timeout. */
export const isStoreLocked = (error: unknown): boolean =>
  SqlError.isSqlError(error) && error.reason._tag === "LockTimeoutError"

/**
 * Builds `layer` again, from scratch, while it fails because the store is
 * locked: several processes opening one new SQLite store at once (an asker,
 * `ask-user status` polling it, answerers) each create tables and take the
 * engine's locks, and on a loaded machine one can hold the write lock past
 * the busy timeout. Every step of opening is idempotent; each failed attempt's
 * resources are released before the next. Gives up after about a minute.
 */
export const retryWhileLocked = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.effectContext(Effect.flatMap(Effect.scope, (scope) =>
    Effect.retry(
      Effect.flatMap(Scope.fork(scope), (attempt) =>
        Layer.buildWithScope(layer, attempt).pipe(Effect.onError((cause) => Scope.close(attempt, Exit.failCause(cause))))),
      { while: isStoreLocked, schedule: Schedule.exponential("200 millis"), times: 4 }
    )))

/**
 * Runs one step of opening a store (creating its table, say) again, up to
 * three more times, when it fails for anything but a lock: two processes
 * creating a new PostgreSQL store's table at once can both try (IF NOT
 * EXISTS is not atomic there), and the loser's retry finds it. A lock is left
 * to `retryWhileLocked` around the whole store: retried here too, each of its
 * attempts would wait out the busy timeout four times, and a store locked
 * for good would take minutes to fail instead of about one.
 */
export const retryUnlessLocked = <A, E, R>(step: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(step, { while: (error) => !isStoreLocked(error), schedule: Schedule.spaced("200 millis"), times: 3 })
