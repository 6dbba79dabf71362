/**
 * Claims on the web page: what `WebProvider.layer({ claims })` needs of
 * whatever keeps them, so that the device that starts answering an ask holds
 * it while its page has it open, and every other page says "Ana's phone is
 * answering" and lets nobody else answer until the claim is released or
 * lapses. The web surface keeps no claims itself: a durable inbox keeps them
 * in its store (`ask-user inbox --web` passes `DurableInbox.claim`,
 * `release` and the claims of its pending asks), where every other answerer
 * of the ask meets them too.
 *
 * Asks are named by their own id (`request.id`, which `DurableInbox.serve`
 * sets to the durable ask's id); an ask asked without one is named by the
 * page's id for it.
 *
 * @since 0.3.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { Answerer } from "../Answerer.js"
import type { AskClaimed, AskNotPending, NotAuthorized, UnknownAsk } from "../UserInteractionError.js"

/**
 * A claim: who holds it, and until when (by the keeper's clock; the page
 * shows who, never a countdown).
 *
 * @since 0.3.0
 */
export interface WebClaim {
  readonly by: Answerer
  readonly until: Date
}

/**
 * The live claim on one pending ask.
 *
 * @since 0.3.0
 */
export interface HeldClaim {
  readonly askId: string
  readonly claim: WebClaim
}

/**
 * The claims hook of `WebProvider.layer`.
 *
 * @since 0.3.0
 */
export interface WebClaims {
  /** How long a claim holds unless renewed: a page renews its claim every third of it. */
  readonly ttl: Duration.Input
  /**
   * How often the provider reads `held`, to learn of claims taken, released
   * or lapsed elsewhere (default 1 second).
   */
  readonly pollInterval?: Duration.Input | undefined
  /**
   * Claims the ask for `by`, or renews their claim, for `ttl`. `AskClaimed`
   * when someone else holds it (the page answers 409), `NotAuthorized` when
   * `by` may not answer it (403), `UnknownAsk` or `AskNotPending` when it is
   * no longer pending (404).
   */
  readonly claim: (
    askId: string,
    by: Answerer
  ) => Effect.Effect<WebClaim, AskClaimed | NotAuthorized | UnknownAsk | AskNotPending>
  /** Ends `by`'s claim (nothing to do when they hold none); `AskClaimed` when someone else holds it. */
  readonly release: (askId: string, by: Answerer) => Effect.Effect<void, AskClaimed | UnknownAsk>
  /** The claims that hold now, on pending asks. */
  readonly held: Effect.Effect<ReadonlyArray<HeldClaim>>
}
