/**
 * `effect-user-interaction/web`: the web surface. `WebProvider` asks in a page
 * served on loopback, with a JSON API and a Server-Sent Events stream.
 *
 * @since 0.2.0
 */
export { WebProvider, type WebPendingAsk, type WebProviderOptions } from "./WebProvider.js"
export type { HeldClaim, WebClaim, WebClaims } from "./WebClaims.js"
export { WebSecretPage, type WebSecretPageOptions } from "./WebSecretPage.js"
