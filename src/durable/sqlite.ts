/**
 * The smallest `SqlClient` over Node's built-in `node:sqlite`, for the
 * durable store's embedded default. `@effect/sql-sqlite-node` has no release
 * for effect 4.1 yet; this module goes away when it does (decision 071).
 *
 * One synchronous connection, lent to one statement or one transaction at a
 * time. WAL mode lets several processes share one file; transactions begin
 * `IMMEDIATE` so a writer waits for the lock up front instead of failing
 * half-way with `SQLITE_BUSY`. A statement waits for another process's lock
 * in short synchronous steps with the event loop free between them, so a
 * signal ends the program at once (decision 086). The file is private to its
 * owner (decision 085), checked when opened, and once a statement finds it
 * damaged every later one fails the same way: a damaged store fails its
 * command instead of keeping the engine retrying for ever (decision 086).
 *
 * @since 0.2.0
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import { ReadConnection } from "./readConnection.js"
import { isDamagedStore } from "./storeFault.js"
import { prepareStoreFile, storeFilesWarning, tightenStoreFiles } from "./storeFiles.js"
import { closingWaitMillis, LockWaits, type StoreTimings, storeTimings } from "./storeTimings.js"

/**
 * SQLite's own wait for a lock, in one synchronous step: short, since the
 * event loop (and with it every signal handler) waits meanwhile.
 */
const busyStepMillis = 50

/** The pause between two steps of waiting for a lock, with the event loop free. */
const busyPauseMillis = 25

// node:sqlite reports SQLite's result code as `errcode`; Effect's classifier reads `errno`. Without
// it a busy database reads as an unknown error, and nothing retries it.
const classifiable = (cause: unknown): unknown => {
  const error = cause as { errcode?: unknown; errno?: unknown } | null
  if (typeof error === "object" && error !== null && typeof error.errcode === "number" && error.errno === undefined) {
    error.errno = error.errcode
  }
  return cause
}

/** SQLite's primary result code for an error node:sqlite threw, if it carries one. */
const resultCode = (cause: unknown): number | undefined => {
  const code = (cause as { errcode?: unknown } | null)?.errcode
  return typeof code === "number" ? code & 0xff : undefined
}

/** SQLITE_BUSY or SQLITE_LOCKED: another connection holds what the statement needs. */
const isBusy = (cause: unknown): boolean => resultCode(cause) === 5 || resultCode(cause) === 6

const sqlError = (cause: unknown, operation: string) =>
  new SqlError.SqlError({
    reason: SqlError.classifySqliteError(classifiable(cause), { message: `SQLite: ${String((cause as Error)?.message ?? cause)}`, operation })
  })

/**
 * Runs `statement` (a synchronous node:sqlite call), waiting up to
 * `busyMillis` for a lock another process holds: in steps of SQLite's own
 * short busy wait, with the event loop free between them. The pauses can be
 * interrupted even where the statement runs uninterruptibly (`BEGIN` of a
 * transaction, a finalizer): a signal ends the program at once rather than
 * after the lock's wait, and a transaction that never began needs no undoing.
 * The first try always runs, so a store that is free is never skipped.
 */
const waitingForLocks = <A>(
  statement: () => A,
  operation: string,
  timings: StoreTimings,
  closing: { readonly deadline: number },
  onError: (error: SqlError.SqlError) => void = () => {}
): Effect.Effect<A, SqlError.SqlError> => {
  let deadline: number | undefined
  const attempt: Effect.Effect<A, SqlError.SqlError> = Effect.suspend(() => {
    try {
      return Effect.succeed(statement())
    } catch (cause) {
      // The deadline counts from the first refusal: a statement that gets its lock costs nothing more.
      deadline ??= Date.now() + timings.busyMillis
      if (isBusy(cause) && Date.now() < Math.min(deadline, closing.deadline)) {
        return Effect.andThen(Effect.interruptible(Effect.sleep(busyPauseMillis)), attempt)
      }
      // A damaged store's remembered error is thrown again as it is.
      const error = SqlError.isSqlError(cause) ? cause : sqlError(cause, operation)
      onError(error)
      return Effect.fail(error)
    }
  })
  return attempt
}

// node:sqlite binds numbers, bigints, strings, bytes and null; the compiler may hand it more.
const bindable = (value: unknown): SQLInputValue => {
  if (value === undefined || value === null) return null
  if (typeof value === "boolean") return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "string") return value
  if (value instanceof Uint8Array) return value
  return JSON.stringify(value)
}

/** While the store is open, lock waits have only their own deadline. */
const notClosing = { deadline: Number.POSITIVE_INFINITY }

/**
 * Opens the file (made private first: decision 085), in WAL mode, and checks
 * it: a damaged page anywhere fails the open, not a statement minutes later.
 * The database is closed with the scope, also when a later step fails.
 */
const openDatabase = (filename: string, timings: StoreTimings) =>
  Effect.gen(function*() {
    const file = filename === ":memory:" ? undefined : filename
    const warning = file === undefined
      ? undefined
      : yield* Effect.try({ try: () => prepareStoreFile(file), catch: (cause) => sqlError(cause, "open") })
    const { DatabaseSync } = yield* Effect.promise(() => import("node:sqlite"))
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: (): DatabaseSync => new DatabaseSync(filename), catch: (cause) => sqlError(cause, "open") }),
      (db) => Effect.sync(() => db.isOpen && db.close())
    )
    const step = (sql: string) => waitingForLocks(() => db.exec(sql), "open", timings, notClosing)
    yield* step(`PRAGMA busy_timeout = ${busyStepMillis}`)
    if (file !== undefined) yield* step("PRAGMA journal_mode = WAL")
    yield* step("PRAGMA synchronous = NORMAL")
    if (file !== undefined) {
      // quick_check reads every page (about 25 ms for 35 MB) but skips the slower index checks.
      const problems = yield* waitingForLocks(
        () => db.prepare("PRAGMA quick_check").all().map((row) => String(Object.values(row)[0])),
        "open",
        timings,
        notClosing
      )
      if (problems.join() !== "ok") {
        // As SQLite reports damage (SQLITE_CORRUPT), with quick_check's first finding.
        const damage = Object.assign(new Error(`database disk image is malformed (${problems[0]})`), { errcode: 11 })
        return yield* Effect.fail(sqlError(damage, "open"))
      }
    }
    // Companions an older version (or another program) made readable meanwhile.
    const later = file === undefined ? undefined : yield* Effect.try({
      try: () => storeFilesWarning(file, tightenStoreFiles(file)),
      catch: (cause) => sqlError(cause, "open")
    })
    return { db, warning: warning ?? later }
  })

const makeConnection = (
  db: DatabaseSync,
  timings: StoreTimings,
  closing: { readonly deadline: number }
): SqlConnection.Connection => {
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
  // The first damage found, given again to every later statement: a damaged page the next
  // statement happens not to read does not make the file sound, and the engine would go on
  // retrying its own statements for ever (decision 086).
  let damaged: SqlError.SqlError | undefined
  const remember = (error: SqlError.SqlError) => {
    if (isDamagedStore(error)) damaged = error
  }
  const rows = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    waitingForLocks(() => {
      if (damaged !== undefined) throw damaged
      const statement = prepare ? prepared(sql) : db.prepare(sql)
      const values = params.map(bindable)
      return statement.columns().length > 0
        ? statement.all(...values) as ReadonlyArray<Record<string, unknown>>
        : (statement.run(...values), [])
    }, "execute", timings, closing, remember)
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

/** A `SqlClient` for one synchronous connection, lent to one statement or transaction at a time. */
const clientOf = (connection: SqlConnection.Connection, isTransaction: () => boolean) =>
  Effect.gen(function*() {
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
      isTransaction,
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/** The read-only connection to `file` (`ReadConnection`), closed with the scope. */
const readConnection = (file: string, timings: StoreTimings) =>
  Effect.gen(function*() {
    const { DatabaseSync } = yield* Effect.promise(() => import("node:sqlite"))
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: (): DatabaseSync => new DatabaseSync(file, { readOnly: true }), catch: (cause) => sqlError(cause, "open") }),
      (db) => Effect.sync(() => db.isOpen && db.close())
    )
    yield* waitingForLocks(() => db.exec(`PRAGMA busy_timeout = ${busyStepMillis}`), "open", timings, notClosing)
    return yield* clientOf(makeConnection(db, timings, notClosing), () => db.isTransaction)
  })

/**
 * A `SqlClient` on the SQLite file `filename` (`":memory:"` for a private
 * in-memory database), closed with the layer's scope. A store file other
 * users can read and this process cannot make private is named in a
 * warning (logged with the annotation `module: "effect-user-interaction/durable"`).
 *
 * @since 0.2.0
 */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient | LockWaits, SqlError.SqlError> =>
  Layer.effectContext(
    Effect.gen(function*() {
      const timings = storeTimings()
      const { db, warning } = yield* openDatabase(filename, timings)
      if (warning !== undefined) {
        yield* Effect.logWarning(warning).pipe(Effect.annotateLogs({ module: "effect-user-interaction/durable" }))
      }
      const closing = { deadline: Number.POSITIVE_INFINITY }
      const client = yield* clientOf(makeConnection(db, timings, closing), () => db.isTransaction)
      const waits = LockWaits.of({
        closing: Effect.sync(() => {
          closing.deadline = Math.min(closing.deadline, Date.now() + closingWaitMillis)
        })
      })
      const context = Context.make(SqlClient.SqlClient, client).pipe(Context.add(LockWaits, waits))
      return filename === ":memory:" ? context : Context.add(context, ReadConnection, yield* readConnection(filename, timings))
    })
  ).pipe(Layer.provide(Reactivity.layer))
