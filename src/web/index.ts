/**
 * `effect-user-interaction/web`: the web surface. `WebProvider` asks in a page
 * served on loopback, with a JSON API and a Server-Sent Events stream; given
 * TLS, paired devices (`WebAccess`) and signed answers (`WebActions`), it is
 * a remote inbox a phone can answer.
 *
 * @since 0.2.0
 */
export { WebProvider, type WebPendingAsk, type WebProviderOptions } from "./WebProvider.js"
export type { HeldClaim, WebClaim, WebClaims } from "./WebClaims.js"
export { WebSecretPage, type WebSecretPageOptions } from "./WebSecretPage.js"
export { PairingRefused, type PairedDevice, type WebAccess } from "./WebAccess.js"
export type { RedeemedAction, WebActions } from "./WebActions.js"
