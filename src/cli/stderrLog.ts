/**
 * How the program logs: one line on stderr per entry, its level, its message
 * and its cause in a few words, never a stack trace. The durable engine logs
 * what it rides out ("Shard lock storage is unhealthy" while PostgreSQL
 * restarts); Effect's default logger printed the cause's stack, with paths
 * into the bundled program's chunks. stdout stays the answer's or the
 * protocol's, and model or client text in a message is shown inert.
 *
 * The cause's words are read down its chain (the engine's persistence error
 * says nothing itself; the SQL error and the driver's error under it do),
 * and a line with the same cause is written at most once a minute: the
 * engine retries a store it cannot use every second (decision 089).
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import { sanitizeLine } from "../internal/sanitize.js"

/** How many errors down a cause chain the words are looked for. */
const chainDepth = 6

/**
 * The words of an error and of the errors under it (`cause`), first lines
 * only, each left out when an earlier one already says it:
 * "PgConnection: Failed to connect: connect ECONNREFUSED 127.0.0.1:5432".
 */
const chainWords = (error: unknown): string | undefined => {
  const parts: Array<string> = []
  let at = error
  for (let depth = 0; depth < chainDepth && at !== undefined && at !== null; depth++) {
    const message = at instanceof Error ? at.message : typeof at === "object" ? undefined : String(at)
    const line = message?.split("\n")[0]!.trim()
    if (line !== undefined && line !== "" && !parts.some((part) => part.includes(line))) parts.push(line)
    at = typeof at === "object" ? (at as { readonly cause?: unknown }).cause : undefined
  }
  return parts.length === 0 ? undefined : parts.join(": ")
}

/** The words of a cause: its error's message and those under it, without the stack. */
const causeWords = (cause: Cause.Cause<unknown>): string | undefined =>
  cause.reasons.length === 0 ? undefined : chainWords(Cause.squash(cause))

/** A message as written: several parts (`Effect.log("a", b)`) joined by spaces. */
const messageText = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((part) => typeof part === "string" ? part : String(part)).join(" ")

/** How long a line with the same cause is held back after it was written. */
const repeatAfterMillis = 60_000

/**
 * A logger writing `ask-user: LEVEL: message: cause` on stderr, an entry
 * with the same cause at most once a minute (an entry without a cause, one
 * of this program's own, is always written); `show` picks the entries written.
 */
const stderrLogger = (show: (options: Logger.Options<unknown>) => boolean) => {
  const lastWritten = new Map<string, number>()
  return Logger.make<unknown, void>((options) => {
    if (!show(options)) return
    const { cause, date, logLevel, message } = options
    const why = causeWords(cause)
    const text = messageText(message)
    if (why !== undefined) {
      const now = date.getTime()
      const last = lastWritten.get(why)
      if (last !== undefined && now - last < repeatAfterMillis) return
      lastWritten.set(why, now)
    }
    const line = why === undefined ? text : `${text}: ${why}`
    process.stderr.write(`ask-user: ${logLevel.toUpperCase()}: ${sanitizeLine(line)}\n`)
  })
}

/**
 * The program's one logger: `ask-user: ERROR: message: cause` on stderr.
 *
 * @since 0.2.0
 */
export const oneLineStderr: Layer.Layer<never> = Logger.layer([stderrLogger(() => true)])

/** Whether an entry comes from this package's own modules (annotated `module: "effect-user-interaction/…"`). */
const isOwn = (options: Logger.Options<unknown>): boolean => {
  const module = options.fiber.getRef(References.CurrentLogAnnotations)["module"]
  return typeof module === "string" && module.startsWith("effect-user-interaction/")
}

/**
 * The durable commands' logger: the durable store's own warnings (a store
 * other users can read, an answer too large to record) and the engine's
 * errors; the engine's housekeeping below errors (runners, shards) is not
 * for the people running `ask-user`. Used with a minimum level of `Warn`.
 *
 * @since 0.3.0
 */
export const durableStderr: Layer.Layer<never> = Logger.layer([
  stderrLogger((options) => LogLevel.isGreaterThanOrEqualTo(options.logLevel, "Error") || isOwn(options))
])
