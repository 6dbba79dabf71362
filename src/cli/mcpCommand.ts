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
import { Writable } from "node:stream"
import * as Options from "./options.js"
import { sanitizeLine } from "../internal/sanitize.js"
import { consoleOnStderr } from "./protocolStdout.js"
import { loopbackSecretPage } from "./secretPage.js"
import { CannotWrite } from "./stdout.js"

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
 * reports at most one connection error on stderr. `stdoutGone` ends when
 * stdout breaks: quietly when its reader has gone (a client that closed only
 * that pipe, stdin still open, is gone too, and the SDK's transport does not
 * close the connection for it), with `CannotWrite` for any other cause.
 *
 * `output` is the stdout the SDK's transport writes to: it passes every
 * message on to `process.stdout` until stdout breaks, then drops them. The
 * transport adds an `error` and a `drain` listener to its stream for each
 * message it cannot hand over at once; on a broken `process.stdout` neither
 * ever fired, so the messages answered before the server noticed piled them
 * up into a `MaxListenersExceededWarning` on stderr.
 */
const quietWhenTheClientGoes = Effect.flatMap(Deferred.make<void, CannotWrite>(), (gone) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      let reported = false
      let broken = false
      /** The write waiting for stdout to drain, if any (the stream below hands over one at a time). */
      let waiting: (() => void) | undefined
      const resume = () => {
        const done = waiting
        waiting = undefined
        done?.()
      }
      const ignore = () => undefined
      const onStdoutError = (error: Error) => {
        broken = true
        resume()
        Deferred.doneUnsafe(
          gone,
          isClientGone(error) ? Effect.void : Effect.fail(new CannotWrite({ what: "the protocol's messages", cause: error }))
        )
      }
      process.stdout.on("error", onStdoutError)
      process.stdout.on("drain", resume)
      process.stderr.on("error", ignore)
      const output = new Writable({
        write(chunk: Buffer, _encoding, done) {
          if (broken || process.stdout.write(chunk)) return done()
          waiting = done
        }
      })
      /** Reports `error` as `line` (its cause in a few words, not the SDK's validator dump). */
      const report = (error: Error, line: string) => {
        if (reported || isClientGone(error)) return
        reported = true
        process.stderr.write(`ask-user mcp: ${sanitizeLine(line)}\n`)
      }
      return { ignore, onStdoutError, resume, output, report, stdoutGone: Deferred.await(gone) }
    }),
    ({ ignore, onStdoutError, resume }) =>
      Effect.sync(() => {
        process.stdout.off("error", onStdoutError)
        process.stdout.off("drain", resume)
        process.stderr.off("error", ignore)
      })
  ))

const serveStdio = (timeout: Option.Option<Duration.Duration>, secretPage: boolean) =>
  Effect.gen(function*() {
    yield* consoleOnStderr
    // Runs last, once the connection is over: a client that closed only stdout still holds stdin
    // open, and reading it would keep the process alive.
    yield* Effect.addFinalizer(() => Effect.sync(() => process.stdin.destroy()))
    const { output, report, stdoutGone } = yield* quietWhenTheClientGoes
    const { connectionErrorLine, serveAskUser } = yield* Effect.promise(() => import("../mcp/server.js"))
    const served = yield* serveAskUser(undefined, {
      timeout: Option.getOrUndefined(timeout),
      output,
      onerror: (error) => report(error, connectionErrorLine(error)),
      secretPage: secretPage ? yield* loopbackSecretPage : undefined
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

export const mcpCommand = Command.make(
  "mcp",
  { timeout: timeoutFlag, secretPage: Options.secretPage },
  ({ secretPage, timeout }) => serveStdio(timeout, secretPage)
).pipe(
  Command.withDescription(
    "Run an MCP server on stdio with one tool, ask_user_question, answered in the MCP client's own form " +
      "(elicitation), a secret question on a one-time page on 127.0.0.1 (URL-mode elicitation). Register it in " +
      "the client as the command `ask-user mcp`."
  )
)
