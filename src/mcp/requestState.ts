/**
 * Sealing the `requestState` a 2026-07-28 client echoes back: the payload as
 * base64url JSON with an expiry, and an HMAC-SHA-256 tag under a random key
 * that never leaves the process. The state comes back from the client, so
 * anything that does not carry our tag over exactly these bytes, or whose
 * expiry has passed, opens to nothing.
 *
 * The SDK's `createRequestStateCodec` does the same through WebCrypto, whose
 * every `sign` and `verify` is an asynchronous job: that cost `ask-user mcp`
 * 12–14 % of its CPU per tool call (docs/decisions/047). `node:crypto`'s HMAC
 * is synchronous. The wire form is the SDK's (`v1.<body>.<tag>`).
 *
 * @internal
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** Seals payloads into states, and opens states this codec sealed. */
export interface RequestStateCodec<A> {
  /** The state for `payload`, good for `ttlMillis` from now. */
  readonly seal: (payload: A) => string
  /** The payload `state` was sealed with; undefined if it was not sealed here, was altered, or expired. */
  readonly open: (state: string) => A | undefined
}

const prefix = "v1."

/** A codec with a fresh 32-byte key: states sealed by another codec never open here. */
export const makeRequestStateCodec = <A>(ttlMillis: number): RequestStateCodec<A> => {
  const key = randomBytes(32)
  const tag = (body: string): string => createHmac("sha256", key).update(prefix).update(body).digest("base64url")
  return {
    seal: (payload) => {
      const body = Buffer.from(JSON.stringify({ p: payload, exp: Date.now() + ttlMillis })).toString("base64url")
      return `${prefix}${body}.${tag(body)}`
    },
    open: (state) => {
      const dot = state.lastIndexOf(".")
      if (!state.startsWith(prefix) || dot <= prefix.length) return undefined
      const body = state.slice(prefix.length, dot)
      // The tags are compared as text: base64url decoding skips stray characters, the text does not.
      const given = Buffer.from(state.slice(dot + 1))
      const expected = Buffer.from(tag(body))
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
      // Our own bytes from here on; the expiry is the one thing left to check.
      const envelope = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { p: A; exp: number }
      return envelope.exp >= Date.now() ? envelope.p : undefined
    }
  }
}
