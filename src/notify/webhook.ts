/**
 * The `webhook:URL` target: a POST of the notice as JSON, signed per the
 * Standard Webhooks spec (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256>`) with the `standardwebhooks`
 * package, the secret in its `whsec_` base64 form from
 * `ASK_USER_WEBHOOK_SECRET`. Every try of one notice has the same
 * `webhook-id`, so a receiver can drop a repeat.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { Webhook } from "standardwebhooks"
import { post } from "./http.js"
import { type Notice, NotifyFailed, type NotifyTarget } from "./NotifyTarget.js"
import { shownUrl } from "./targetName.js"
import { inertStrings } from "./text.js"

/** The JSON body for `notice`: the ask's questions (model text inert), never an answer. */
export const webhookPayload = (notice: Notice) => {
  const { ask } = notice
  const agent = ask.request.agent?.name ?? ask.request.agent?.id
  return {
    type: notice.type,
    ask: {
      id: ask.id,
      ...(agent === undefined ? {} : { agent: inertStrings(agent) }),
      questions: inertStrings(ask.request.questions),
      askedAt: ask.askedAt.toISOString(),
      ...(ask.expiresAt === undefined ? {} : { expiresAt: ask.expiresAt.toISOString() }),
      ...(notice.link === undefined ? {} : { url: notice.link })
    },
    ...(notice.outcome === undefined ? {} : { outcome: notice.outcome })
  }
}

/** The signer for `secret`, or why there is none. */
const signer = (secret: string | undefined): Webhook | string => {
  if (secret === undefined || secret === "") return "no secret: set ASK_USER_WEBHOOK_SECRET (whsec_…)"
  try {
    return new Webhook(secret)
  } catch {
    return "the secret is not in whsec_ base64 form"
  }
}

/**
 * A target POSTing signed notices to `url`, with `secret` (default
 * `ASK_USER_WEBHOOK_SECRET`).
 *
 * @since 0.3.0
 */
export const webhook = (url: string, options?: { readonly secret?: string | undefined }): NotifyTarget => {
  const signing = signer(options?.secret ?? process.env["ASK_USER_WEBHOOK_SECRET"])
  const ids = new WeakMap<Notice, string>()
  return {
    name: `webhook:${shownUrl(url)}`,
    send: (notice) =>
      Effect.suspend(() => {
        if (typeof signing === "string") return Effect.fail(new NotifyFailed({ message: signing }))
        const id = ids.get(notice) ?? `msg_${crypto.randomUUID()}`
        ids.set(notice, id)
        const now = new Date()
        const body = JSON.stringify(webhookPayload(notice))
        return post(url, {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
          "webhook-signature": signing.sign(id, now, body)
        }, body)
      })
  }
}
