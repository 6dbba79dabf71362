/**
 * Claims on pending durable asks, and the check every settlement passes:
 * an answer, cancel or decline is refused (`NotAuthorized`) when the ask's
 * `answerableBy` does not match who gives it, and (`AskClaimed`) when
 * someone else holds a live claim on it, unless it is given with `force`.
 *
 * A claim is a row's `claim_by_id`, `claim_by_name` and `claim_until`,
 * taken by one conditional `UPDATE` (so of two devices claiming at once
 * exactly one holds it), and timed by the database's clock, never a
 * machine's own: a clock that jumps on one machine cannot end another's
 * claim early or stretch its own (decision 100).
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SqlClient, SqlError } from "effect/sql"
import { Answerer, answererTitle } from "../Answerer.js"
import { checkAnswerer } from "../AskValidation.js"
import { AskClaimed, AskNotPending, NotAuthorized, UnknownAsk } from "../UserInteractionError.js"
import type { AskRecord, AskStatus } from "./DurableStore.js"
import { asksTable } from "./migrations.js"
import { type AskClaim, describeClaim, type SettleOptions, storedReceipt } from "./receipts.js"

/**
 * A claim's default length: long enough to read a question and answer it,
 * short enough that a device that went away does not hold the ask for long.
 *
 * @since 0.3.0
 */
export const defaultClaimTtlMillis = 2 * 60 * 1000

/**
 * The longest claim: a claim says "I am answering this now", renewed while
 * the person is at it, not a reservation for later.
 *
 * @since 0.3.0
 */
export const maxClaimTtlMillis = 24 * 60 * 60 * 1000

/**
 * The database's clock in epoch milliseconds, as an SQL expression: what
 * times claims and pairing codes, whichever machine runs the statement.
 *
 * @since 0.3.0
 */
export const databaseMillis = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => sql.literal("(EXTRACT(EPOCH FROM now()) * 1000)::BIGINT"),
    orElse: () => sql.literal("CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)")
  })

const isAnswerer = Schema.is(Answerer)

/**
 * `by` checked as an answerer: one that is no `kind:value` id cannot be
 * matched against `answerableBy`, nor stored in a receipt that must read
 * back, so it is refused as an answerer that may not settle anything.
 */
const named = (by: Answerer | undefined): Effect.Effect<void, NotAuthorized> =>
  by === undefined || isAnswerer(by)
    ? Effect.void
    : Effect.fail(
      new NotAuthorized({ message: `${JSON.stringify((by as { readonly id: unknown }).id)} is no answerer id of the form kind:value.` })
    )

/** The message of a settlement or claim refused for `claim`. */
const claimedMessage = (id: string, claim: AskClaim): string =>
  `The ask "${id}" is claimed by ${describeClaim(claim)}: only ${answererTitle(claim.by)} may answer, cancel ` +
  "or decline it until the claim lapses or is released (force breaks it)."

/**
 * Whether `claim` still holds at `now` (the database's time).
 *
 * @since 0.3.0
 */
export const isLive = (claim: AskClaim | undefined, now: Date): claim is AskClaim =>
  claim !== undefined && claim.until.getTime() > now.getTime()

const toClaim = (id: string | null, name: string | null, until: number | string | null): AskClaim | undefined =>
  id === null || until === null
    ? undefined
    : { by: name === null ? { id } : { id, name }, until: new Date(Number(until)) }

/**
 * The `answerableBy` of a stored request, read without decoding the rest:
 * the check must work on a row whose request no longer decodes, so that
 * such an ask can still be cancelled. Entries that are not strings are
 * dropped, which can only narrow who matches.
 */
const answerableByOf = (request: string): ReadonlyArray<string> | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(request)
  } catch {
    return undefined
  }
  const patterns = (parsed as { readonly answerableBy?: unknown } | null)?.answerableBy
  return Array.isArray(patterns) ? patterns.filter((pattern): pattern is string => typeof pattern === "string") : undefined
}

interface ClaimRow {
  readonly status: string
  readonly request: string
  readonly claim_by_id: string | null
  readonly claim_by_name: string | null
  readonly claim_until: number | string | null
  readonly now: number | string
  readonly expires_at: number | string | null
}

/**
 * What claims need of the store: its client, `find` (the record of an ask,
 * after recording overdue expiries) and the message for an ask that is no
 * longer pending.
 */
export interface ClaimsDeps {
  readonly sql: SqlClient.SqlClient
  readonly find: (id: string) => Effect.Effect<AskRecord | undefined, SqlError.SqlError>
  readonly notPendingMessage: (record: AskRecord) => string
}

/**
 * The claim operations of a store, and `admit`, the check its `settle`
 * runs inside its transaction.
 *
 * @since 0.3.0
 */
export const makeClaims = ({ find, notPendingMessage, sql }: ClaimsDeps) => {
  const now = databaseMillis(sql)
  const table = sql(asksTable)
  // PostgreSQL's default isolation lets a claim land between a read and the write that follows it:
  // lock the row. SQLite's transactions here hold the write lock from their start.
  const lockRow = sql.onDialectOrElse({ pg: () => sql.literal(" FOR UPDATE"), orElse: () => sql.literal("") })

  const pendingRecord = (id: string): Effect.Effect<AskRecord, UnknownAsk | AskNotPending | SqlError.SqlError> =>
    Effect.flatMap(find(id), (record): Effect.Effect<AskRecord, UnknownAsk | AskNotPending> =>
      record === undefined
        ? Effect.fail(new UnknownAsk({ message: `No ask has the id "${id}".` }))
        : record.status !== "pending"
        ? Effect.fail(new AskNotPending({ message: notPendingMessage(record) }))
        : Effect.succeed(record))

  /** The database's clock, for whoever must tell a live claim from a lapsed one. */
  const databaseNow = Effect.map(
    sql<{ readonly now: number | string }>`SELECT CAST(${now} AS TEXT) AS now`,
    (rows) => new Date(Number(rows[0]!.now))
  )

  /** The claim on the ask if it is live by the database's clock. */
  const liveClaim = (record: AskRecord) =>
    record.claim === undefined
      ? Effect.succeed(undefined)
      : Effect.map(databaseNow, (at) => isLive(record.claim, at) ? record.claim : undefined)

  /**
   * Inside `settle`'s transaction, before its write: whether `as` may
   * settle the ask `id` with `status`, and the `receipt` column to write.
   * The agent's own withdrawal (`aborted`) and the engine's expiry are no
   * answerer's, and pass. An ask that is unknown, not pending, or past its
   * deadline at `settledAt` passes too: `settle`'s write then finds nothing
   * and says which.
   */
  const admit = (
    id: string,
    status: AskStatus,
    as: SettleOptions | undefined,
    settledAt: number
  ): Effect.Effect<string | null, NotAuthorized | AskClaimed | SqlError.SqlError> =>
    Effect.gen(function*() {
      if (status !== "answered" && status !== "cancelled" && status !== "declined") return null
      yield* named(as?.by)
      const rows = yield* sql<ClaimRow>`SELECT status, request, claim_by_id, claim_by_name,
        CAST(claim_until AS TEXT) AS claim_until, CAST(${now} AS TEXT) AS now,
        CAST(expires_at AS TEXT) AS expires_at
        FROM ${table} WHERE id = ${id}${lockRow}`
      const row = rows[0]
      if (row === undefined || row.status !== "pending") return storedReceipt(as, undefined)
      if (row.expires_at !== null && Number(row.expires_at) <= settledAt) return storedReceipt(as, undefined)
      const allowed = checkAnswerer({ answerableBy: answerableByOf(row.request) }, as?.by)
      if (allowed._tag === "Failure") return yield* Effect.fail(allowed.failure)
      const claim = toClaim(row.claim_by_id, row.claim_by_name, row.claim_until)
      const live = claim !== undefined && claim.until.getTime() > Number(row.now) && claim.by.id !== as?.by?.id
        ? claim
        : undefined
      if (live !== undefined && as?.force !== true) {
        return yield* Effect.fail(new AskClaimed({ message: claimedMessage(id, live) }))
      }
      return storedReceipt(as, live)
    })

  /**
   * Claims the pending ask `id` for `by` for `ttlMillis` (by the database's
   * clock), or renews their claim. One conditional write: of several
   * answerers claiming at once, one holds the claim and the others get
   * `AskClaimed` naming them.
   */
  const claim = (
    id: string,
    by: Answerer,
    ttlMillis: number
  ): Effect.Effect<AskClaim, UnknownAsk | AskNotPending | NotAuthorized | AskClaimed | SqlError.SqlError> =>
    Effect.gen(function*() {
      yield* named(by)
      // A few rounds at most: each lost round means a claim was live a moment ago.
      for (let round = 0;; round++) {
        const record = yield* pendingRecord(id)
        const allowed = checkAnswerer(record.request, by)
        if (allowed._tag === "Failure") return yield* Effect.fail(allowed.failure)
        const taken = yield* sql<{ readonly claim_until: number | string }>`UPDATE ${table}
          SET claim_by_id = ${by.id}, claim_by_name = ${by.name ?? null}, claim_until = ${now} + ${ttlMillis}
          WHERE id = ${id} AND status = 'pending'
            AND (claim_until IS NULL OR claim_until <= ${now} OR claim_by_id = ${by.id})
          RETURNING CAST(claim_until AS TEXT) AS claim_until`
        if (taken.length > 0) {
          const { id: byId, name } = by
          return { by: name === undefined ? { id: byId } : { id: byId, name }, until: new Date(Number(taken[0]!.claim_until)) }
        }
        const holder = yield* Effect.flatMap(pendingRecord(id), liveClaim)
        if (holder !== undefined) return yield* Effect.fail(new AskClaimed({ message: claimedMessage(id, holder) }))
        if (round >= 3) {
          return yield* Effect.fail(
            new AskClaimed({ message: `The ask "${id}" is being claimed and released by others at this moment; try again.` })
          )
        }
      }
    })

  /**
   * Ends `by`'s claim on the ask `id`. Nothing to do when they hold none
   * (it lapsed, or the ask was settled); `AskClaimed` when someone else
   * holds a live one.
   */
  const release = (id: string, by: Answerer): Effect.Effect<void, UnknownAsk | AskClaimed | SqlError.SqlError> =>
    Effect.gen(function*() {
      const released = yield* sql`UPDATE ${table} SET claim_by_id = NULL, claim_by_name = NULL, claim_until = NULL
        WHERE id = ${id} AND claim_by_id = ${by.id} RETURNING id`
      if (released.length > 0) return
      const record = yield* find(id)
      if (record === undefined) return yield* Effect.fail(new UnknownAsk({ message: `No ask has the id "${id}".` }))
      if (record.status !== "pending") return
      const holder = yield* liveClaim(record)
      if (holder !== undefined) return yield* Effect.fail(new AskClaimed({ message: claimedMessage(id, holder) }))
    })

  return { admit, claim, release, databaseNow }
}

/** @since 0.3.0 */
export type Claims = ReturnType<typeof makeClaims>
