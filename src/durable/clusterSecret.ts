/**
 * The secret the runners of a store's cluster prove to each other
 * (`runnerHandshake.ts`): `ASK_USER_CLUSTER_SECRET` when set, else one kept
 * in the store itself (decision 165).
 *
 * Kept in the store, it is the same for every process that can open the
 * store, whoever runs it and on whichever machine: agents of two OS users, or
 * on two machines, sharing a PostgreSQL database agree on it, where a file in
 * each user's state directory would make each refuse the other, and the
 * cluster's health checks would then mark the other's runners dead. Whoever
 * can read the store can already answer its asks; the secret adds nobody.
 *
 * @internal
 */
import { randomBytes } from "node:crypto"
import * as Effect from "effect/Effect"
import { SqlClient } from "effect/sql"
import { clusterSecretTable } from "./migrations.js"

/** The store's secret, hex, if one was made. */
const read = (sql: SqlClient.SqlClient) =>
  sql<{ readonly secret: string }>`SELECT secret FROM ${sql(clusterSecretTable)} WHERE id = 1`.pipe(
    Effect.map((rows) => rows[0]?.secret)
  )

/**
 * The cluster's secret. The store's is made by the first runner that finds
 * none: 32 random bytes, inserted unless another process inserted first, then
 * read back, so processes starting at once all end with the one that won.
 * A fault of the store is a defect (the engine's layer reports it as the
 * store's).
 */
export const clusterSecret: Effect.Effect<Uint8Array, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const fromEnv = process.env.ASK_USER_CLUSTER_SECRET
  if (fromEnv !== undefined && fromEnv !== "") return Buffer.from(fromEnv, "utf8")
  const sql = yield* SqlClient.SqlClient
  const kept = yield* read(sql)
  if (kept !== undefined) return Buffer.from(kept, "hex")
  const made = randomBytes(32).toString("hex")
  yield* sql`INSERT INTO ${sql(clusterSecretTable)} (id, secret) VALUES (1, ${made}) ON CONFLICT (id) DO NOTHING`
  const won = yield* read(sql)
  if (won === undefined) return yield* Effect.die(new Error(`The store's ${clusterSecretTable} row is missing after it was written.`))
  return Buffer.from(won, "hex")
}).pipe(Effect.orDie)
