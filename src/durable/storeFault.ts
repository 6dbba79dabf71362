/**
 * What is wrong with a durable store, from the error a statement or the
 * engine gave: locked by another process (a wait may mend it), damaged (no
 * wait mends it), or anything else; and the words a message gives it. The
 * engine wraps SQL errors in a `PersistenceError` whose own message is
 * empty: the SQL error inside is what is read (decision 086).
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import { SqlError } from "effect/sql"

/** The error under the engine's wrappers: a persistence error's cause, down to the SQL error. */
export const underlyingError = (error: unknown): unknown => {
  let inner = error
  while (Predicate.isTagged(inner, "PersistenceError") && Predicate.hasProperty(inner, "cause")) inner = inner.cause
  return inner
}

/** The driver's own error inside a SQL error. */
const driverError = (error: SqlError.SqlError): unknown => (error.reason as { readonly cause?: unknown }).cause

/** Whether `error` says another process held the store's lock past the wait for it. */
export const isStoreLocked = (error: unknown): boolean => {
  const inner = underlyingError(error)
  return SqlError.isSqlError(inner) && inner.reason._tag === "LockTimeoutError"
}

/**
 * Whether `error` says the SQLite file is damaged (SQLITE_CORRUPT) or is not
 * a database (SQLITE_NOTADB): no wait mends it.
 */
export const isDamagedStore = (error: unknown): boolean => {
  const inner = underlyingError(error)
  if (!SqlError.isSqlError(inner)) return false
  const code = (driverError(inner) as { readonly errcode?: unknown } | null)?.errcode
  return typeof code === "number" && ((code & 0xff) === 11 || (code & 0xff) === 26)
}

/**
 * The error's own words, with the database's when it gave any:
 * "PgConnection: Failed to connect" alone does not tell a refused password
 * from a server that is down or a database that does not exist.
 */
const errorWords = (error: unknown): string => {
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim()
  const cause = SqlError.isSqlError(error) ? driverError(error) : undefined
  const words = cause instanceof Error ? cause.message.split("\n")[0]!.trim() : ""
  const both = words === "" || message.includes(words) ? message : message === "" ? words : `${message}: ${words}`
  return both === "" ? "no reason given" : both
}

/**
 * What is wrong with the store, as a phrase for "the durable store URL …":
 * "another process holds it locked (SQLite: database is locked)", "it is
 * damaged (SQLite: database disk image is malformed)", or the error's words.
 */
export const storeFaultWords = (error: unknown): string => {
  const inner = underlyingError(error)
  const words = errorWords(inner)
  if (isStoreLocked(inner)) return `another process holds it locked (${words})`
  if (isDamagedStore(inner)) return `it is damaged (${words})`
  return words
}
