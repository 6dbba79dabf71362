/**
 * Answers from a notification: the tokens behind ntfy's action buttons. An
 * ask of one single-select question with at most 3 options, and no
 * `answerableBy` (a topic is not a person), gets one button per option; each
 * button POSTs to the remote inbox's `/act/<token>`, and the token says which
 * ask, which option and which topic, signed with HMAC-SHA256 under a key
 * that lives only as long as the inbox run that made it (decision 142).
 *
 * A token is single use (`ActionTokens.redeem` consumes it) and valid only
 * while its ask is pending: a press after the ask settled or expired, a
 * replayed press, a forged or altered token all redeem to nothing.
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
 * Signs `claim` under `key` with a fresh nonce: `<payload>.<mac>`, both
 * base64url, the payload a JSON array (no field names to spell twice).
 *
 * @since 0.3.0
 */
export const signAction = (key: Uint8Array, claim: ActionClaim): string => {
  const payload = Buffer.from(
    JSON.stringify([claim.askId, claim.label, claim.topic, randomBytes(12).toString("base64url")]),
    "utf8"
  ).toString("base64url")
  return `${payload}.${mac(key, payload)}`
}

const mac = (key: Uint8Array, payload: string): string => createHmac("sha256", key).update(payload).digest("base64url")

/**
 * The claim and nonce of a token signed under `key`; undefined for anything
 * else. The MAC is compared in constant time before the payload is read.
 *
 * @since 0.3.0
 */
export const verifyAction = (
  key: Uint8Array,
  token: string
): (ActionClaim & { readonly nonce: string }) | undefined => {
  const dot = token.indexOf(".")
  if (dot <= 0 || token.length > 4096) return undefined
  const payload = token.slice(0, dot)
  const given = Buffer.from(token.slice(dot + 1), "base64url")
  const expected = Buffer.from(mac(key, payload), "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
    if (!Array.isArray(parsed) || parsed.length !== 4 || !parsed.every((part) => typeof part === "string")) return undefined
    const [askId, label, topic, nonce] = parsed as [string, string, string, string]
    return { askId, label, topic, nonce }
  } catch {
    return undefined
  }
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
 * The key and the record of used tokens live in memory: when the inbox
 * stops, every button it published stops working, as its address does.
 *
 * @since 0.3.0
 */
export const makeActionTokens = (base: string, key: Uint8Array = randomBytes(32)): ActionTokens => {
  const used = new Set<string>()
  return {
    buttons: (ask, topic) =>
      (actionLabels(ask.request) ?? []).map((label) => ({
        label,
        url: new URL(`act/${signAction(key, { askId: ask.id, label, topic })}`, base).href
      })),
    redeem: (token, isPending) =>
      Effect.gen(function*() {
        const claim = verifyAction(key, token)
        if (claim === undefined || used.has(claim.nonce)) return undefined
        // Used from here on, before anything waits: a second press racing the first finds it
        // used; and a token whose ask is settled is of no use again either.
        used.add(claim.nonce)
        if (!(yield* isPending(claim.askId))) return undefined
        return { askId: claim.askId, label: claim.label, by: { id: `ntfy:${claim.topic}` }, surface: "ntfy" as const }
      })
  }
}
