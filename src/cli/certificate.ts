/**
 * The remote inbox's TLS certificate: the person's own (`--tls-cert FILE
 * --tls-key FILE`), or a self-signed one made with `selfsigned` on first use
 * and kept in `$XDG_STATE_HOME/ask-user/tls/` (folder 0700, files 0600), so
 * that a phone that accepted it once meets the same certificate on every
 * later run. Its subjectAltNames cover the machine's addresses and names;
 * when the machine gains an address the kept certificate does not cover, or
 * it nears its end, a new one is made (decision 141).
 *
 * @internal
 */
import { createPrivateKey, X509Certificate } from "node:crypto"
import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { hostname, networkInterfaces } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { makePrivateDirs } from "../durable/storeFiles.js"
import { ProviderFailed } from "../UserInteractionError.js"
import { stateHome } from "./stateHome.js"

/**
 * A certificate and key to serve (PEM), and the certificate's SHA-256
 * fingerprint as people compare it (`AB:CD:…`).
 */
export interface ServedCertificate {
  readonly cert: string
  readonly key: string
  readonly fingerprint: string
}

/** Where the self-signed certificate is kept. */
export const tlsDir = (): string => join(stateHome(), "ask-user", "tls")

/** How long a made certificate is valid, and how near its end a new one is made. */
const validDays = 825
const renewWithinMillis = 30 * 24 * 60 * 60 * 1000

/**
 * The machine's addresses (every interface's, loopback included, but not
 * link-local IPv6, which needs a zone no URL carries) and names.
 */
export const machineNames = (): { readonly ips: ReadonlyArray<string>; readonly dns: ReadonlyArray<string> } => {
  const ips = new Set<string>()
  for (const infos of Object.values(networkInterfaces())) {
    for (const info of infos ?? []) {
      if (!info.address.toLowerCase().startsWith("fe80:")) ips.add(info.address)
    }
  }
  const host = hostname()
  const dns = new Set(["localhost", host, ...(host.includes(".") ? [] : [`${host}.local`])])
  return { ips: [...ips], dns: [...dns] }
}

const fingerprintOf = (cert: string): string => new X509Certificate(cert).fingerprint256

/** Whether the kept certificate still serves: it parses, is not near its end, and covers every name now. */
const stillServes = (cert: string, key: string, names: ReturnType<typeof machineNames>): boolean => {
  try {
    const x509 = new X509Certificate(cert)
    if (!x509.checkPrivateKey(createPrivateKey(key))) return false
    if (new Date(x509.validTo).getTime() - Date.now() < renewWithinMillis) return false
    return names.ips.every((ip) => x509.checkIP(ip) !== undefined) &&
      names.dns.every((name) => x509.checkHost(name) !== undefined)
  } catch {
    return false
  }
}

/** Writes `text` to `path` as 0600 through a temporary file, so a reader never sees half of it. */
const writePrivate = (path: string, text: string): void => {
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, text, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
}

const readOrUndefined = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/**
 * The kept self-signed certificate, made (and kept) first when there is
 * none that serves this machine now.
 */
export const selfSignedCertificate = (dir: string = tlsDir()): Effect.Effect<ServedCertificate, ProviderFailed> =>
  Effect.tryPromise({
    try: async () => {
      const certFile = join(dir, "cert.pem")
      const keyFile = join(dir, "key.pem")
      const names = machineNames()
      makePrivateDirs(dir)
      chmodSync(dir, 0o700)
      const keptCert = readOrUndefined(certFile)
      const keptKey = readOrUndefined(keyFile)
      if (keptCert !== undefined && keptKey !== undefined && stillServes(keptCert, keptKey, names)) {
        // Files an older run or another tool left readable by others are made private again.
        chmodSync(certFile, 0o600)
        chmodSync(keyFile, 0o600)
        return { cert: keptCert, key: keptKey, fingerprint: fingerprintOf(keptCert) }
      }
      // Loaded only here: most runs reuse the kept certificate.
      // A CommonJS module: its exports are its default export (the bundled program has no other).
      const { generate } = (await import("selfsigned")).default
      const notBeforeDate = new Date(Date.now() - 60_000)
      const made = await generate([{ name: "commonName", value: `ask-user inbox on ${hostname()}` }], {
        keyType: "ec",
        curve: "P-256",
        algorithm: "sha256",
        notBeforeDate,
        notAfterDate: new Date(notBeforeDate.getTime() + validDays * 24 * 60 * 60 * 1000),
        extensions: [
          { name: "keyUsage", digitalSignature: true, critical: true },
          { name: "extKeyUsage", serverAuth: true },
          {
            name: "subjectAltName",
            altNames: [
              ...names.dns.map((value) => ({ type: 2 as const, value })),
              ...names.ips.map((ip) => ({ type: 7 as const, ip }))
            ]
          }
        ]
      })
      writePrivate(keyFile, made.private)
      writePrivate(certFile, made.cert)
      return { cert: made.cert, key: made.private, fingerprint: fingerprintOf(made.cert) }
    },
    catch: (cause) =>
      new ProviderFailed({
        message: `Cannot make or read the inbox's TLS certificate in ${dir}: ${(cause as Error).message ?? String(cause)}`,
        cause
      })
  })

/** The person's own certificate and key (`--tls-cert`, `--tls-key`), checked to belong together. */
export const ownCertificate = (certFile: string, keyFile: string): Effect.Effect<ServedCertificate, ProviderFailed> =>
  Effect.try({
    try: () => {
      const cert = readFileSync(certFile, "utf8")
      const key = readFileSync(keyFile, "utf8")
      const x509 = new X509Certificate(cert)
      if (!x509.checkPrivateKey(createPrivateKey(key))) throw new Error("the key does not belong to the certificate")
      return { cert, key, fingerprint: x509.fingerprint256 }
    },
    catch: (cause) =>
      new ProviderFailed({
        message: `Cannot use the certificate ${certFile} with the key ${keyFile}: ${(cause as Error).message ?? String(cause)}`,
        cause
      })
  })
