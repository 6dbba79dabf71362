/**
 * Paired devices on the web page: what `WebProvider.layer({ access })` needs
 * of whatever keeps pairing codes and device credentials, so that a remote
 * inbox answers nothing to a client that has not paired. The web surface
 * keeps no devices itself: a durable inbox keeps the codes (hashed) and the
 * devices (their credentials hashed) in its store, where `ask-user pair` and
 * `ask-user devices revoke` meet them too (`ask-user inbox --web --remote`
 * wires the two).
 *
 * With `access`, every path but `/pair` needs the device credential cookie;
 * `/pair` takes a device name and a code and sets it. The page's visitors
 * answer as `device:<id>` with the device's name.
 *
 * @since 0.3.0
 */
import type * as Effect from "effect/Effect"
import * as Data from "effect/Data"

/**
 * A paired device as the page knows it: its id (the answerer is
 * `device:<id>`) and the name its person gave it.
 *
 * @since 0.3.0
 */
export interface PairedDevice {
  readonly id: string
  readonly name: string
}

/**
 * Why a pairing code was refused: `invalid` covers a wrong, expired, used
 * or voided code alike (the page says the same for each, so a guesser learns
 * nothing), `name` a device name that is empty or too long.
 *
 * @since 0.3.0
 */
export class PairingRefused extends Data.TaggedError("PairingRefused")<{
  readonly reason: "invalid" | "name"
  readonly message: string
}> {}

/**
 * The access hook of `WebProvider.layer`.
 *
 * @since 0.3.0
 */
export interface WebAccess {
  /**
   * The device a credential (the cookie's value) belongs to, recording its
   * use; undefined when no device holds it or it was revoked. The provider
   * asks again for every request and, at least every half second, for each
   * open event stream, ending the stream when the answer is undefined.
   */
  readonly authenticate: (credential: string) => Effect.Effect<PairedDevice | undefined>
  /**
   * Redeems a pairing code for a new device named `name`: the device, and
   * the credential the page sets as its cookie (a fresh 256-bit secret the
   * keeper stores only hashed). Codes are compared in constant time; the
   * keeper voids codes after too many wrong tries. The provider limits tries
   * per client address itself (10 a minute, 429 beyond).
   */
  readonly pair: (
    code: string,
    name: string
  ) => Effect.Effect<{ readonly device: PairedDevice; readonly credential: string }, PairingRefused>
}
