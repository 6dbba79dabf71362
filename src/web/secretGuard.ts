/**
 * Where the web page may take a secret (decision 119). SPEC lets the page ask
 * a `secret` question only over TLS or on loopback: anywhere else the typed
 * secret, and the token that guards it, cross the network in clear text. A
 * provider serving plain HTTP on any bind but loopback (`--host 0.0.0.0`, a
 * LAN address) refuses such a request before registering it: nothing is
 * shown, and the ask fails `PROVIDER_FAILED` (in a fan-out, another surface
 * such as the terminal still takes it). Served over TLS (its own, or an
 * `https:` public URL in front), the page takes secrets anywhere.
 *
 * @internal
 */
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { secretQuestionIndex } from "../internal/secrets.js"
import { ProviderFailed } from "../UserInteractionError.js"
import { isLoopback } from "./security.js"

/** Why the page served on `host` (over TLS when `secure`) cannot ask `request`; undefined when it can. */
export const secretRefusal = (request: AskUserQuestionRequest, host: string, secure = false): ProviderFailed | undefined => {
  if (secure || isLoopback(host)) return undefined
  const index = secretQuestionIndex(request)
  return index < 0 ? undefined : new ProviderFailed({
    message: `The question "${request.questions[index]!.id}" is secret: the web page takes a secret only on loopback ` +
      `or over TLS, and it is served on ${host} over plain HTTP; nothing was shown.`
  })
}
