/**
 * How `ask-user` talks about its own command line: `--help` on stdout, and a
 * usage error (unknown flag, bad value) as one line and a hint on stderr with
 * nothing on stdout, which in `mcp` and `acp` mode is the protocol's channel.
 * effect/cli's default presenter would print the whole help on stdout.
 *
 * @since 0.2.0
 */
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import type * as HelpDoc from "effect/cli/HelpDoc"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { sanitizeLine } from "../internal/sanitize.js"
import { shownStoreUrl } from "../durable/storeUrl.js"
import { writeStdout } from "./stdout.js"

/**
 * One plain sentence for a command-line error. Values typed on the command
 * line are quoted inert, as they may come from a model's tool call.
 *
 * @since 0.2.0
 */
export const describeUsageError = (error: CliError.CliError): string => {
  if (error instanceof CliError.InvalidValue) {
    const what = error.kind === "argument" ? `<${error.option}>` : `--${error.option}`
    if (error.value.length === 0) return `${what} needs a value.`
    const expected = error.expected.replace(/^Expected:?\s*/, "").replace(/\.$/, "")
    // A store URL may carry a password.
    const value = error.option === "store" ? shownStoreUrl(error.value) : error.value
    return `${what} ${quoted(value)} is not valid: expected ${expected}.`
  }
  return error.message
}

/**
 * `value` in double quotes, its quotes and backslashes escaped; control
 * characters are left for `sanitizeLine`, so they read `\x1b` as in every
 * other message (JSON would write `\u001b` for some and nothing for others).
 */
const quoted = (value: string): string => `"${value.replace(/["\\]/g, "\\$&")}"`

/** The usage error line and the hint that follows it. */
const usageErrorText = (event: CliOutput.Presenter.InvalidInvocation): string => {
  const first = event.errors[0]
  const line = first === undefined ? "invalid command line." : describeUsageError(first)
  return `ask-user: ${sanitizeLine(line)}\nTry '${event.commandPath.join(" ")} --help'.\n`
}

// effect/cli writes `ask-user <subcommand> [flags] [<file>]`, which makes the subcommand look
// required: the root asks a FILE, a subcommand is another way to run the program.
const withUsageLines = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  if (!doc.usage.includes(" <subcommand>")) return doc
  const own = doc.usage.replace(" <subcommand>", "")
  const path = doc.usage.slice(0, doc.usage.indexOf(" <subcommand>"))
  return { ...doc, usage: `${own}\n  ${path} <subcommand> [flags]` }
}

/**
 * Prints what effect/cli's default presenter logs for `event` through
 * `writeStdout`, so that a broken stdout ends the program like any output
 * does (Node's console drops write errors silently). A write error becomes a
 * defect here: a presenter cannot fail, and `main.ts` reports defects.
 */
const printThroughStdout = (what: string, event: CliOutput.Presenter.Event): Effect.Effect<void> =>
  Effect.suspend(() => {
    let text = ""
    const capture = { ...globalThis.console, log: (...args: ReadonlyArray<unknown>) => void (text += `${args.join(" ")}\n`) }
    return CliOutput.defaultPresenter.present(event).pipe(
      Effect.provideService(Console.Console, capture),
      Effect.andThen(Effect.suspend(() => writeStdout(what, text))),
      Effect.orDie
    )
  })

/**
 * The presenter `ask-user` runs its command with: help and version as
 * effect/cli prints them (with the usage line split), usage errors as one
 * line on stderr.
 *
 * @since 0.2.0
 */
export const presenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "InvalidInvocation":
        return Effect.sync(() => void process.stderr.write(usageErrorText(event)))
      case "Help":
        return printThroughStdout("the help", { ...event, helpDoc: withUsageLines(event.helpDoc) })
      case "Version":
        return printThroughStdout("the version", event)
    }
  }
}
