/**
 * The durable store: a SQL database (SQLite file, in-memory SQLite or
 * PostgreSQL) holding Effect's workflow engine (`ClusterWorkflowEngine`, its
 * runners chosen by `engine.ts`) and the asks table the inbox reads. Every
 * durable ask and every answer goes through it.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as RcRef from "effect/RcRef"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
// The module itself, not the barrel's namespace: the program's bundle then keeps only what is used.
import * as Arr from "effect/Array"
import { SqlClient, SqlError } from "effect/sql"
import type { WorkflowEngine } from "effect/workflow"
import type { Answerer } from "../Answerer.js"
import { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import {
  type AskClaimed,
  AskNotPending,
  type InvalidAnswer,
  type NotAuthorized,
  ProviderFailed,
  UnknownAsk
} from "../UserInteractionError.js"
import { answerTooLarge } from "./answerLimit.js"
import {
  AskActivities,
  AskWaiter,
  AskWaiterLayer,
  AskWorkflow,
  AskWorkflowLayer,
  completeSettlement,
  type Outcome,
  type SettledStatus
} from "./AskWorkflow.js"
import { makeClaims } from "./claims.js"
import { ReadConnection } from "./readConnection.js"
import { makeSettledWatch } from "./settledWatch.js"
import { makeDevices, type PairedDevices } from "./devices.js"
import type { DurableClusterError } from "./DurableClusterError.js"
import { boundedShutdown } from "./boundedShutdown.js"
import { engineLayer, RunnersChanged, type Transport, transportFor } from "./engine.js"
import { type HistoryOptions, type HistoryScan, makeHistory } from "./history.js"
import { asksTable, migrateStore } from "./migrations.js"
import { makePairing } from "./pairing.js"
import { type AskClaim, type DurableReceipt, readReceipt, type SettleOptions } from "./receipts.js"
import { retryUnlessLocked, retryWhileLocked, storeFaultsAsFailures } from "./retryWhileLocked.js"
import { isDamagedStore, storeFaultWords } from "./storeFault.js"
import { LockWaits, type StoreTimings, storeTimings } from "./storeTimings.js"
import { pgDriverUrl, shownStoreUrl, sqlitePath, storeUrlProblem } from "./storeUrl.js"

/** Where an ask stands: pending, or how it was settled. @since 0.2.0 */
export type AskStatus = "pending" | SettledStatus

/**
 * One row of the asks table, decoded.
 *
 * @since 0.2.0
 */
export interface AskRecord {
  readonly id: string
  readonly executionId: string
  readonly request: AskUserQuestionRequest
  readonly askedAt: Date
  readonly expiresAt?: Date | undefined
  readonly status: AskStatus
  readonly answer?: AskUserQuestionAnswer | undefined
  /** When it was settled; the time of the receipt. @since 0.3.0 */
  readonly settledAt?: Date | undefined
  /** Who settled it, where, when: every settled ask has one. @since 0.3.0 */
  readonly receipt?: DurableReceipt | undefined
  /** The last claim taken on a pending ask, live or lapsed (`DurableStore.databaseNow` tells). @since 0.3.0 */
  readonly claim?: AskClaim | undefined
}

/**
 * A row of the asks table that cannot be read back (its request or answer
 * does not decode, or a time is not a date): `scan` reports it instead of
 * failing the whole listing.
 *
 * @since 0.2.0
 */
export interface UnreadableAsk {
  readonly id: string
  /** What is wrong with the row, as a phrase. */
  readonly reason: string
}

/**
 * What `DurableStore.scan` found: the pending asks it could read, oldest
 * first, and the pending rows it could not.
 *
 * @since 0.2.0
 */
export interface PendingScan {
  readonly asks: ReadonlyArray<AskRecord>
  readonly unreadable: ReadonlyArray<UnreadableAsk>
}

/**
 * The store's service: start or join an ask's workflow and wait for it,
 * read the asks table, settle an ask (first recorded outcome wins).
 *
 * @since 0.2.0
 */
export class DurableStore extends Context.Service<DurableStore, {
  /**
   * Starts the ask's workflow, or joins it when the id is known, and waits for
   * its outcome. A store that cannot serve the engine (unreachable, locked by
   * another process) is waited for, for 30 s; then `ProviderFailed` naming
   * the store and why, the ask still pending. A damaged store fails at once.
   * The store's faults elsewhere are defects: a `ProviderFailed` naming it.
   */
  readonly run: (ask: {
    readonly id: string
    readonly request: AskUserQuestionRequest
    readonly expiresIn?: Duration.Input | undefined
  }) => Effect.Effect<Outcome, ProviderFailed>
  /**
   * As `run`, giving the ask's record too, as it stands once settled (its
   * answer and receipt): read once, for a caller that needs both.
   *
   * @since 0.3.0
   */
  readonly runRecorded: (ask: {
    readonly id: string
    readonly request: AskUserQuestionRequest
    readonly expiresIn?: Duration.Input | undefined
  }) => Effect.Effect<{ readonly outcome: Outcome; readonly record: AskRecord | undefined }, ProviderFailed>
  /**
   * Starts the ask's workflow without waiting for it, and records the ask as
   * pending at once, so answerers see it even when no process runs the
   * engine after this one. An id already known is left as it is.
   *
   * @since 0.3.0
   */
  readonly submit: (ask: {
    readonly id: string
    readonly request: AskUserQuestionRequest
    readonly expiresIn?: Duration.Input | undefined
  }) => Effect.Effect<void, ProviderFailed>
  /** The ask with this id, if any; a row that cannot be read is a defect naming the ask. */
  readonly find: (id: string) => Effect.Effect<AskRecord | undefined>
  /** Every pending ask that can be read, oldest first (unreadable rows are left out). */
  readonly pending: Effect.Effect<ReadonlyArray<AskRecord>>
  /** Every pending ask, oldest first, and the pending rows that cannot be read. */
  readonly scan: Effect.Effect<PendingScan>
  /**
   * Records the outcome and its receipt if the ask is still pending and wakes
   * its workflow, in one transaction. An answer, cancel or decline is refused
   * (`NotAuthorized`, `AskClaimed`) unless the ask's `answerableBy` matches
   * `as.by` and no one else holds a live claim (or `as.force`); the ask then
   * stays pending. An answer over 64 KiB of JSON is `InvalidAnswer` and
   * nothing is recorded.
   */
  readonly settle: (
    id: string,
    outcome: Outcome,
    as?: SettleOptions
  ) => Effect.Effect<void, AskNotPending | UnknownAsk | InvalidAnswer | NotAuthorized | AskClaimed>
  /** Claims a pending ask for `by` for `ttlMillis` by the database's clock, or renews their claim. @since 0.3.0 */
  readonly claim: (
    id: string,
    by: Answerer,
    ttlMillis: number
  ) => Effect.Effect<AskClaim, UnknownAsk | AskNotPending | NotAuthorized | AskClaimed>
  /** Ends `by`'s claim; `AskClaimed` when someone else holds a live one. @since 0.3.0 */
  readonly release: (id: string, by: Answerer) => Effect.Effect<void, UnknownAsk | AskClaimed>
  /** The database's clock, which times claims. @since 0.3.0 */
  readonly databaseNow: Effect.Effect<Date>
  /** Settled asks, newest first, and the settled rows that cannot be read. @since 0.3.0 */
  readonly history: (options?: HistoryOptions) => Effect.Effect<HistoryScan>
  /** Pairing codes and paired devices (`devices.ts`, `pairing.ts`). @since 0.3.0 */
  readonly devices: PairedDevices
}>()("effect-user-interaction/durable/DurableStore") {
  /**
   * The store at `url`: `sqlite:PATH` (a file, created with its tables on
   * first use), `sqlite::memory:`, or `postgres://…`. With `runner: false`
   * the process only sends and reads (answerers, `ask-user pending`): it
   * claims no shards, so it never runs asks itself. A runner on a
   * PostgreSQL store listens for the store's other agents
   * (`ASK_USER_CLUSTER_HOST`, `ASK_USER_CLUSTER_PORT`): a bad setting or an
   * address it cannot listen on is `DurableClusterError`.
   *
   * @since 0.2.0
   */
  static readonly layer = (
    url: string,
    options?: { readonly runner?: boolean | undefined }
  ): Layer.Layer<DurableStore, SqlError.SqlError | DurableStoreUrlError | DurableClusterError> =>
    retryWhileLocked(
      Layer.effect(DurableStore, make(shownStoreUrl(url), storeTimings(), transportFor(url))).pipe(
        Layer.provide([AskWorkflowLayer, AskWaiterLayer]),
        Layer.provide(activitiesLayer),
        Layer.provideMerge(engineLayer(transportFor(url), options?.runner ?? true)),
        Layer.provide(migrations),
        Layer.provide(sqlLayer(url)),
        storeFaultsAsFailures,
        (layer) => boundedShutdown(layer, shutdownLimit)
      )
    )
}

/**
 * A store URL that names no supported database.
 *
 * @since 0.2.0
 */
export class DurableStoreUrlError extends Data.TaggedError("DurableStoreUrlError")<{
  /** The URL with any password masked (`postgres://user:***@host/db`): errors get logged. */
  readonly url: string
  readonly message: string
}> {}

const table = asksTable

/** The SQL client for `url`, its driver loaded only when that kind of store is used. */
const sqlLayer = (url: string): Layer.Layer<SqlClient.SqlClient | LockWaits, SqlError.SqlError | DurableStoreUrlError> => {
  // An empty SQLite path would open a private throwaway database: an ask nobody else can see.
  const problem = storeUrlProblem(url)
  if (problem !== undefined) {
    return Layer.effectContext(
      Effect.fail(
        new DurableStoreUrlError({ url: shownStoreUrl(url), message: `Unsupported store URL "${shownStoreUrl(url)}": use ${problem}.` })
      )
    )
  }
  const filename = sqlitePath(url)
  if (filename !== undefined) {
    return Layer.unwrap(Effect.promise(async () => {
      const sqlite = await import("./sqlite.js")
      return sqlite.layer(filename)
    }))
  }
  return Layer.unwrap(Effect.promise(async () => {
    const { PgClient } = await import("@effect/sql-pg")
    // A PostgreSQL statement waits for locks as the server decides: nothing to shorten here.
    return Layer.merge(PgClient.layer({ url: Redacted.make(pgDriverUrl(url)) }), Layer.succeed(LockWaits, { closing: Effect.void }))
  }))
}

// Versioned steps that upgrade a store in place (migrations.ts).
const migrations = Layer.effectDiscard(migrateStore.pipe(retryUnlessLocked))

const decodeRequest = Schema.decodeUnknownSync(AskUserQuestionRequest)
const decodeAnswer = Schema.decodeUnknownSync(AskUserQuestionAnswer)

/**
 * The columns read back. Times come as text: SQLite hands node:sqlite an
 * integer past 2^53 only by failing the whole statement, and one such row
 * made every listing fail.
 */
const columns = "id, execution_id, request, CAST(asked_at AS TEXT) AS asked_at, " +
  "CAST(expires_at AS TEXT) AS expires_at, status, answer, CAST(settled_at AS TEXT) AS settled_at, receipt, " +
  "claim_by_id, claim_by_name, CAST(claim_until AS TEXT) AS claim_until"

interface Row {
  readonly id: string
  readonly execution_id: string
  readonly request: string
  readonly asked_at: number | string
  readonly expires_at: number | string | null
  readonly status: string
  readonly answer: string | null
  readonly settled_at: number | string | null
  readonly receipt: string | null
  readonly claim_by_id: string | null
  readonly claim_by_name: string | null
  readonly claim_until: number | string | null
}

const statuses: ReadonlySet<string> = new Set<AskStatus>(["pending", "answered", "cancelled", "declined", "expired", "aborted"])

/** A stored time as a date; throws when it is not one (`toISOString` would throw later, far from here). */
const toDate = (millis: number | string, what: string): Date => {
  const date = new Date(Number(millis))
  if (Number.isNaN(date.getTime())) throw new Error(`its ${what} is not a valid date`)
  return date
}

/** Reads one part of a row, naming the part when it cannot be read. */
const readPart = <A>(what: string, read: () => A): A => {
  try {
    return read()
  } catch (error) {
    throw new Error(`its ${what} cannot be read (${(error as Error).message.split("\n")[0]})`)
  }
}

/** A row as a record, or why it cannot be read. */
const readRow = (row: Row): Result.Result<AskRecord, UnreadableAsk> => {
  try {
    const record = {
      id: row.id,
      executionId: row.execution_id,
      request: readPart("request", () => decodeRequest(JSON.parse(row.request))),
      askedAt: toDate(row.asked_at, "time of asking"),
      expiresAt: row.expires_at === null ? undefined : toDate(row.expires_at, "expiry"),
      status: readPart("status", () => {
        if (!statuses.has(row.status)) throw new Error(`${JSON.stringify(row.status)} is not a status`)
        return row.status as AskStatus
      }),
      answer: row.answer === null ? undefined : readPart("answer", () => decodeAnswer(JSON.parse(row.answer!)))
    }
    return Result.succeed({ ...record, ...readSettlement(row, record) })
  } catch (error) {
    return Result.fail({ id: row.id, reason: (error as Error).message })
  }
}

/** A row's receipt once settled, or its claim while pending (receipts.ts, claims.ts). */
const readSettlement = (row: Row, record: Pick<AskRecord, "status" | "askedAt" | "answer" | "request">) => {
  if (record.status === "pending") {
    return row.claim_by_id === null || row.claim_until === null ? {} : {
      claim: {
        by: row.claim_by_name === null ? { id: row.claim_by_id } : { id: row.claim_by_id, name: row.claim_by_name },
        until: toDate(row.claim_until, "claim's end")
      }
    }
  }
  if (row.settled_at === null) return {}
  const settledAt = toDate(row.settled_at, "time of settling")
  // An expiry under onTimeout "recommended" hands the asker the recommended options: nobody answered.
  const defaulted = (record.answer as { readonly defaulted?: unknown } | undefined)?.defaulted === true ||
    (record.status === "expired" && record.request.onTimeout === "recommended")
  return { settledAt, receipt: readPart("receipt", () => readReceipt(row.receipt, record.askedAt, settledAt, defaulted)) }
}

/** A row as a record; an unreadable one is a defect that names the ask. */
const toRecord = (row: Row): AskRecord =>
  Result.getOrThrowWith(readRow(row), ({ id, reason }) => new Error(`The ask "${id}" cannot be read from the store: ${reason}.`))

/** Whether a row is a pending ask whose deadline has passed by `now`, read as `expireOverdue` reads it. */
const isOverdue = (now: number) => (row: Row): boolean =>
  row.status === "pending" && row.expires_at !== null && Number(row.expires_at) <= now

const activitiesLayer = Layer.effect(
  AskActivities,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return AskActivities.of({
      publish: ({ askedAt, executionId, expiresInMillis, id, request }) =>
        Effect.gen(function*() {
          const expiresAt = expiresInMillis === undefined ? null : askedAt + expiresInMillis
          yield* sql`INSERT INTO ${sql(table)} (id, execution_id, request, asked_at, expires_at, status)
            VALUES (${id}, ${executionId}, ${request}, ${askedAt}, ${expiresAt}, 'pending')
            ON CONFLICT (id) DO NOTHING`
        }).pipe(Effect.orDie),
      // The first recorded outcome wins: an answerer may have settled the row while the expiry was
      // firing, and then its outcome is the ask's. One statement when the expiry is the first.
      record: (id, status) =>
        Effect.gen(function*() {
          const recorded = yield* sql<{ readonly status: string }>`UPDATE ${sql(table)}
            SET status = ${status}, settled_at = ${Date.now()}
            WHERE id = ${id} AND status = 'pending' RETURNING status`
          const rows = recorded.length > 0
            ? recorded
            : yield* sql<{ readonly status: string }>`SELECT status FROM ${sql(table)} WHERE id = ${id}`
          return { status: (rows[0]?.status ?? status) as SettledStatus }
        }).pipe(Effect.orDie)
    })
  })
)

/** The workflow's payload for an ask, timed from now: the request as JSON, without its signal. */
const payloadOf = ({ expiresIn, id, request }: {
  readonly id: string
  readonly request: AskUserQuestionRequest
  readonly expiresIn?: Duration.Input | undefined
}) => {
  const { signal: _signal, ...stored } = request
  const base = { id, request: JSON.stringify(stored), askedAt: Date.now() }
  return expiresIn === undefined
    ? base
    : { ...base, expiresInMillis: Duration.toMillis(Duration.fromInputUnsafe(expiresIn)) }
}

/** The runner an ask's waiter ran on went away (or never answered) before the outcome. */
class RunnerGone extends Data.TaggedError("RunnerGone")<{ readonly cause: unknown }> {}

/** A waiter's request renewed after `waiterRenewal`. */
class WaiterRenewal extends Data.TaggedError("WaiterRenewal") {}

/** A waiter interrupted on its runner: its shard moved away. */
class WaiterMoved extends Data.TaggedError("WaiterMoved") {}

/** How long one request to an ask's waiter lasts before it is sent again. */
const waiterRenewal = Duration.seconds(5)

/** Failures of a request to a runner that the next runner of the shard mends: retried. */
const isRunnerGone = (cause: unknown): boolean =>
  Predicate.isTagged(cause, "WaiterRenewal") || Predicate.isTagged(cause, "WaiterMoved") ||
  Predicate.isTagged(cause, "RunnerUnavailable") || Predicate.isTagged(cause, "RpcClientError") ||
  Predicate.isTagged(cause, "EntityNotAssignedToRunner") || Predicate.isTagged(cause, "MailboxFull")

/** A store that cannot serve the engine, while `run` waits for it to mend. */
class StoreOutage extends Data.TaggedError("StoreOutage")<{ readonly cause: unknown }> {}

/** The engine's errors for a store it cannot use: the cluster's persistence failures and SQL errors. */
const isStoreOutage = (defect: unknown): boolean =>
  Predicate.isTagged(defect, "PersistenceError") || SqlError.isSqlError(defect)

/** How often `run` checks the store while it waits, and tries the engine again after an outage. */
const checkInterval = "1 second"

/**
 * Checks, while an ask waits, that the store can still serve the engine: a
 * write transaction (on SQLite it takes the write lock) every second. The
 * engine itself retries a store it cannot use for ever (a damaged file, a
 * lock that never clears: `ask-user --durable` hung), so this decides when
 * to give up: at once for a damaged store, else once it has failed for
 * `giveUpMillis` without a success between (decision 086). Never succeeds.
 */
const watchStore = (sql: SqlClient.SqlClient, timings: StoreTimings): Effect.Effect<never, StoreOutage> => {
  const patience = Duration.millis(timings.busyMillis + 5_000)
  const probe = sql.withTransaction(sql`SELECT 1`).pipe(
    Effect.timeoutOrElse({
      duration: patience,
      orElse: () => Effect.fail(new Error(`it did not answer for ${Duration.format(patience)}`))
    })
  )
  return Effect.gen(function*() {
    let failingSince: number | undefined
    // The store's own error says more than a probe that timed out waiting behind the engine's statements.
    let fault: unknown
    for (;;) {
      const began = Date.now()
      const result = yield* Effect.result(probe)
      if (Result.isSuccess(result)) {
        failingSince = undefined
        fault = undefined
      } else {
        failingSince ??= began
        if (SqlError.isSqlError(result.failure) || fault === undefined) fault = result.failure
        if (isDamagedStore(fault) || Date.now() - failingSince >= timings.giveUpMillis) {
          return yield* Effect.fail(new StoreOutage({ cause: fault }))
        }
      }
      yield* Effect.sleep(checkInterval)
    }
  })
}

/** The message an answerer gets when the ask was settled before. */
export const notPendingMessage = (record: AskRecord): string => {
  const how = record.status === "expired"
    ? "has expired"
    : record.status === "aborted"
    ? "was withdrawn by the agent"
    : `was already ${record.status}`
  return `The ask "${record.id}" is not pending: it ${how}.`
}

/**
 * How long the store's release may take: a normal one ends in a second or two (the
 * shards handed off, entities given 2 s to finish); past this it is left behind
 * (`boundedShutdown.ts`).
 */
const shutdownLimit = Duration.seconds(5)

/** How long an answer's notice to the ask's runner may take to leave (decision 159). */
const nudgeFor = Duration.millis(250)

const make = (shownUrl: string, timings: StoreTimings, transport: Transport) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const engine = yield* Effect.context<WorkflowEngine.WorkflowEngine>()
  // Built last, so this runs first when the store closes: the engine's shutdown (releasing its
  // shards, leaving the runners' table) then waits at most a second for a lock (decision 086).
  const lockWaits = yield* LockWaits
  yield* Effect.addFinalizer(() => lockWaits.closing)
  /** The store's fault as a `ProviderFailed` naming the store and why. */
  const storeFailed = (cause: unknown, more = "") =>
    new ProviderFailed({ message: `The durable store ${shownUrl} cannot be used: ${storeFaultWords(cause)}${more}.`, cause })
  /** A SQL or engine failure of the store as a defect that names the store (decision 086). */
  const dieNamingStore = <A, E, R>(
    effect: Effect.Effect<A, E | SqlError.SqlError, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
    effect.pipe(
      Effect.catchIf(SqlError.isSqlError, (error) => Effect.die(storeFailed(error))),
      Effect.catchDefect((defect) => Effect.die(isStoreOutage(defect) ? storeFailed(defect) : defect))
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>
  /**
   * Records the expiry of every pending ask whose deadline has passed. The
   * engine's clock does this only while some process runs the engine; without
   * this, an ask past its deadline stayed pending while no agent ran, and an
   * answer to it was taken. Read first, so that a store with nothing overdue
   * (the usual case, polled by every inbox) takes no write lock.
   */
  const expireOverdue = Effect.suspend(() => {
    const now = Date.now()
    return sql<{ readonly id: string }>`SELECT id FROM ${sql(table)}
      WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ${now}`.pipe(
      Effect.flatMap((overdue) =>
        overdue.length === 0 ? Effect.void : sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql<{ readonly execution_id: string }>`UPDATE ${sql(table)}
            SET status = 'expired', settled_at = ${now}
            WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ${now} RETURNING execution_id`
          // The workflow settles as the engine's own clock would have settled it: ASK_TIMEOUT.
          for (const row of rows) {
            yield* completeSettlement(row.execution_id, { status: "expired" }).pipe(Effect.provideContext(engine))
          }
        }))
      )
    )
  })
  const findNow = (id: string) =>
    sql<Row>`SELECT ${sql.literal(columns)} FROM ${sql(table)} WHERE id = ${id}`.pipe(
      Effect.map((rows) => rows.length === 0 ? undefined : toRecord(rows[0]!))
    )
  /**
   * The ask's record, its expiry recorded first when its deadline has
   * passed: the row is read once, and only an overdue one costs more.
   */
  const findFresh = (id: string) =>
    sql<Row>`SELECT ${sql.literal(columns)} FROM ${sql(table)} WHERE id = ${id}`.pipe(
      Effect.flatMap((rows) =>
        rows.some(isOverdue(Date.now()))
          ? Effect.andThen(expireOverdue, findNow(id))
          : Effect.succeed(rows.length === 0 ? undefined : toRecord(rows[0]!))
      )
    )
  const find = (id: string) => dieNamingStore(findFresh(id))
  const claims = makeClaims({ sql, find: findFresh, notPendingMessage })
  const history = makeHistory({ sql, columns, readRow, expireOverdue })
  const waiters = yield* AskWaiter.client
  /**
   * Has the runner of the ask read its store again, now that the answer is committed (the
   * engine told it before; decision 159). Sent in the background, so that the answer returns
   * at once: one that does not arrive costs a poll. With no runner for the ask (no agent is
   * running) the engine would retry the send for ever, so it is given up after a moment, and
   * the store waits that moment for sends under way when it closes (`ask-user answer` ends
   * right after its answer).
   */
  const nudges = yield* FiberSet.make()
  yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(nudges).pipe(Effect.timeoutOrElse({ duration: nudgeFor, orElse: () => Effect.void })))
  const storeChanged = (executionId: string) =>
    transport._tag === "Single"
      ? Effect.void
      : FiberSet.run(
        nudges,
        waiters(executionId).storeChanged(undefined, { discard: true }).pipe(
          Effect.timeoutOrElse({ duration: nudgeFor, orElse: () => Effect.void }),
          Effect.ignoreCause
        )
      ).pipe(Effect.asVoid)
  const settle = (id: string, outcome: Outcome, as?: SettleOptions) => {
    const tooLarge = outcome.answer === undefined ? undefined : answerTooLarge(outcome.answer)
    if (tooLarge !== undefined) return Effect.fail(tooLarge)
    // No sweep of overdue asks first: the write below is refused past the deadline, and then
    // the ask's expiry is recorded and reported.
    return sql.withTransaction(Effect.gen(function*() {
        const now = Date.now()
        // Who may settle it, and who holds it (claims.ts): a refusal leaves the row as it was.
        const receipt = yield* claims.admit(id, outcome.status, as, now)
        const rows = yield* sql<{ readonly execution_id: string }>`UPDATE ${sql(table)}
          SET status = ${outcome.status}, settled_at = ${now}, receipt = ${receipt},
          answer = ${outcome.answer === undefined ? null : JSON.stringify(outcome.answer)}
          WHERE id = ${id} AND status = 'pending' AND (expires_at IS NULL OR expires_at > ${now})
          RETURNING execution_id`
        if (rows.length === 0) {
          // Its deadline may have passed since the check above: then it expires now.
          yield* expireOverdue
          const record = yield* findNow(id)
          return yield* record === undefined
            ? Effect.fail(new UnknownAsk({ message: `No ask has the id "${id}".` }))
            : Effect.fail(new AskNotPending({ message: notPendingMessage(record) }))
        }
        // In the same transaction, so the recorded outcome always reaches the workflow.
        yield* completeSettlement(rows[0]!.execution_id, outcome).pipe(Effect.provideContext(engine))
        return rows[0]!.execution_id
      })).pipe(
        Effect.tap(storeChanged),
        Effect.asVoid,
        dieNamingStore
      )
  }
  const pendingRows = sql<Row>`SELECT ${sql.literal(columns)} FROM ${sql(table)}
    WHERE status = 'pending' ORDER BY asked_at, id`
  // Read once; only a listing that holds an overdue ask records its expiry and reads again.
  const scan = pendingRows.pipe(
    Effect.flatMap((rows) => rows.some(isOverdue(Date.now())) ? Effect.andThen(expireOverdue, pendingRows) : Effect.succeed(rows)),
    Effect.map((rows): PendingScan => {
      const [asks, unreadable] = Arr.partition(rows, (row) => readRow(row))
      return { asks, unreadable }
    }),
    dieNamingStore
  )
  /**
   * One watch of the store for every ask this process waits for (`watchStore`), kept a while
   * after the last so that asks in a row share it: a watch per ask cost a transaction per
   * second per waiting ask. An outage ends the watch, so the next wait starts a fresh one.
   */
  const health = yield* RcRef.make({
    acquire: Effect.gen(function*() {
      const outage = yield* Deferred.make<never, StoreOutage>()
      yield* watchStore(sql, timings).pipe(Effect.onExit((exit) => Deferred.done(outage, exit)), Effect.forkScoped)
      return outage
    }),
    idleTimeToLive: "10 seconds"
  })
  const storeHealth = Effect.scoped(Effect.flatMap(RcRef.get(health), (outage) =>
    Deferred.await(outage).pipe(Effect.onError(() => RcRef.invalidate(health)))))
  const activities = yield* AskActivities
  const deviceOps = makeDevices(sql)
  const pairing = makePairing(sql, deviceOps)
  const devices: PairedDevices = {
    newCode: dieNamingStore(pairing.newCode),
    pair: (code, name) => dieNamingStore(pairing.pair(code, name)),
    authenticate: (credential) => dieNamingStore(deviceOps.authenticate(credential)),
    list: dieNamingStore(deviceOps.list),
    revoke: (idOrName) => dieNamingStore(deviceOps.revoke(idOrName)),
    remoteInbox: dieNamingStore(pairing.remoteInbox),
    announce: (url) => dieNamingStore(pairing.announce(url))
  }
  /**
   * The pending row, written before the workflow starts (left as it is when the id is known):
   * answerers see the ask at once, and an answer given before the engine runs the workflow
   * waits in the engine for it.
   */
  const publishRow = (payload: ReturnType<typeof payloadOf>, executionId: string) =>
    activities.publish({
      ...payload,
      executionId,
      expiresInMillis: "expiresInMillis" in payload ? payload.expiresInMillis : undefined
    })
  const runnersChanged = yield* RunnersChanged
  // On a SQLite file, read on a connection of its own: not behind this process's transactions.
  const reader = Option.getOrElse(yield* Effect.serviceOption(ReadConnection), () => sql)
  const settledRows = yield* makeSettledWatch(
    (ids) =>
      reader<{ readonly id: string; readonly status: SettledStatus }>`SELECT id, status FROM ${reader(table)}
      WHERE status != 'pending' AND ${reader.in("id", ids)}`,
    runnersChanged
  )
  /**
   * Waits for the ask's workflow on the runner that runs it (`AskWaiter`). A runner that went
   * away with the request (killed, its shard moving) is waited out: the request goes again to
   * the shard's next runner, as a rerun would join the ask there. A request is renewed every
   * `waiterRenewal` too: one that a moving shard dropped without a word would otherwise wait
   * for ever.
   */
  const awaitOutcome = (payload: ReturnType<typeof payloadOf>, executionId: string) =>
    waiters(executionId).await(payload).pipe(
      Effect.catchTag("PersistenceError", Effect.die),
      Effect.timeoutOrElse({ duration: waiterRenewal, orElse: () => Effect.fail(new WaiterRenewal()) }),
      Effect.mapError((cause) => new RunnerGone({ cause })),
      // The waiter interrupted on its runner (its shard moved away) ends the request as an
      // interruption; this fiber's own interruption still ends the wait at the retry's pause.
      Effect.catchCause((cause): Effect.Effect<never, RunnerGone> =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.fail(new RunnerGone({ cause: new WaiterMoved() }))
          : Effect.failCause(cause)
      ),
      Effect.catchDefect((defect) =>
        isStoreOutage(defect) ? Effect.die(defect) : Effect.fail(new RunnerGone({ cause: defect }))
      ),
      // Said at Debug, with why: a slow wake-up is a request that had to go again.
      Effect.tapError(({ cause }) => {
        const renewal = Predicate.isTagged(cause, "WaiterRenewal")
        return Effect.logDebug(
          `The waiter of ${executionId} is asked again: ${renewal ? "renewal" : String((cause as { _tag?: unknown })?._tag ?? cause)}`
        ).pipe(
          // Its runner went away, or its shard moved: the row is read often for a while.
          Effect.andThen(renewal ? Effect.void : settledRows.moving)
        )
      }),
      Effect.retry({ schedule: Schedule.spaced("100 millis"), while: ({ cause }) => isRunnerGone(cause) })
    )
  const waits = yield* FiberSet.make<Outcome, unknown>()
  /**
   * The ask's waiter, or its row once settled, whichever comes first (decision 169). A waiter
   * that lost is ended in the background: its interruption goes to a runner, which while the
   * shards move took longer than the wake-up it lost.
   */
  const waiterOrRow = (payload: ReturnType<typeof payloadOf>, executionId: string) =>
    Effect.gen(function*() {
      const waiter = yield* FiberSet.run(waits, awaitOutcome(payload, executionId))
      return yield* Effect.raceFirst(Fiber.join(waiter), settledRows.settled(payload.id)).pipe(
        Effect.ensuring(Effect.sync(() => waiter.interruptUnsafe()))
      )
    })
  const runRecorded = (ask: {
    readonly id: string
    readonly request: AskUserQuestionRequest
    readonly expiresIn?: Duration.Input | undefined
  }) => {
    const { id } = ask
    const payload = payloadOf(ask)
    const pendingHint = `; the ask "${id}" stays pending: ask again with the same id to wait for it`
    return AskWorkflow.executionId(payload).pipe(
      Effect.flatMap((executionId) =>
        Effect.andThen(
          publishRow(payload, executionId),
          // Single runners cannot reach each other: a caller waits through the engine's own polls.
          transport._tag !== "Single"
            // The row settled wakes the caller while the cluster cannot (shards moving, decision 169).
            ? waiterOrRow(payload, executionId)
            : AskWorkflow.execute(payload)
        )
      ),
      Effect.catchTag("RunnerGone", ({ cause }) => Effect.die(cause)),
      Effect.provideContext(engine),
      // The engine reports a store it cannot reach (a database restarting) as a defect. The ask
      // lives on in the store, and executing its workflow again joins it, as a rerun does: so
      // wait for the store, but no longer than `watchStore` would.
      Effect.catchDefect((defect) =>
        isStoreOutage(defect) ? Effect.fail(new StoreOutage({ cause: defect })) : Effect.die(defect)
      ),
      Effect.retry({
        while: ({ cause }) => !isDamagedStore(cause),
        schedule: Schedule.spaced(checkInterval).pipe(Schedule.upTo({ duration: Duration.millis(timings.giveUpMillis) }))
      }),
      // The answer is read from the asks table, where it is kept once (decision 087), with the
      // receipt the caller reports: one read.
      Effect.flatMap(({ status }) =>
        Effect.map(findNow(id), (record) => ({
          outcome: record?.answer === undefined || status !== "answered"
            ? { status }
            : { status, answer: record.answer } satisfies Outcome,
          record
        }))
      ),
      Effect.raceFirst(storeHealth),
      Effect.catchTag("StoreOutage", ({ cause }) =>
        Effect.fail(storeFailed(cause, isDamagedStore(cause) ? "" : pendingHint))),
      Effect.catchTag("SqlError", (error) => Effect.fail(storeFailed(error, pendingHint)))
    )
  }
  return DurableStore.of({
    devices,
    submit: (ask) => {
      const payload = payloadOf(ask)
      return AskWorkflow.executionId(payload).pipe(
        Effect.flatMap((executionId) => publishRow(payload, executionId)),
        Effect.andThen(AskWorkflow.execute(payload, { discard: true })),
        Effect.provideContext(engine),
        // The engine reports a store it cannot use as a defect, and `publish` dies on a SQL error.
        Effect.catchDefect((defect) => isStoreOutage(defect) ? Effect.fail(storeFailed(defect)) : Effect.die(defect))
      )
    },
    run: (ask) => Effect.map(runRecorded(ask), ({ outcome }) => outcome),
    runRecorded,
    find,
    pending: Effect.map(scan, ({ asks }) => asks),
    scan,
    settle,
    claim: (id, by, ttlMillis) => dieNamingStore(claims.claim(id, by, ttlMillis)),
    release: (id, by) => dieNamingStore(claims.release(id, by)),
    databaseNow: dieNamingStore(claims.databaseNow),
    history: (options) => dieNamingStore(history(options))
  })
})
