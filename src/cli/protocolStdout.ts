/**
 * For the protocol modes (`ask-user acp`, `ask-user mcp`) stdout belongs to
 * the protocol: a stray `console.log` (ours, a dependency's, a logger's)
 * would corrupt the stream.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { formatWithOptions } from "node:util"
import { sanitize } from "../internal/sanitize.js"

type ConsoleMethod = "log" | "info" | "debug" | "warn" | "error"

/** For the lifetime of the current scope, `methods` of the console are `by` (read when the scope opens). */
const replacing = (methods: ReadonlyArray<ConsoleMethod>, by: () => (...args: Array<unknown>) => void) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const saved: Partial<Record<ConsoleMethod, (...args: Array<unknown>) => void>> = {}
      const replacement = by()
      for (const method of methods) {
        saved[method] = console[method]
        console[method] = replacement
      }
      return saved
    }),
    (saved) => Effect.sync(() => Object.assign(console, saved))
  )

/**
 * For the lifetime of the current scope, the console's stdout methods write
 * to stderr instead.
 *
 * @since 0.1.0
 */
export const consoleOnStderr = replacing(["log", "info", "debug"], () => console.error)

/**
 * Like `consoleOnStderr`, and whatever any console method writes is made
 * inert first (control characters and escape sequences shown as text): a
 * dependency's log line may quote the peer's own text, as the ACP SDK does
 * with the id of a response it cannot match.
 *
 * @since 0.2.0
 */
export const inertConsoleOnStderr = replacing(
  ["log", "info", "debug", "warn", "error"],
  () => (...args) => void process.stderr.write(`${sanitize(formatWithOptions({ colors: false }, ...args))}\n`)
)
