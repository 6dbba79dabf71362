/**
 * Answers from outside the page: what `WebProvider.layer({ actions })` needs
 * to take an answer carried by a signed, single-use token, such as an ntfy
 * notification's action button (`POST /act/<token>`), the one path of a
 * remote inbox that needs no device credential because the token is the
 * credential. The web surface does not sign or keep tokens; whoever made them
 * (the program, with its notification targets) redeems them.
 *
 * @since 0.3.0
 */
import type * as Effect from "effect/Effect"
import type { Answerer } from "../Answerer.js"

/**
 * What a valid token answers: the ask (its `request.id`), the label of the
 * option chosen for its one question, who answered (`ntfy:<topic>`) and on
 * which surface (`ntfy`, the receipt's `surface`).
 *
 * @since 0.3.0
 */
export interface RedeemedAction {
  readonly askId: string
  readonly label: string
  readonly by: Answerer
  readonly surface: string
}

/**
 * The actions hook of `WebProvider.layer`.
 *
 * @since 0.3.0
 */
export interface WebActions {
  /**
   * The answer a token carries, consuming it; undefined for a token that is
   * forged, already used, or for an ask that is no longer pending. The
   * provider then checks the answer against the ask as it would a posted one
   * (an option of another ask is refused).
   */
  readonly redeem: (token: string) => Effect.Effect<RedeemedAction | undefined>
}
