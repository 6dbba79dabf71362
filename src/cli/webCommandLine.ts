/**
 * The provider layer of `ask-user --web`: the web provider, announced with
 * `Answer at <url>` on stderr as soon as it listens, alone or raced against
 * the terminal (`--terminal`).
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { FanoutProvider } from "../FanoutProvider.js"
import { ProviderFailed } from "../UserInteractionError.js"
import type { UserInteractionProvider } from "../UserInteractionProvider.js"
import type { WebProviderOptions } from "../web/WebProvider.js"
import type { WebFlags } from "./webFlags.js"

/** The web flags, and `--review`. */
type WebProviderFlags = Partial<WebFlags> & { readonly review?: boolean | undefined }

/** What a durable inbox gives the page: its claims, and its asks' times. */
export type InboxHooks = Pick<WebProviderOptions, "claims" | "askTimes">

/** The web provider for these flags; a server that cannot start is `ProviderFailed`. */
const announcedWebProvider = (
  flags: WebProviderFlags,
  inbox: InboxHooks | undefined
): Layer.Layer<UserInteractionProvider, ProviderFailed> =>
  Layer.effectContext(Effect.gen(function*() {
    // Loaded here, not at start-up: the terminal-only modes never need the HTTP stack.
    const { WebProvider } = yield* Effect.promise(() => import("../web/WebProvider.js"))
    const options = {
      port: Option.getOrUndefined(flags.port ?? Option.none()),
      host: Option.getOrUndefined(flags.host ?? Option.none()),
      token: Option.getOrUndefined(flags.token ?? Option.none()),
      review: flags.review,
      claims: inbox?.claims,
      askTimes: inbox?.askTimes
    }
    const context = yield* Layer.build(WebProvider.layer(options)).pipe(
      Effect.mapError((error) =>
        new ProviderFailed({
          message: `Cannot serve the web page on ${options.host ?? "127.0.0.1"}:${options.port ?? 0}: ${
            String((error.cause as { message?: unknown } | undefined)?.message ?? error.message)
          }`,
          cause: error
        })
      )
    )
    // The first line on stderr: scripts wait for it to learn the address.
    yield* Effect.sync(() => process.stderr.write(`Answer at ${Context.get(context, WebProvider).url}\n`))
    return Context.omit(WebProvider)(context)
  }))

/**
 * `--web`: the web provider; `--web --terminal`: the web page and `terminal`
 * at once (built in that order, so the URL line comes before any prompt).
 * `inbox`: the durable inbox's claims, which the page takes and shows, and
 * its asks' times.
 */
export const webProviderFor = <E>(
  flags: WebProviderFlags,
  terminal: Layer.Layer<UserInteractionProvider, E>,
  inbox?: InboxHooks
): Layer.Layer<UserInteractionProvider, ProviderFailed | E> =>
  flags.terminal === true
    ? FanoutProvider.layer(announcedWebProvider(flags, inbox), terminal)
    : announcedWebProvider(flags, inbox)
