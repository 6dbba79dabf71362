/**
 * The one place where `ask-user` decides who answers: from the parsed flags
 * to the provider layer that the seam registers.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type InboxHooks, webProviderFor } from "./webCommandLine.js"
import type { WebFlags } from "./webFlags.js"
import * as TerminalProvider from "../terminal/TerminalProvider.js"
import type { InvalidRequest, ProviderFailed } from "../UserInteractionError.js"
import type { UserInteractionProvider } from "../UserInteractionProvider.js"
import type { WebClaims } from "../web/WebClaims.js"
import { scriptedAnswersLayer } from "./answersFile.js"

/**
 * The flags that choose and configure the provider.
 *
 * @since 0.1.0
 */
export interface ProviderFlags extends Partial<WebFlags> {
  /** Ring the terminal bell when a question appears. */
  readonly bell: boolean
  /** How the terminal announces a question (`--notify`; absent means the bell). */
  readonly notify?: "bell" | "desktop" | "none" | undefined
  /** Plain numbered lines on the terminal (`--plain`; absent or false: as the environment says). */
  readonly plain?: boolean | undefined
  /** A request of two or more questions ends with a review of its answers, on the terminal and the page (`--review`). */
  readonly review?: boolean | undefined
  /** Read a secret question's answer from piped stdin (`--allow-piped-secrets`). */
  readonly allowPipedSecrets?: boolean | undefined
  /** Answer from this file instead of asking (`--answers`). */
  readonly answers: Option.Option<string>
  // `web`, `port`, `host`, `token` and `terminal` come from `WebFlags` (optional: only the root command has them).
}

/**
 * Where the request came from: when stdin carried it, a terminal prompt must
 * read keys from the controlling terminal (`/dev/tty`) instead.
 *
 * @since 0.1.0
 */
export interface ProviderContext {
  readonly requestOnStdin: boolean
  /** The durable inbox's claims, which its web page takes and shows (`ask-user inbox --web`). @since 0.3.0 */
  readonly claims?: WebClaims | undefined
  /** The durable inbox's asks' times, for the page's ages and times left. @since 0.3.0 */
  readonly askTimes?: InboxHooks["askTimes"]
}

/**
 * The provider layer for these flags: scripted answers with `--answers`,
 * else the web page with `--web` (and the terminal too with `--terminal`),
 * else the terminal.
 *
 * @since 0.1.0
 */
export const providerFor = (
  flags: ProviderFlags,
  context: ProviderContext
): Layer.Layer<UserInteractionProvider, InvalidRequest | ProviderFailed> => {
  if (Option.isSome(flags.answers)) return scriptedAnswersLayer(flags.answers.value)
  const terminal = TerminalProvider.layer({
    bell: flags.bell,
    notify: flags.notify,
    input: context.requestOnStdin ? "tty" : "stdin",
    review: flags.review,
    allowPipedSecrets: flags.allowPipedSecrets,
    ...(flags.plain === true ? { mode: "plain" as const } : {})
  })
  if (flags.web === true) return webProviderFor(flags, terminal, { claims: context.claims, askTimes: context.askTimes })
  return terminal
}
