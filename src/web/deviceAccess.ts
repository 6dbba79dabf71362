/**
 * The parts of a remote inbox's gate that are about paired devices: the
 * credential cookie (its name and flags), who a request's cookie says it is,
 * how often a client address may try a pairing code, and the wait that ends a
 * revoked device's event stream. The devices themselves are kept by whatever
 * gave the provider its `WebAccess` (a durable inbox's store).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { IncomingMessage } from "node:http"
import type { Answerer } from "../Answerer.js"
import type { PairedDevice, WebAccess } from "./WebAccess.js"

/** The cookie that holds a paired device's credential. */
export const deviceCookieName = "ask_user_device"

/**
 * How long a browser keeps the credential: 400 days, the most Chromium
 * allows. Revoking the device, not the cookie's age, is what ends its access.
 */
const cookieMaxAgeSeconds = 400 * 24 * 60 * 60

/**
 * The `Set-Cookie` value that hands a device its credential: out of the
 * page's script's reach (`HttpOnly`), never sent by another site's request
 * (`SameSite=Strict`), and, where the page is HTTPS (its own TLS, or a public
 * URL behind a proxy that terminates it), never sent over plain HTTP (`Secure`).
 */
export const deviceCookie = (credential: string, secure: boolean): string =>
  `${deviceCookieName}=${encodeURIComponent(credential)}; Path=/; Max-Age=${cookieMaxAgeSeconds}; HttpOnly; ` +
  `SameSite=Strict${secure ? "; Secure" : ""}`

/** The credential a request's cookie carries, if any. */
export const credentialOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[deviceCookieName]
  return value === undefined || value === "" ? undefined : value
}

/** A device as an answerer: `device:<id>`, named as its person named it. */
export const deviceAnswerer = (device: PairedDevice): Answerer => ({ id: `device:${device.id}`, name: device.name })

/** How often a device's open event stream asks again whether the device still holds its credential. */
export const recheckMillis = 500

/**
 * Completes once `credential` no longer admits a device (revoked): asked
 * every `recheckMillis`, so a revoked device's stream ends within a second.
 */
export const untilRevoked = (access: WebAccess, credential: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    while ((yield* access.authenticate(credential)) !== undefined) yield* Effect.sleep(recheckMillis)
  })

/** The address a request came from, as the socket says (never a header a client could write). */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string =>
  (request.source as IncomingMessage).socket?.remoteAddress ?? "unknown"

/** At most this many pairing tries per client address in `triesWindowMillis` (SPEC). */
export const maxTries = 10
const triesWindowMillis = 60_000

/**
 * Counts pairing tries per client address over a sliding minute. `take`
 * records a try and says whether it may go ahead: undefined when it may, else
 * the seconds until it may (the 429's `Retry-After`). A refused try is not
 * recorded, so a client that keeps hammering is let in again a minute after
 * its tenth try.
 */
export const makeTryLimiter = () => {
  const tries = new Map<string, Array<number>>()
  const sweep = (now: number) => {
    for (const [address, times] of tries) {
      if (times.every((time) => time <= now - triesWindowMillis)) tries.delete(address)
    }
  }
  return {
    take: (address: string): Effect.Effect<number | undefined> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        // Bounded memory: addresses that went quiet are forgotten.
        if (tries.size > 1024) sweep(now)
        const recent = (tries.get(address) ?? []).filter((time) => time > now - triesWindowMillis)
        if (recent.length >= maxTries) {
          tries.set(address, recent)
          return Math.max(1, Math.ceil((recent[0]! + triesWindowMillis - now) / 1000))
        }
        recent.push(now)
        tries.set(address, recent)
        return undefined
      })
  }
}
