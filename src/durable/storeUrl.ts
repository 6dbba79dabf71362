/**
 * Which store URLs name a database: `sqlite:PATH` with a file path,
 * `sqlite::memory:`, or `postgres://…` / `postgresql://…` with something
 * after the `//`. `sqlite:` with an empty path used to open a private
 * throwaway database, so an asker waited for an ask nobody could see
 * (decision 077).
 *
 * No imports: the command line checks `--store` with it before loading the
 * durable surface.
 *
 * @since 0.2.0
 */

/** The forms a store URL takes, for messages. */
const forms = "sqlite:PATH, sqlite::memory: or postgres://…"

/**
 * The file a `sqlite:` URL names (`sqlite:///abs` and `sqlite:/abs` alike),
 * `:memory:` for the in-memory store; undefined for other URLs.
 *
 * @since 0.2.0
 */
export const sqlitePath = (url: string): string | undefined => {
  if (!url.startsWith("sqlite:")) return undefined
  const path = url.slice("sqlite:".length)
  return path === ":memory:" ? path : path.replace(/^\/\/(?=\/)/, "")
}

/**
 * Why `url` names no store, as a phrase ("use sqlite:PATH, … (the SQLite
 * path is empty)"); undefined when it names one.
 *
 * @since 0.2.0
 */
export const storeUrlProblem = (url: string): string | undefined => {
  const path = sqlitePath(url)
  if (path !== undefined) {
    if (path.trim() === "") return `${forms} (the SQLite path is empty)`
    if (path.endsWith("/")) return `${forms} (the SQLite path names a directory)`
    return undefined
  }
  const rest = /^postgres(?:ql)?:\/\/(.*)$/s.exec(url)?.[1]
  if (rest !== undefined) return rest.trim() === "" ? `${forms} (the PostgreSQL URL names no server or database)` : undefined
  return forms
}

/**
 * `url` as a message may show it: a password it carries, after the user
 * name or as a query parameter (`?password=…`, which PostgreSQL's driver
 * reads), is replaced by `***` (messages end up in terminals and CI logs).
 *
 * @since 0.2.0
 */
export const shownStoreUrl = (url: string): string =>
  url
    // `scheme://user:password@…`, and a PostgreSQL URL missing its `//`.
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*|postgres(?:ql)?:(?!\/\/)[^/?#@:]*):[^/?#]*@/is, "$1:***@")
    .replace(/([?&](?:password|passwd|pwd|sslpassword)=)[^&#]*/gi, "$1***")

/**
 * `url` as PostgreSQL's driver can parse it. libpq's socket form names no
 * host after the credentials (`postgres://user@/db?host=/var/run/postgresql`),
 * which the driver's WHATWG URL parser refuses ("Invalid URL"); the host left
 * out is the driver's default, `localhost`, written in, and a `host`
 * parameter still overrides it. Every other URL passes unchanged.
 *
 * @since 0.2.0
 */
export const pgDriverUrl = (url: string): string =>
  url.replace(/^(postgres(?:ql)?:\/\/[^/?#@]*@)(?=[/?#]|$)/i, "$1localhost")
