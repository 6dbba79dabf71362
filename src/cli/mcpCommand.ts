/**
 * `ask-user mcp`: an MCP server on stdio with the one tool
 * `ask_user_question`, answered through the connected client's own form
 * (`McpProvider`). stdout carries nothing but the protocol; diagnostics go to
 * stderr. The server runs until the client closes stdin or stops reading
 * stdout; a client that goes away mid-question ends it quietly (exit 0).
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Options from "./options.js"
import { sanitizeLine } from "../internal/sanitize.js"
import { consoleOnStderr } from "./protocolStdout.js"

/**
 * Errors that only say the client went away (its end of a pipe closed while
 * we wrote): the connection closing already ends the server, so they are not
 * reported, and they must never crash the process as unhandled `error` events.
 */
const isClientGone = (error: unknown): boolean => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || code === "ECONNRESET"
}

/**
 * For the lifetime of the scope, write failures on stdout and stderr are
 * observed (a client killed mid-question closes both pipes; an unobserved
 * `error` event would end the process with a stack trace), and the program
 * reports at most one connection error on stderr. `stdoutGone` completes
 * when a write to stdout finds its reader gone: a client that closed only
 * that pipe (stdin still open) is gone too, and the SDK's transport does not
 * close the connection for it.
 */
const quietWhenTheClientGoes = Effect.flatMap(Deferred.make<void>(), (gone) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      let reported = false
      const ignore = () => undefined
      const onStdoutError = (error: Error) => {
        if (isClientGone(error)) Deferred.doneUnsafe(gone, Effect.void)
      }
      process.stdout.on("error", onStdoutError)
      process.stderr.on("error", ignore)
      /** Reports `error` as `line` (its cause in a few words, not the SDK's validator dump). */
      const report = (error: Error, line: string) => {
        if (reported || isClientGone(error)) return
        reported = true
        process.stderr.write(`ask-user mcp: ${sanitizeLine(line)}\n`)
      }
      return { ignore, onStdoutError, report, stdoutGone: Deferred.await(gone) }
    }),
    ({ ignore, onStdoutError }) =>
      Effect.sync(() => {
        process.stdout.off("error", onStdoutError)
        process.stderr.off("error", ignore)
      })
  ))

const serveStdio = (timeout: Option.Option<Duration.Duration>) =>
  Effect.gen(function*() {
    yield* consoleOnStderr
    // Runs last, once the connection is over: a client that closed only stdout still holds stdin
    // open, and reading it would keep the process alive.
    yield* Effect.addFinalizer(() => Effect.sync(() => process.stdin.destroy()))
    const { report, stdoutGone } = yield* quietWhenTheClientGoes
    const { connectionErrorLine, serveAskUser } = yield* Effect.promise(() => import("../mcp/server.js"))
    const served = yield* serveAskUser(undefined, {
      timeout: Option.getOrUndefined(timeout),
      onerror: (error) => report(error, connectionErrorLine(error))
    })
    // The SDK's stdio transport closes the connection when stdin ends; a broken stdout ends it here.
    yield* Effect.raceFirst(served.closed, stdoutGone)
  }).pipe(Effect.scoped)

/**
 * The `mcp` subcommand of `ask-user`.
 *
 * @since 0.1.0
 */
const timeoutFlag = Options.timeout.pipe(
  Flag.withDescription(
    "Give up on a question after this long without an answer: that tool call answers ASK_TIMEOUT and the " +
      "server goes on. 30s, 5m, 1h, \"5 minutes\"."
  )
)

export const mcpCommand = Command.make("mcp", { timeout: timeoutFlag }, ({ timeout }) => serveStdio(timeout)).pipe(
  Command.withDescription(
    "Run an MCP server on stdio with one tool, ask_user_question, answered in the MCP client's own form " +
      "(elicitation). Register it in the client as the command `ask-user mcp`."
  )
)
