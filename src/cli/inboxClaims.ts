/**
 * The durable store's claims as the web page's claims hook, for `ask-user
 * inbox --web`: the page claims an ask in the store for whoever answers it
 * there (the token holder, `web:token`, on the loopback page), for SPEC's 2
 * minutes, renewed while the page holds the ask open; it learns of claims
 * taken elsewhere (`ask-user answer` on another machine, another inbox) from
 * the store's pending asks. The claims live in the store, so every other
 * answerer of the ask is held to them. Also the asks' times, from the store:
 * the page shows a durable ask's age and time left, and it may have waited
 * for days before this inbox showed it.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { defaultClaimTtlMillis, isLive } from "../durable/claims.js"
import type { DurableStore } from "../durable/DurableStore.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import type { HeldClaim, WebClaims } from "../web/WebClaims.js"

/** The claims of `store`'s pending asks, read on the database's clock. */
export const inboxClaims = (store: DurableStore["Service"]): WebClaims => ({
  ttl: defaultClaimTtlMillis,
  claim: (askId, by) => store.claim(askId, by, defaultClaimTtlMillis),
  release: store.release,
  held: Effect.gen(function*() {
    const claimed = (yield* store.pending).filter((ask) => ask.claim !== undefined)
    if (claimed.length === 0) return []
    const now = yield* store.databaseNow
    return claimed.flatMap((ask): Array<HeldClaim> => isLive(ask.claim, now) ? [{ askId: ask.id, claim: ask.claim }] : [])
  })
})

/** When each of `store`'s asks was asked and when it expires: the web provider's `askTimes`. */
export const inboxAskTimes = (store: DurableStore["Service"]) => (request: AskUserQuestionRequest) =>
  request.id === undefined
    ? Effect.succeed(undefined)
    : Effect.map(store.find(request.id), (record) =>
      record === undefined
        ? undefined
        : { askedAt: record.askedAt, ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }) })
