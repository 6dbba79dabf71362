/**
 * Which flags of the root command cannot apply together. A flag that would
 * do nothing where it was given (`--port` without `--web`, `--ask-id`
 * without `--durable`, `--web` with `--durable`, whose asker only waits) is
 * refused as a usage error, so that nobody waits on a page that never opens.
 *
 * @since 0.2.0
 */
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
}

/** The first of these optional flags that was given. */
const firstGiven = (flags: ReadonlyArray<readonly [string, Option.Option<unknown>]>): string | undefined =>
  flags.find(([, value]) => Option.isSome(value))?.[0]

/**
 * The usage message for the first flag that cannot apply with the others;
 * undefined when they all can.
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
    if (Option.isSome(flags.timeout)) {
      return "--timeout does not apply with --durable: use --expires, which holds even while no process runs."
    }
  } else {
    const given = firstGiven([["--store", flags.store], ["--ask-id", flags.askId], ["--expires", flags.expires]])
    if (given !== undefined) return `${given} only applies with --durable.`
  }
  if (!flags.web) {
    if (flags.terminal) return "--terminal only applies with --web: without it, ask-user asks on the terminal anyway."
    const given = firstGiven([["--port", flags.port], ["--host", flags.host], ["--token", flags.token]])
    if (given !== undefined) return `${given} only applies with --web.`
  }
  return undefined
}
