/**
 * The asks table's schema, as numbered migrations that bring any store up
 * to date in place: a new one, or one an earlier release wrote (its asks
 * table and no record of a version), whose pending asks stay pending.
 *
 * Run by Effect's own `Migrator`, as the workflow engine runs its tables'
 * migrations: the applied steps are rows of `ask_user_migrations`, and each
 * run is one transaction that PostgreSQL serializes with a table lock and
 * SQLite with its write lock (`BEGIN IMMEDIATE`), so several processes
 * opening one store at once apply each step once (decision 101). Steps only
 * add: a store a later release upgraded still opens with this one.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import { Migrator, SqlClient, SqlError } from "effect/sql"

/**
 * The asks table: one row per durable ask, what the inbox reads.
 *
 * @since 0.3.0
 */
export const asksTable = "ask_user_asks"

/**
 * The paired devices: id, name, the hash of the credential, when paired,
 * last seen and revoked (decision 140).
 *
 * @since 0.3.0
 */
export const devicesTable = "ask_user_devices"

/**
 * The pairing codes, by the hash of the code: when made, until when valid,
 * when used or voided.
 *
 * @since 0.3.0
 */
export const pairingCodesTable = "ask_user_pairing_codes"

/**
 * Small named values the inbox shares between processes: the count of
 * wrong pairing tries, the running remote inbox's address.
 *
 * @since 0.3.0
 */
export const inboxStateTable = "ask_user_inbox_state"

/**
 * The secret the runners of the store's cluster prove to each other: one
 * row (id 1), 32 random bytes as hex, made by the first runner (decision 165).
 *
 * @since 0.3.0
 */
export const clusterSecretTable = "ask_user_cluster_secret"

/** Where the applied steps are recorded. */
const migrationsTable = "ask_user_migrations"

/**
 * The steps, by number. 1 is the table as the first durable release made it
 * (`IF NOT EXISTS`: a store from that release has it already); 2 adds the
 * receipt of a settled ask and the claim on a pending one; 3 the paired
 * devices, the pairing codes and the inbox's shared state; 4 the table of
 * the cluster's secret (its row is made by the first runner, `clusterSecret.ts`).
 */
const steps = {
  "1_asks_table": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${asksTable} (
      id TEXT PRIMARY KEY,
      execution_id TEXT NOT NULL,
      request TEXT NOT NULL,
      asked_at BIGINT NOT NULL,
      expires_at BIGINT,
      status TEXT NOT NULL,
      answer TEXT,
      settled_at BIGINT
    )`)
    yield* sql.unsafe(`CREATE INDEX IF NOT EXISTS ${asksTable}_pending ON ${asksTable} (status, asked_at)`)
  }),
  "2_receipts_and_claims": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // One statement a column: SQLite adds one column per ALTER TABLE.
    for (const column of ["receipt TEXT", "claim_by_id TEXT", "claim_by_name TEXT", "claim_until BIGINT"]) {
      yield* sql.unsafe(`ALTER TABLE ${asksTable} ADD COLUMN ${column}`)
    }
  }),
  "3_devices_and_pairing": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${devicesTable} (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      credential_hash TEXT NOT NULL,
      paired_at BIGINT NOT NULL,
      last_seen_at BIGINT,
      revoked_at BIGINT
    )`)
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${pairingCodesTable} (
      code_hash TEXT PRIMARY KEY,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      used_at BIGINT,
      voided_at BIGINT
    )`)
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${inboxStateTable} (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      until BIGINT
    )`)
    // The count of wrong pairing tries exists from the start, so that every try locks one row.
    yield* sql.unsafe(`INSERT INTO ${inboxStateTable} (name, value) VALUES ('pairing_wrong_tries', '0')
      ON CONFLICT (name) DO NOTHING`)
  }),
  "4_cluster_secret": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${clusterSecretTable} (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      secret TEXT NOT NULL
    )`)
  })
} satisfies Record<string, Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>>

/**
 * The number of the last step: a store whose record says it has it needs
 * nothing.
 *
 * @since 0.3.0
 */
export const schemaVersion = Math.max(...Object.keys(steps).map((key) => Number(key.split("_")[0])))

const migrate = Migrator.make({})

/**
 * The version a store records, 0 when it records none (a new store, or one
 * from the first durable release), read without taking a lock.
 */
const recordedVersion = (sql: SqlClient.SqlClient) =>
  sql<{ readonly version: number | string | null }>`SELECT MAX(migration_id) AS version FROM ${sql(migrationsTable)}`.pipe(
    Effect.map((rows) => Number(rows[0]?.version ?? 0)),
    // No such table yet: the migrator creates it.
    Effect.orElseSucceed(() => 0)
  )

/**
 * Brings the store's schema up to date. A store that records the last
 * version is only read (every command opens the store, and most find it
 * current); otherwise the migrator applies the missing steps. Fails with
 * the database's own error, so that a locked store is retried as any other
 * step of opening it.
 *
 * @since 0.3.0
 */
export const migrateStore: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  if ((yield* recordedVersion(sql)) >= schemaVersion) return
  yield* migrate({ loader: Migrator.fromRecord(steps), table: migrationsTable }).pipe(
    Effect.catchTag("MigrationError", (error) =>
      SqlError.isSqlError(error.cause) ? Effect.fail(error.cause) : Effect.die(error))
  )
})
