/**
 * How the program logs: one line on stderr per entry, its level, its message
 * and its cause in a few words, never a stack trace. The durable engine logs
 * what it rides out ("Shard lock storage is unhealthy" while PostgreSQL
 * restarts); Effect's default logger printed the cause's stack, with paths
 * into the bundled program's chunks. stdout stays the answer's or the
 * protocol's, and model or client text in a message is shown inert.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { sanitizeLine } from "../internal/sanitize.js"

/** The words of a cause: its error's message, without the stack. */
const causeWords = (cause: Cause.Cause<unknown>): string | undefined => {
  if (cause.reasons.length === 0) return undefined
  const error = Cause.squash(cause)
  const words = error instanceof Error ? error.message : String(error)
  return words.split("\n")[0]!.trim() || undefined
}

/** A message as written: several parts (`Effect.log("a", b)`) joined by spaces. */
const messageText = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((part) => typeof part === "string" ? part : String(part)).join(" ")

/**
 * The program's one logger: `ask-user: ERROR: message: cause` on stderr.
 *
 * @since 0.2.0
 */
export const oneLineStderr: Layer.Layer<never> = Logger.layer([
  Logger.make(({ cause, logLevel, message }) => {
    const why = causeWords(cause)
    const line = why === undefined ? messageText(message) : `${messageText(message)}: ${why}`
    process.stderr.write(`ask-user: ${logLevel.toUpperCase()}: ${sanitizeLine(line)}\n`)
  })
])
