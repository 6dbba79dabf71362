/**
 * For the protocol modes (`ask-user acp`, `ask-user mcp`) stdout belongs to
 * the protocol: a stray `console.log` (ours, a dependency's, a logger's)
 * would corrupt the stream.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/**
 * For the lifetime of the current scope, the console's stdout methods write
 * to stderr instead.
 *
 * @since 0.1.0
 */
export const consoleOnStderr = Effect.acquireRelease(
  Effect.sync(() => {
    const saved = { log: console.log, info: console.info, debug: console.debug }
    console.log = console.info = console.debug = console.error
    return saved
  }),
  (saved) => Effect.sync(() => Object.assign(console, saved))
)
