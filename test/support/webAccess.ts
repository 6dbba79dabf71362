/**
 * In-memory keepers for the remote inbox's tests: a `WebAccess` (pairing
 * codes and paired devices, credentials kept hashed, revocable), a
 * `WebActions` (single-use answer tokens), a self-signed certificate for
 * loopback and an HTTPS client that trusts exactly that certificate.
 */
import { createHash, randomBytes, X509Certificate } from "node:crypto"
import { request as httpsRequest } from "node:https"
import { checkServerIdentity } from "node:tls"
import { Effect } from "effect"
import { generate } from "selfsigned"
import type { Answerer } from "effect-user-interaction"
import { PairingRefused, type PairedDevice, type WebAccess } from "../../src/web/WebAccess.js"
import type { RedeemedAction, WebActions } from "../../src/web/WebActions.js"
import { readReply, type Reply } from "./webClient.js"

const hash = (text: string) => createHash("sha256").update(text).digest("hex")

/** The keeper, and what a test does to it besides: mint a code, revoke a device, look. */
export interface MemoryAccess extends WebAccess {
  readonly newCode: () => string
  readonly revoke: (deviceId: string) => void
  readonly devices: () => ReadonlyArray<PairedDevice>
}

/** Codes single use, void after 5 wrong tries (of any code), as SPEC says a store keeps them. */
export const memoryAccess = (): MemoryAccess => {
  const codes = new Set<string>()
  const devices = new Map<string, PairedDevice>()
  let wrong = 0
  let next = 1
  return {
    newCode: () => {
      const code = randomBytes(5).toString("hex").toUpperCase()
      codes.add(hash(code))
      return code
    },
    revoke: (deviceId) => {
      for (const [key, device] of devices) if (device.id === deviceId) devices.delete(key)
    },
    devices: () => Array.from(devices.values()),
    authenticate: (credential) => Effect.sync(() => devices.get(hash(credential))),
    pair: (code, name) =>
      Effect.suspend(() => {
        if (name.trim() === "" || name.length > 64) {
          return Effect.fail(new PairingRefused({ reason: "name", message: "Give the device a name of 1 to 64 characters." }))
        }
        if (!codes.delete(hash(code))) {
          if (++wrong >= 5) codes.clear()
          return Effect.fail(new PairingRefused({ reason: "invalid", message: "That code is wrong, expired or used." }))
        }
        const device = { id: `d${next++}`, name }
        const credential = randomBytes(32).toString("base64url")
        devices.set(hash(credential), device)
        return Effect.succeed({ device, credential })
      })
  }
}

/** Single-use tokens, each answering one ask with one label. */
export const memoryActions = () => {
  const tokens = new Map<string, RedeemedAction>()
  const actions: WebActions & {
    readonly mint: (askId: string, label: string, by?: Answerer) => string
  } = {
    mint: (askId, label, by = { id: "ntfy:phone" }) => {
      const token = randomBytes(24).toString("base64url")
      tokens.set(token, { askId, label, by, surface: "ntfy" })
      return token
    },
    redeem: (token) =>
      Effect.sync(() => {
        const found = tokens.get(token)
        tokens.delete(token)
        return found
      })
  }
  return actions
}

/** A self-signed certificate for 127.0.0.1, and the base64 SHA-256 of its public key (Chromium trusts it by that). */
export const loopbackCertificate = () =>
  Effect.promise(async () => {
    const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
      keySize: 2048,
      extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }]
    })
    const spki = new X509Certificate(pems.cert).publicKey.export({ type: "spki", format: "der" })
    return { cert: pems.cert, key: pems.private, spkiHash: createHash("sha256").update(spki).digest("base64") }
  })

export interface SendTls {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

/**
 * Options of an HTTPS request to loopback that trust `ca` alone and check the
 * certificate names 127.0.0.1, whatever `Host` header the request sends (Node
 * would check it against that header's name).
 */
export const trusting = (ca: string) => ({
  host: "127.0.0.1",
  ca,
  agent: false as const,
  checkServerIdentity: (_host: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity("127.0.0.1", cert)
})

/** One HTTPS request to `port` on loopback, trusting only `ca`. */
export const sendTls = (port: number, ca: string, path: string, options: SendTls = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...options.headers }
    const req = httpsRequest(
      { ...trusting(ca), port, path, method: options.method ?? "GET", headers },
      (res) => readReply(res, resolve, reject)
    )
    req.on("error", reject)
    req.end(options.body)
  })

/** POSTs JSON over HTTPS (with the device cookie when given). */
export const postTls = (port: number, ca: string, path: string, body: unknown, cookie?: string) =>
  sendTls(port, ca, path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body)
  })

/** The `name=value` of a `Set-Cookie` reply, as a browser would send it back. */
export const cookieOf = (reply: Reply): string => {
  const setCookie = reply.headers["set-cookie"]
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie
  if (first === undefined) throw new Error(`no cookie set (HTTP ${reply.status})`)
  return first.split(";")[0]!
}
