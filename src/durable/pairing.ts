/**
 * Pairing codes: how a phone becomes a paired device of a remote inbox. A
 * code is 10 characters from an alphabet without look-alikes (no 0/O, 1/I/L),
 * single use, valid 10 minutes by the database's clock, and kept only as
 * its SHA-256. A redemption compares the code given with every outstanding
 * code in constant time; each wrong try (of any code) is counted in the
 * store, and the 5th voids every code outstanding at that moment, so a
 * guesser gets five tries per batch of codes, whichever process they reach
 * (decision 140).
 *
 * The store also keeps the address of the remote inbox running on it, for
 * `ask-user pair` to link to.
 *
 * @since 0.3.0
 */
import { randomInt } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { SqlClient, SqlError } from "effect/sql"
import { databaseMillis } from "./claims.js"
import { deviceNameProblem, type Devices, type NewDevice, sameHash, secretHash } from "./devices.js"
import { inboxStateTable, pairingCodesTable } from "./migrations.js"

/**
 * The characters of a pairing code: digits and capitals without the ones
 * that read alike (0 and O, 1, I and L).
 *
 * @since 0.3.0
 */
export const codeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

/** @since 0.3.0 */
export const codeLength = 10

/** How long a code is valid. @since 0.3.0 */
export const codeTtlMillis = 10 * 60 * 1000

/** The wrong tries (of any code) that void every outstanding code. @since 0.3.0 */
export const maxWrongTries = 5

/**
 * A fresh pairing code and when it stops being valid.
 *
 * @since 0.3.0
 */
export interface PairingCode {
  readonly code: string
  readonly expiresAt: Date
}

/**
 * A pairing refused: `invalid` for a wrong, expired, used or voided code
 * alike (a guesser learns nothing), `name` for a device name that is empty,
 * too long or holds control characters. The same shape as the web
 * surface's `PairingRefused`, which `ask-user inbox --web --remote` maps it to.
 *
 * @since 0.3.0
 */
export class PairingRefused extends Data.TaggedError("PairingRefused")<{
  readonly reason: "invalid" | "name"
  readonly message: string
}> {}

/** A code as typed: capitals, without the spaces and dashes people put in to read it. */
export const normalizeCode = (typed: string): string => typed.toUpperCase().replace(/[\s-]/g, "")

/** A fresh code: each character drawn uniformly from the alphabet. */
const drawCode = (): string => {
  let code = ""
  for (let i = 0; i < codeLength; i++) code += codeAlphabet[randomInt(codeAlphabet.length)]
  return code
}

/** The names of the inbox state's rows. */
const wrongTries = "pairing_wrong_tries"
const remoteInboxName = "remote_inbox"

/** How often a running remote inbox refreshes its address, and how long a refresh holds. */
const announceEvery = "20 seconds"
const announceHoldsMillis = 60_000

const refused = new PairingRefused({ reason: "invalid", message: "That pairing code is not valid: ask for a new one." })

/**
 * The pairing operations of a store over its `devices`.
 *
 * @since 0.3.0
 */
export const makePairing = (sql: SqlClient.SqlClient, devices: Devices) => {
  const codes = sql(pairingCodesTable)
  const state = sql(inboxStateTable)
  const now = databaseMillis(sql)
  // PostgreSQL: the count of wrong tries is read and written under a row lock, so two guesses at
  // once cannot both read 4. SQLite's transactions here hold the write lock from their start.
  const lockRow = sql.onDialectOrElse({ pg: () => sql.literal(" FOR UPDATE"), orElse: () => sql.literal("") })

  const newCode: Effect.Effect<PairingCode, SqlError.SqlError> = Effect.gen(function*() {
    const code = drawCode()
    // Codes long gone are of no use to anyone; the table stays small.
    yield* sql`DELETE FROM ${codes} WHERE expires_at < ${now} - 86400000`
    const rows = yield* sql<{ readonly expires_at: number | string }>`INSERT INTO ${codes}
      (code_hash, created_at, expires_at) VALUES (${secretHash(code)}, ${now}, ${now} + ${codeTtlMillis})
      RETURNING CAST(expires_at AS TEXT) AS expires_at`
    return { code, expiresAt: new Date(Number(rows[0]!.expires_at)) }
  })

  /**
   * One redemption, in one transaction: the device when the code matched,
   * else the wrong try counted (and, at the 5th, every outstanding code
   * voided). It returns rather than fails, so that the count commits.
   */
  const redeem = (code: string, name: string): Effect.Effect<NewDevice | undefined, SqlError.SqlError> =>
    sql.withTransaction(Effect.gen(function*() {
      const misses = yield* sql<{ readonly value: string }>`SELECT value FROM ${state} WHERE name = ${wrongTries}${lockRow}`
      const outstanding = yield* sql<{ readonly code_hash: string }>`SELECT code_hash FROM ${codes}
        WHERE used_at IS NULL AND voided_at IS NULL AND expires_at > ${now}`
      const given = secretHash(normalizeCode(code))
      // Every outstanding code is compared, the match or not: the time taken says nothing of which.
      let match: string | undefined
      for (const row of outstanding) {
        if (sameHash(given, row.code_hash)) match = row.code_hash
      }
      if (match !== undefined) {
        yield* sql`UPDATE ${codes} SET used_at = ${now} WHERE code_hash = ${match}`
        return yield* devices.add(name.trim())
      }
      const count = Number(misses[0]?.value ?? 0) + 1
      if (count >= maxWrongTries) {
        yield* sql`UPDATE ${codes} SET voided_at = ${now} WHERE used_at IS NULL AND voided_at IS NULL`
      }
      yield* sql`INSERT INTO ${state} (name, value) VALUES (${wrongTries}, ${String(count % maxWrongTries)})
        ON CONFLICT (name) DO UPDATE SET value = ${String(count % maxWrongTries)}`
      return undefined
    }))

  const pair = (code: string, name: string): Effect.Effect<NewDevice, PairingRefused | SqlError.SqlError> => {
    const problem = deviceNameProblem(name)
    if (problem !== undefined) return Effect.fail(new PairingRefused({ reason: "name", message: problem }))
    return Effect.flatMap(redeem(code, name), (added) => added === undefined ? Effect.fail(refused) : Effect.succeed(added))
  }

  const remoteInbox = Effect.map(
    sql<{ readonly value: string }>`SELECT value FROM ${state} WHERE name = ${remoteInboxName} AND until > ${now}`,
    (rows) => rows[0]?.value
  )

  const announce = (url: string): Effect.Effect<void, SqlError.SqlError, Scope.Scope> => {
    const refresh = sql`INSERT INTO ${state} (name, value, until) VALUES (${remoteInboxName}, ${url}, ${now} + ${announceHoldsMillis})
      ON CONFLICT (name) DO UPDATE SET value = ${url}, until = ${now} + ${announceHoldsMillis}`
    return Effect.gen(function*() {
      yield* refresh
      // Only this inbox's own address is taken back: another may have started since.
      yield* Effect.addFinalizer(() =>
        Effect.ignore(sql`DELETE FROM ${state} WHERE name = ${remoteInboxName} AND value = ${url}`)
      )
      yield* Effect.forkScoped(Effect.repeat(Effect.ignore(refresh), Schedule.spaced(announceEvery)))
    })
  }

  return { newCode, pair, remoteInbox, announce }
}

/** @since 0.3.0 */
export type Pairing = ReturnType<typeof makePairing>
