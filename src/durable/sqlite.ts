/**
 * The smallest `SqlClient` over Node's built-in `node:sqlite`, for the
 * durable store's embedded default. `@effect/sql-sqlite-node` has no release
 * for effect 4.1 yet; this module goes away when it does (decision 071).
 *
 * One synchronous connection, lent to one statement or one transaction at a
 * time. WAL mode and a busy timeout let several processes share one file;
 * transactions begin `IMMEDIATE` so a writer waits for the lock up front
 * instead of failing half-way with `SQLITE_BUSY`.
 *
 * @since 0.2.0
 */
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"

/** How long a statement waits for another process's write lock. */
const busyTimeoutMillis = 10_000

// node:sqlite reports SQLite's result code as `errcode`; Effect's classifier reads `errno`. Without
// it a busy database reads as an unknown error, and nothing retries it.
const classifiable = (cause: unknown): unknown => {
  const error = cause as { errcode?: unknown; errno?: unknown } | null
  if (typeof error === "object" && error !== null && typeof error.errcode === "number" && error.errno === undefined) {
    error.errno = error.errcode
  }
  return cause
}

const sqlError = (cause: unknown, operation: string) =>
  new SqlError.SqlError({
    reason: SqlError.classifySqliteError(classifiable(cause), { message: `SQLite: ${String((cause as Error)?.message ?? cause)}`, operation })
  })

// node:sqlite binds numbers, bigints, strings, bytes and null; the compiler may hand it more.
const bindable = (value: unknown): SQLInputValue => {
  if (value === undefined || value === null) return null
  if (typeof value === "boolean") return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "string") return value
  if (value instanceof Uint8Array) return value
  return JSON.stringify(value)
}

const openDatabase = (filename: string) =>
  Effect.tryPromise({
    try: async () => {
      // Its folder too (the default store's `~/.local/state/ask-user`): one that cannot be made is a
      // store that cannot be opened.
      if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
      const { DatabaseSync } = await import("node:sqlite")
      const db: DatabaseSync = new DatabaseSync(filename)
      db.exec(`PRAGMA busy_timeout = ${busyTimeoutMillis}`)
      if (filename !== ":memory:") db.exec("PRAGMA journal_mode = WAL")
      db.exec("PRAGMA synchronous = NORMAL")
      return db
    },
    catch: (cause) => sqlError(cause, "open")
  })

const makeConnection = (db: DatabaseSync): SqlConnection.Connection => {
  const cache = new Map<string, StatementSync>()
  const prepared = (sql: string) => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      if (cache.size > 200) cache.clear()
      cache.set(sql, statement)
    }
    return statement
  }
  const rows = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    Effect.try({
      try: () => {
        const statement = prepare ? prepared(sql) : db.prepare(sql)
        const values = params.map(bindable)
        return statement.columns().length > 0
          ? statement.all(...values) as ReadonlyArray<Record<string, unknown>>
          : (statement.run(...values), [])
      },
      catch: (cause) => sqlError(cause, "execute")
    })
  const withTransform = (
    effect: Effect.Effect<ReadonlyArray<any>, SqlError.SqlError>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => transformRows === undefined ? effect : Effect.map(effect, transformRows)
  const values = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    Effect.map(rows(sql, params, prepare), (all) => all.map((row) => Object.values(row)))
  return {
    execute: (sql, params, transformRows) => withTransform(rows(sql, params, true), transformRows),
    executeRaw: (sql, params) => rows(sql, params, true),
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(withTransform(rows(sql, params, true), transformRows)),
    executeValues: (sql, params) => values(sql, params, true),
    executeValuesUnprepared: (sql, params) => values(sql, params, false),
    executeUnprepared: (sql, params, transformRows) => withTransform(rows(sql, params, false), transformRows)
  }
}

/**
 * A `SqlClient` on the SQLite file `filename` (`":memory:"` for a private
 * in-memory database), closed with the layer's scope.
 *
 * @since 0.2.0
 */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const db = yield* Effect.acquireRelease(openDatabase(filename), (db) => Effect.sync(() => db.close()))
      const connection = makeConnection(db)
      const semaphore = yield* Semaphore.make(1)
      const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
      const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
        Effect.as(
          Effect.tap(restore(semaphore.take(1)), () => Effect.addFinalizer(() => semaphore.release(1))),
          connection
        )
      )
      return yield* SqlClient.make({
        acquirer,
        transactionAcquirer,
        compiler: Statement.makeCompilerSqlite(),
        driver: "node:sqlite",
        beginTransaction: "BEGIN IMMEDIATE",
        isTransaction: () => db.isTransaction,
        spanAttributes: [["db.system.name", "sqlite"]]
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))
