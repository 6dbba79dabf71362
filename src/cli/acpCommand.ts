/**
 * `ask-user acp`: an ACP agent on stdio for editors such as Zed. Each prompt
 * turn asks the human one batch through form elicitation (`AcpProvider`) and
 * streams the answer JSON back; see `acp/agent.ts` for the protocol
 * behaviour. stdout carries nothing but ACP messages; console output (the
 * SDK's own diagnostics included) goes to stderr, made inert.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Options from "./options.js"
import { inertConsoleOnStderr } from "./protocolStdout.js"
import { loopbackSecretPage } from "./secretPage.js"

const serveStdio = (timeout: Option.Option<Duration.Duration>, secretPage: boolean) =>
  Effect.gen(function*() {
    yield* inertConsoleOnStderr
    const [agent, demo, node, { packageVersion }, acp, exitCodes, batched] = yield* Effect.promise(() =>
      Promise.all([
        import("../acp/agent.js"),
        import("./demo.js"),
        import("node:stream"),
        import("../internal/packageVersion.js"),
        import("@agentclientprotocol/sdk"),
        import("./exitCodes.js"),
        import("./batchedStdout.js")
      ])
    )
    // Our messages go out through the batched writer, a few per write; the SDK reads the client's lines.
    const stdout = batched.batchedStdout()
    const lines = acp.ndJsonStream(stdout.bytes, node.Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>)
    yield* agent.serve({ readable: lines.readable, writable: stdout.messages }, {
      timeout: Option.getOrUndefined(timeout),
      demoRequest: demo.demoRequest,
      version: packageVersion,
      // A failed turn is also noted on stderr (editors keep it in their logs); its message
      // may quote model or client text, which printFailure makes inert.
      onFailure: exitCodes.printFailure,
      secretPage: secretPage ? yield* loopbackSecretPage : undefined
    })
  }).pipe(Effect.scoped)

/**
 * The `acp` subcommand. The agent and the SDK are loaded only when it runs.
 *
 * @since 0.1.0
 */
const timeoutFlag = Options.timeout.pipe(
  Flag.withDescription(
    "Give up on a question after this long without an answer: that turn's tool call fails ASK_TIMEOUT and the " +
      "agent goes on. 30s, 5m, 1h, \"5 minutes\"."
  )
)

export const acpCommand = Command.make(
  "acp",
  { timeout: timeoutFlag, secretPage: Options.secretPage },
  ({ secretPage, timeout }) => serveStdio(timeout, secretPage)
).pipe(
  Command.withDescription(
    "Run an ACP agent on stdio (for Zed and other ACP clients): each prompt asks its questions through a form " +
      "elicitation (a secret question on a one-time page on 127.0.0.1, through URL-mode elicitation) and answers " +
      "with the answer JSON. A prompt that is a JSON request asks that request; any other text asks a demo batch."
  )
)
