/**
 * Which flags of the root command cannot apply together. A flag that would
 * do nothing where it was given (`--port` without `--web`, `--ask-id`
 * without `--durable`, `--web` with `--durable`, whose asker only waits) is
 * refused as a usage error, so that nobody waits on a page that never opens.
 *
 * @since 0.2.0
 */
import * as CliError from "effect/cli/CliError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { WebFlags } from "./webFlags.js"

/**
 * The root command's flags these rules read.
 *
 * @since 0.2.0
 */
export interface RootFlags extends WebFlags {
  readonly answers: Option.Option<string>
  readonly timeout: Option.Option<unknown>
  readonly durable: boolean
  readonly store: Option.Option<string>
  readonly askId: Option.Option<string>
  readonly expires: Option.Option<unknown>
  readonly plain: boolean
  readonly review: boolean
}

/** The first of these optional flags that was given. */
const firstGiven = (flags: ReadonlyArray<readonly [string, Option.Option<unknown>]>): string | undefined =>
  flags.find(([, value]) => Option.isSome(value))?.[0]

/**
 * `--port`, `--host` or `--token` given without `--web`, as a usage message.
 * (`inbox` has these flags too; there `--terminal` alone is its default surface.)
 *
 * @since 0.2.0
 */
export const webOnlyFlag = (flags: WebFlags): string | undefined => {
  if (flags.web) return undefined
  const given = firstGiven([["--port", flags.port], ["--host", flags.host], ["--token", flags.token]])
  return given === undefined ? undefined : `${given} only applies with --web.`
}

/**
 * The usage message for the first flag of the root command that cannot apply
 * with the others; undefined when they all can.
 *
 * @since 0.2.0
 */
export const inapplicableFlag = (flags: RootFlags): string | undefined => {
  if (flags.durable) {
    if (flags.web || flags.terminal) {
      const flag = flags.web ? "--web" : "--terminal"
      return `${flag} does not apply with --durable: its asker only waits; show the question with 'ask-user inbox ${flag}'.`
    }
    if (Option.isSome(flags.answers)) {
      return "--answers does not apply with --durable: record the answer with 'ask-user answer ID FILE'."
    }
    if (flags.plain) return "--plain does not apply with --durable: its asker only waits; use 'ask-user inbox --plain'."
    if (flags.review) return "--review does not apply with --durable: its asker only waits; use 'ask-user inbox --review'."
    if (Option.isSome(flags.timeout)) {
      return "--timeout does not apply with --durable: use --expires, which holds even while no process runs."
    }
  } else {
    const given = firstGiven([["--store", flags.store], ["--ask-id", flags.askId], ["--expires", flags.expires]])
    if (given !== undefined) return `${given} only applies with --durable.`
  }
  if (!flags.web && flags.terminal) return "--terminal only applies with --web: without it, ask-user asks on the terminal anyway."
  return webOnlyFlag(flags)
}

/**
 * A `Command.validate` check from one of these rules: its message becomes a
 * usage error (one line and a hint on stderr, exit 2).
 *
 * @since 0.2.0
 */
export const refuse = <A>(rule: (flags: A) => string | undefined) =>
<Input extends A>(flags: Input): Effect.Effect<void, CliError.CliError> => {
  const message = rule(flags)
  return message === undefined ? Effect.void : Effect.fail(new CliError.ValidationError({ message }))
}
