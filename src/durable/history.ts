/**
 * The history of a durable store: its settled asks, newest first, each with
 * its receipt (who settled it, where, when), for `DurableInbox.history` and
 * `ask-user history`.
 *
 * @since 0.3.0
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import type { SqlClient, SqlError } from "effect/sql"
import type { AskRecord, UnreadableAsk } from "./DurableStore.js"
import { asksTable } from "./migrations.js"

/**
 * Which settled asks `history` gives: those settled at or after `since`,
 * at most `limit` of them (the newest).
 *
 * @since 0.3.0
 */
export interface HistoryOptions {
  readonly since?: Date | undefined
  readonly limit?: number | undefined
}

/**
 * What `history` found: the settled asks it could read, newest first, and
 * the rows it could not.
 *
 * @since 0.3.0
 */
export interface HistoryScan {
  readonly asks: ReadonlyArray<AskRecord>
  readonly unreadable: ReadonlyArray<UnreadableAsk>
}

/** What the history needs of the store: its client, the columns it reads, and how a row reads. */
export interface HistoryDeps<Row> {
  readonly sql: SqlClient.SqlClient
  readonly columns: string
  readonly readRow: (row: Row) => Result.Result<AskRecord, UnreadableAsk>
  /** Records the expiries that are due, so that an overdue ask is history, not pending. */
  readonly expireOverdue: Effect.Effect<void, SqlError.SqlError>
}

/**
 * The history query of a store. An ask settled without a time of its own
 * (none should be) sorts by when it was asked.
 *
 * @since 0.3.0
 */
export const makeHistory = <Row extends object>({ columns, expireOverdue, readRow, sql }: HistoryDeps<Row>) =>
(options?: HistoryOptions): Effect.Effect<HistoryScan, SqlError.SqlError> => {
  const since = options?.since === undefined
    ? sql.literal("")
    : sql`AND COALESCE(settled_at, asked_at) >= ${options.since.getTime()}`
  const limit = options?.limit === undefined ? sql.literal("") : sql`LIMIT ${options.limit}`
  return expireOverdue.pipe(
    Effect.andThen(sql<Row>`SELECT ${sql.literal(columns)} FROM ${sql(asksTable)}
      WHERE status <> 'pending' ${since}
      ORDER BY COALESCE(settled_at, asked_at) DESC, id DESC ${limit}`),
    Effect.map((rows): HistoryScan => {
      const [asks, unreadable] = Arr.partition(rows, readRow)
      return { asks, unreadable }
    })
  )
}
