/**
 * A second, read-only connection to a SQLite store's file, for reads that
 * must not wait behind the process's own transactions (WAL lets a reader go
 * on while a writer holds the lock): the rows of the asks the process waits
 * for (decision 169). The SQLite layer provides it; an in-memory or
 * PostgreSQL store has none (PostgreSQL's pool already reads beside a
 * transaction).
 *
 * @internal
 */
import * as Context from "effect/Context"
import type { SqlClient } from "effect/sql"

/** The read-only connection, as a `SqlClient`. */
export class ReadConnection extends Context.Service<ReadConnection, SqlClient.SqlClient>()(
  "effect-user-interaction/durable/ReadConnection"
) {}
