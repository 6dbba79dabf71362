/**
 * The command tree of `ask-user` and its run: the root command asks a
 * request read from FILE or stdin; subcommands run the demo and the ACP and
 * MCP servers. Exit statuses come from `exitCodes.ts`.
 *
 * Only the command tree is loaded up front: each handler imports its heavy
 * modules when it runs, so `ask-user --help` starts quickly.
 *
 * @since 0.1.0
 */
// Subpath imports: the package's index also loads its HTTP, Redis and worker modules (hundreds of files).
import * as NodeServices from "@effect/platform-node/NodeServices"
// Module subpaths rather than the "effect" and "effect/cli" indexes: fewer modules load at start-up.
import * as Cause from "effect/Cause"
import * as Argument from "effect/cli/Argument"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { packageVersion } from "../internal/packageVersion.js"
import { webFlags } from "./webFlags.js"
import { acpCommand } from "./acpCommand.js"
import { demoCommand } from "./demoCommand.js"
import { devicesCommands } from "./devicesCommands.js"
import { durableCommands, durableFlags } from "./durableCommands.js"
import { exitCodeForCause, printFailure } from "./exitCodes.js"
import { inapplicableFlag, refuse } from "./flagRules.js"
import { mcpCommand } from "./mcpCommand.js"
import { oneLineStderr } from "./stderrLog.js"
import * as Options from "./options.js"
import { runMain } from "./signals.js"
import { presenter } from "./usage.js"

const askUser = Command.make("ask-user", {
  file: Argument.String("file").pipe(
    Argument.withDescription("The request as JSON ({ \"questions\": [...] }); read from stdin when omitted or \"-\"."),
    Argument.optional
  ),
  timeout: Options.timeout,
  answers: Options.answers,
  receipt: Options.receipt,
  bell: Options.bell,
  notify: Options.notify,
  plain: Options.plain,
  review: Options.review,
  allowPipedSecrets: Options.allowPipedSecrets,
  // `--web [--port N] [--host H] [--token T]` and `--terminal`; `providerFor.ts` reads them.
  ...webFlags,
  // `--durable [--store URL] [--ask-id ID] [--expires 1h]`; `ask.ts` hands durable asks to `durable.ts`.
  ...durableFlags
}, (config) => Effect.flatMap(Effect.promise(() => import("./ask.js")), (ask) => ask.run(config))).pipe(
  Command.withDescription(
    "Ask a human the questions of an AskUserQuestionRequest and print the answer JSON on stdout.\n" +
      "Exit status: 0 answered, 1 other failure, 2 bad request or command line, 3 cancelled or declined, 4 timeout, " +
      "7 the request's answerableBy does not allow who is answering, " +
      "128 + n on signal n (130 Ctrl+C or SIGINT, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT), 141 stdout's reader gone;\n" +
      "durable commands: 5 not pending, 6 unknown id (devices revoke: no such device), 7 not allowed (answerableBy), 8 claimed by someone else."
  ),
  // A flag that cannot apply is a usage error (exit 2), not silently ignored.
  Command.validate(refuse(inapplicableFlag)),
  Command.withSubcommands([demoCommand, acpCommand, mcpCommand, ...durableCommands, ...devicesCommands])
)

const main = Command.run(askUser, { version: packageVersion }).pipe(
  Effect.tapCause((cause) =>
    Effect.sync(() => {
      if (Cause.hasInterruptsOnly(cause)) return
      const error = Cause.squash(cause)
      // The presenter has already reported command-line errors (one line on stderr, see usage.ts).
      if (!CliError.isCliError(error)) printFailure(error)
    })
  ),
  // stdout is the answer JSON, or the MCP or ACP protocol: a log line (the durable engine's, say)
  // goes to stderr, one line each.
  Effect.provide(Layer.mergeAll(NodeServices.layer, CliOutput.layerPresenter(presenter), oneLineStderr))
)

// Every ending signal restores the terminal and exits 128 + its number (signals.ts).
runMain(main, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? 0 : exitCodeForCause(exit.cause))
})
