/**
 * What the durable store keeps about who settles an ask and who is
 * answering it: the receipt of every settled ask (the seam's `AskReceipt`,
 * plus the claim an answer broke with `force`), a claim on a pending ask,
 * and the options answerers settle with.
 *
 * The settler's part of a receipt (surface, who, a broken claim) is one JSON
 * column; when and after how long come from the row's own times, so an ask
 * settled before receipts were kept (or by the engine's expiry clock) still
 * reads as a receipt that says when (decision 102).
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"
import { Answerer, type AskReceipt } from "../Answerer.js"

/**
 * Who holds a claim on a pending durable ask, and until when (the
 * database's clock): while it holds, only they may answer, cancel or
 * decline it.
 *
 * @since 0.3.0
 */
export interface AskClaim {
  readonly by: Answerer
  readonly until: Date
}

/**
 * The receipt of a settled durable ask: the seam's `AskReceipt` (`at` is
 * when it was settled, `millis` how long it waited since it was asked), and
 * `brokeClaim` when the answer broke someone else's claim with `force`.
 *
 * @since 0.3.0
 */
export interface DurableReceipt extends AskReceipt {
  readonly brokeClaim?: AskClaim | undefined
}

/**
 * How an answerer settles a durable ask: `by` says who (without it the
 * answerer is unknown, and refused by any `answerableBy` and by any claim),
 * `force` breaks someone else's claim (the receipt says whose), `surface`
 * names where they answered for the receipt (`"cli"`, `"web"`, …).
 *
 * @since 0.3.0
 */
export interface SettleOptions {
  readonly by?: Answerer | undefined
  readonly force?: boolean | undefined
  readonly surface?: string | undefined
}

/** The settler's part of a receipt, as the `receipt` column holds it (a broken claim's `until` in epoch millis). */
const StoredPart = Schema.Struct({
  surface: Schema.optionalKey(Schema.String),
  by: Schema.optionalKey(Answerer),
  brokeClaim: Schema.optionalKey(Schema.Struct({ by: Answerer, until: Schema.Finite }))
})

type StoredPart = typeof StoredPart.Type

const decodeStored = Schema.decodeUnknownSync(StoredPart)

/**
 * The `receipt` column for an ask settled by `as`, breaking `broken` when
 * set; null when there is nothing to say beyond the row's times.
 *
 * @since 0.3.0
 */
export const storedReceipt = (as: SettleOptions | undefined, broken: AskClaim | undefined): string | null => {
  const part: StoredPart = {
    ...(as?.surface === undefined ? {} : { surface: as.surface }),
    ...(as?.by === undefined ? {} : { by: answererOnly(as.by) }),
    ...(broken === undefined ? {} : { brokeClaim: { by: answererOnly(broken.by), until: broken.until.getTime() } })
  }
  return Object.keys(part).length === 0 ? null : JSON.stringify(part)
}

/** An answerer's own fields, nothing else a caller's object carries. */
const answererOnly = (by: Answerer): Answerer => by.name === undefined ? { id: by.id } : { id: by.id, name: by.name }

/**
 * The receipt of a settled row: its `receipt` column (null for an ask
 * settled without one) with when it was settled and how long it waited.
 * A clock on the settling machine behind the asker's reads as 0 ms, not
 * less. Throws when the column does not decode.
 *
 * @since 0.3.0
 */
export const readReceipt = (
  column: string | null,
  askedAt: Date,
  settledAt: Date,
  defaulted: boolean
): DurableReceipt => {
  const part = column === null ? {} : decodeStored(JSON.parse(column))
  return {
    ...(part.surface === undefined ? {} : { surface: part.surface }),
    ...(part.by === undefined ? {} : { by: part.by }),
    at: settledAt,
    millis: Math.max(0, settledAt.getTime() - askedAt.getTime()),
    ...(defaulted ? { defaulted: true } : {}),
    ...(part.brokeClaim === undefined ? {} : { brokeClaim: { by: part.brokeClaim.by, until: new Date(part.brokeClaim.until) } })
  }
}

/**
 * A claim as JSON and messages show it: `Ana Lima (os:ana@build-01) until
 * 2026-12-06T10:02:00.000Z`.
 *
 * @since 0.3.0
 */
export const describeClaim = (claim: AskClaim): string =>
  `${claim.by.name === undefined ? claim.by.id : `${claim.by.name} (${claim.by.id})`} until ${claim.until.toISOString()}`
