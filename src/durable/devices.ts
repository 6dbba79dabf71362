/**
 * Paired devices: the phones and other browsers that may reach a remote
 * inbox. Each has an id (it answers as `device:<id>`), the name its person
 * gave it, and a credential: a fresh random 256-bit secret that only the
 * device holds (as its cookie) and the store keeps only hashed. A revoked
 * device is refused from its next request on.
 *
 * The credential is `<id>.<secret>`: the id finds the row, and the secret's
 * hash is compared with the stored one in constant time, so no lookup of a
 * secret ever runs through an index whose timing could tell a guesser how
 * close they came (decision 140).
 *
 * @since 0.3.0
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { SqlClient, SqlError } from "effect/sql"
import { databaseMillis } from "./claims.js"
import { devicesTable } from "./migrations.js"
import type { PairingCode, PairingRefused } from "./pairing.js"

/**
 * A paired device as the store lists it.
 *
 * @since 0.3.0
 */
export interface Device {
  readonly id: string
  readonly name: string
  readonly pairedAt: Date
  /** When it last reached the inbox (kept to the minute). */
  readonly lastSeenAt?: Date | undefined
}

/**
 * A device just paired, and the credential its browser keeps (shown once,
 * stored only hashed).
 *
 * @since 0.3.0
 */
export interface NewDevice {
  readonly device: Device
  readonly credential: string
}

/**
 * Pairing and devices, as `DurableInbox.devices` offers them. A store's
 * faults are defects naming the store, as elsewhere in the inbox.
 *
 * @since 0.3.0
 */
export interface PairedDevices {
  /** A fresh pairing code: single use, valid 10 minutes (by the database's clock), kept hashed. */
  readonly newCode: Effect.Effect<PairingCode>
  /**
   * Redeems a code for a new device named `name`: the device and its
   * credential. A wrong, expired, used or voided code is `PairingRefused`
   * ("invalid", alike for each); the 5th wrong try (of any code) voids every
   * code outstanding at that moment. An empty or overlong name is
   * `PairingRefused` ("name") and costs no try.
   */
  readonly pair: (code: string, name: string) => Effect.Effect<NewDevice, PairingRefused>
  /** The unrevoked device holding `credential`, recording that it was seen; undefined for any other credential. */
  readonly authenticate: (credential: string) => Effect.Effect<Device | undefined>
  /** The unrevoked devices, in the order they were paired. */
  readonly list: Effect.Effect<ReadonlyArray<Device>>
  /** Revokes the unrevoked devices whose id, else whose name, is `idOrName`; the ones revoked (none: nothing matched). */
  readonly revoke: (idOrName: string) => Effect.Effect<ReadonlyArray<Device>>
  /** The address of the remote inbox running on this store, if one runs (`announce`). */
  readonly remoteInbox: Effect.Effect<string | undefined>
  /**
   * Records `url` as the running remote inbox's address until the scope
   * closes (kept fresh meanwhile; an inbox that died without closing is
   * forgotten within a minute), so that `ask-user pair` can link to it.
   */
  readonly announce: (url: string) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * The longest device name, in characters: a name is shown in lists and in
 * "Ana's phone is answering", not a place for text.
 *
 * @since 0.3.0
 */
export const maxDeviceNameLength = 64

/**
 * Why `name` cannot name a device, or undefined when it can: empty after
 * trimming, over 64 characters, or holding control characters.
 *
 * @since 0.3.0
 */
export const deviceNameProblem = (name: string): string | undefined => {
  const trimmed = name.trim()
  if (trimmed === "") return "A device name cannot be empty."
  if ([...trimmed].length > maxDeviceNameLength) return `A device name has at most ${maxDeviceNameLength} characters.`
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(trimmed)) return "A device name cannot hold control characters."
  return undefined
}

/** The SHA-256 of a secret, hex: a 256-bit random secret needs no slow hash to be safe at rest. */
export const secretHash = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex")

/** Compares two hex hashes in constant time (lengths differ only for a malformed stored value). */
export const sameHash = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "hex")
  const right = Buffer.from(b, "hex")
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
}

/** How stale `last_seen_at` may get before a request writes it again: a read per request, a write a minute. */
const lastSeenResolutionMillis = 60_000

interface DeviceRow {
  readonly id: string
  readonly name: string
  readonly paired_at: number | string
  readonly last_seen_at: number | string | null
}

const toDevice = (row: DeviceRow): Device => ({
  id: row.id,
  name: row.name,
  pairedAt: new Date(Number(row.paired_at)),
  ...(row.last_seen_at === null ? {} : { lastSeenAt: new Date(Number(row.last_seen_at)) })
})

/**
 * The device operations of a store. `add` runs inside the pairing's
 * transaction, so a code is used only when its device is recorded.
 *
 * @since 0.3.0
 */
export const makeDevices = (sql: SqlClient.SqlClient) => {
  const table = sql(devicesTable)
  const now = databaseMillis(sql)
  const columns = sql.literal(
    "id, name, CAST(paired_at AS TEXT) AS paired_at, CAST(last_seen_at AS TEXT) AS last_seen_at"
  )

  const add = (name: string): Effect.Effect<NewDevice, SqlError.SqlError> =>
    Effect.gen(function*() {
      const id = randomBytes(8).toString("hex")
      const secret = randomBytes(32).toString("base64url")
      const rows = yield* sql<DeviceRow>`INSERT INTO ${table} (id, name, credential_hash, paired_at)
        VALUES (${id}, ${name}, ${secretHash(secret)}, ${now}) RETURNING ${columns}`
      return { device: toDevice(rows[0]!), credential: `${id}.${secret}` }
    })

  const authenticate = (credential: string): Effect.Effect<Device | undefined, SqlError.SqlError> =>
    Effect.gen(function*() {
      const dot = credential.indexOf(".")
      if (dot <= 0 || credential.length > 200) return undefined
      const id = credential.slice(0, dot)
      const rows = yield* sql<DeviceRow & { readonly credential_hash: string; readonly now: number | string }>`SELECT
        ${columns}, credential_hash, CAST(${now} AS TEXT) AS now
        FROM ${table} WHERE id = ${id} AND revoked_at IS NULL`
      const row = rows[0]
      // Hashed and compared even for an unknown id, so the time taken says nothing of which ids exist.
      const given = secretHash(credential.slice(dot + 1))
      if (!sameHash(given, row?.credential_hash ?? secretHash("")) || row === undefined) return undefined
      const seenAt = Number(row.now)
      if (row.last_seen_at !== null && seenAt - Number(row.last_seen_at) < lastSeenResolutionMillis) {
        return toDevice(row)
      }
      yield* sql`UPDATE ${table} SET last_seen_at = ${seenAt} WHERE id = ${id}`
      return toDevice({ ...row, last_seen_at: seenAt })
    })

  const list = sql<DeviceRow>`SELECT ${columns} FROM ${table} WHERE revoked_at IS NULL ORDER BY paired_at, id`.pipe(
    Effect.map((rows) => rows.map(toDevice))
  )

  const revoke = (idOrName: string): Effect.Effect<ReadonlyArray<Device>, SqlError.SqlError> =>
    Effect.gen(function*() {
      const byId = yield* sql<DeviceRow>`UPDATE ${table} SET revoked_at = ${now}
        WHERE id = ${idOrName} AND revoked_at IS NULL RETURNING ${columns}`
      if (byId.length > 0) return byId.map(toDevice)
      const byName = yield* sql<DeviceRow>`UPDATE ${table} SET revoked_at = ${now}
        WHERE name = ${idOrName} AND revoked_at IS NULL RETURNING ${columns}`
      return byName.map(toDevice)
    })

  return { add, authenticate, list, revoke }
}

/** @since 0.3.0 */
export type Devices = ReturnType<typeof makeDevices>
