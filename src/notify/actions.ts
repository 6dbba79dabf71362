/**
 * Answers from a notification: the tokens behind ntfy's action buttons. An
 * ask of one single-select question with at most 3 options, and no
 * `answerableBy` (a topic is not a person), gets one button per option; each
 * button POSTs to the remote inbox's `/act/<token>`: a random nonce that
 * stands for which ask, which option and which topic, signed with
 * HMAC-SHA256 under a key that lives only as long as the inbox run that
 * made it (decision 142).
 *
 * A token is single use (`ActionTokens.redeem` consumes it) and valid only
 * while its ask is pending: a press after the ask settled or expired, a
 * replayed press, a forged or altered token all redeem to nothing. A press
 * while the ask cannot be answered uses nothing up.
 *
 * @since 0.3.0
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import type { NoticeAsk } from "./NotifyTarget.js"

/**
 * The most options an ask may have to get buttons: ntfy shows at most three
 * actions.
 *
 * @since 0.3.0
 */
export const maxActionOptions = 3

/**
 * The option labels an ask's buttons answer with, or undefined when it gets
 * none: it must be one single-select question with 1 to 3 options, with no
 * `answerableBy`.
 *
 * @since 0.3.0
 */
export const actionLabels = (request: AskUserQuestionRequest): ReadonlyArray<string> | undefined => {
  if (request.answerableBy !== undefined || request.questions.length !== 1) return undefined
  const [question] = request.questions
  if (question === undefined || question.multiSelect === true || question.secret === true) return undefined
  const options = question.options ?? []
  return options.length > 0 && options.length <= maxActionOptions ? options.map((option) => option.label) : undefined
}

/**
 * What a token carries: the ask, the option's label, and the ntfy topic
 * whose button it is (the answerer `ntfy:<topic>`).
 *
 * @since 0.3.0
 */
export interface ActionClaim {
  readonly askId: string
  readonly label: string
  readonly topic: string
}

/**
 * One button of a notification: its label and where it POSTs.
 *
 * @since 0.3.0
 */
export interface ActionButton {
  readonly label: string
  readonly url: string
}

/**
 * What `redeem` gives for a good token: the claim, and who answers and on
 * which surface (`ntfy:<topic>`, `ntfy`): the shape of the web surface's
 * `RedeemedAction`.
 *
 * @since 0.3.0
 */
export interface RedeemedClaim {
  readonly askId: string
  readonly label: string
  readonly by: { readonly id: string }
  readonly surface: "ntfy"
}

/**
 * The token of `claim`, issued as `nonce`: `<nonce>.<mac>`, the MAC an
 * HMAC-SHA256 under `key` of the nonce and the claim together, so a token
 * cannot be moved to another ask, option or topic. 66 characters whatever
 * the ask's id or label: a URL path segment stays short (routers cap them).
 *
 * @since 0.3.0
 */
export const signAction = (key: Uint8Array, nonce: string, claim: ActionClaim): string =>
  `${nonce}.${createHmac("sha256", key).update(JSON.stringify([nonce, claim.askId, claim.label, claim.topic])).digest("base64url")}`

/**
 * The claim `token` was signed for under `key`, where `issued` gives the
 * claim of each nonce handed out; undefined for any other token. The MAC is
 * compared in constant time, also for a nonce never issued.
 *
 * @since 0.3.0
 */
export const verifyAction = (
  key: Uint8Array,
  token: string,
  issued: (nonce: string) => ActionClaim | undefined
): ActionClaim | undefined => {
  const dot = token.indexOf(".")
  if (dot <= 0 || token.length > 200) return undefined
  const nonce = token.slice(0, dot)
  const claim = issued(nonce)
  const expected = Buffer.from(signAction(key, nonce, claim ?? { askId: "", label: "", topic: "" }).slice(dot + 1), "base64url")
  const given = Buffer.from(token.slice(dot + 1), "base64url")
  const same = given.length === expected.length && timingSafeEqual(given, expected)
  return same ? claim : undefined
}

/**
 * The tokens of one inbox run: `buttons` makes an ask's buttons for a
 * topic, `redeem` consumes a token while its ask is pending.
 *
 * @since 0.3.0
 */
export interface ActionTokens {
  readonly buttons: (ask: NoticeAsk, topic: string) => ReadonlyArray<ActionButton>
  readonly redeem: <E, R>(
    token: string,
    isPending: (askId: string) => Effect.Effect<boolean, E, R>
  ) => Effect.Effect<RedeemedClaim | undefined, E, R>
}

/**
 * Tokens under a fresh random key, their buttons POSTing to
 * `<base>act/<token>` (`base` the remote inbox's address, ending in `/`).
 * The key and the tokens handed out live in memory: when the inbox stops,
 * every button it published stops working, as its address does.
 *
 * @since 0.3.0
 */
export const makeActionTokens = (base: string, key: Uint8Array = randomBytes(32)): ActionTokens => {
  // Each nonce handed out, with what it answers, until it is pressed.
  const issued = new Map<string, ActionClaim>()
  return {
    buttons: (ask, topic) =>
      (actionLabels(ask.request) ?? []).map((label) => {
        const nonce = randomBytes(16).toString("base64url")
        const claim = { askId: ask.id, label, topic }
        issued.set(nonce, claim)
        return { label, url: new URL(`act/${signAction(key, nonce, claim)}`, base).href }
      }),
    redeem: (token, isPending) =>
      Effect.gen(function*() {
        const claim = verifyAction(key, token, (nonce) => issued.get(nonce))
        if (claim === undefined) return undefined
        // Not yet answerable (the page has not got the ask yet) or no longer: nothing is used up.
        if (!(yield* isPending(claim.askId))) return undefined
        // Used from here on: of two presses racing past the check, one finds it gone.
        if (!issued.delete(token.slice(0, token.indexOf(".")))) return undefined
        return { askId: claim.askId, label: claim.label, by: { id: `ntfy:${claim.topic}` }, surface: "ntfy" as const }
      })
  }
}
