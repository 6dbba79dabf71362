/**
 * `ask-user mcp`: an MCP server on stdio with the one tool
 * `ask_user_question`, answered through the connected client's own form
 * (`McpProvider`). stdout carries nothing but the protocol; diagnostics go to
 * stderr. The server runs until the client closes stdin.
 *
 * @since 0.1.0
 */
import { type Duration, Effect, Option } from "effect"
import { Command } from "effect/cli"
import * as Options from "./options.js"
import { consoleOnStderr } from "./protocolStdout.js"

/** Completes when stdin ends: the MCP client went away (the SDK's stdio transport does not notice). */
const stdinEnded = Effect.callback<void>((resume) => {
  const done = () => resume(Effect.void)
  if (process.stdin.readableEnded) return done()
  process.stdin.once("end", done)
  process.stdin.once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done)
    process.stdin.off("close", done)
  })
})

const serveStdio = (timeout: Option.Option<Duration.Duration>) =>
  Effect.gen(function*() {
    yield* consoleOnStderr
    const [{ serveAskUser }, { StdioServerTransport }] = yield* Effect.promise(() =>
      Promise.all([import("../mcp/server.js"), import("@modelcontextprotocol/sdk/server/stdio.js")])
    )
    const served = yield* serveAskUser(new StdioServerTransport(), { timeout: Option.getOrUndefined(timeout) })
    served.server.server.onerror = (error) => process.stderr.write(`ask-user mcp: ${error.message}\n`)
    yield* Effect.raceFirst(served.closed, stdinEnded)
  }).pipe(Effect.scoped)

/**
 * The `mcp` subcommand of `ask-user`.
 *
 * @since 0.1.0
 */
export const mcpCommand = Command.make("mcp", { timeout: Options.timeout }, ({ timeout }) => serveStdio(timeout)).pipe(
  Command.withDescription(
    "Run an MCP server on stdio with one tool, ask_user_question, answered in the MCP client's own form " +
      "(elicitation). Register it in the client as the command `ask-user mcp`."
  )
)
