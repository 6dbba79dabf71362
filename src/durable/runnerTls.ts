/**
 * TLS between runners that are not on loopback (decision 166): a PostgreSQL
 * store's runners on several machines talk over networks others can read,
 * and the handshake on the cluster's secret (`runnerHandshake.ts`)
 * authenticates without hiding what follows. Both ends derive one
 * pre-shared key from the secret (HKDF-SHA256), so TLS-PSK needs no
 * certificate, and a peer without the secret fails TLS before anything else.
 *
 * TLS 1.2 with PSK cipher suites: Node's `pskCallback` is TLS 1.2's (TLS 1.3
 * resumption PSKs are another mechanism). Both suites are AEAD.
 *
 * @internal
 */
import { hkdfSync } from "node:crypto"
import type * as Tls from "node:tls"

/** AEAD suites with a pre-shared key (no certificates; no forward secrecy, as with any plain PSK). */
const ciphers = "PSK-AES256-GCM-SHA384:PSK-CHACHA20-POLY1305"

/** The identity the client names; there is one key, so it only has to match. */
const identity = "effect-user-interaction/cluster"

/** The TLS key, derived from the cluster's secret (which then serves the handshake only as itself). */
const keyOf = (secret: Uint8Array) =>
  Buffer.from(hkdfSync("sha256", secret, new Uint8Array(0), "effect-user-interaction cluster TLS-PSK", 32))

/** Whether runners at `host` talk over loopback, which no other machine can read. */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

/**
 * The server's side: only a client that has the key completes the TLS
 * handshake. (`TLSSocket` takes a server's `pskCallback` too, which its
 * options' type does not say.)
 */
export const serverTls = (secret: Uint8Array): Tls.TLSSocketOptions & Pick<Tls.TlsOptions, "pskCallback"> => {
  const key = keyOf(secret)
  return {
    isServer: true,
    ciphers,
    minVersion: "TLSv1.2",
    maxVersion: "TLSv1.2",
    pskCallback: (_socket, claimed) => claimed === identity ? key : null
  }
}

/** The client's side: the server proves the key by completing TLS; there is no certificate to check. */
export const clientTls = (secret: Uint8Array): Tls.ConnectionOptions => {
  const key = keyOf(secret)
  return {
    ciphers,
    minVersion: "TLSv1.2",
    maxVersion: "TLSv1.2",
    checkServerIdentity: () => undefined,
    pskCallback: () => ({ psk: key, identity })
  }
}
