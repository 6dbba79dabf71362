/**
 * SPEC "The inbox on another device": the remote inbox's self-signed
 * certificate, made on first use in the state directory (folder 0700,
 * files 0600), reused by later runs, covering the machine's addresses and
 * names, and trusted by a client that pins it (`ca`); the person's own
 * certificate and key, refused when they do not belong together.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { X509Certificate } from "node:crypto"
import { chmodSync, statSync, writeFileSync } from "node:fs"
import { createServer, request } from "node:https"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { machineNames, ownCertificate, selfSignedCertificate } from "../src/cli/certificate.js"
import { tempDir } from "./cliHarness.js"

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)

/** GETs `/` over HTTPS from `host`, trusting only `ca`. */
const fetchOver = (cert: { readonly cert: string; readonly key: string }, host: string) =>
  new Promise<string>((resolve, reject) => {
    const server = createServer({ cert: cert.cert, key: cert.key }, (_req, res) => res.end("hello"))
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo
      request({ host, port, ca: cert.cert, path: "/" }, (res) => {
        let body = ""
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
        res.on("end", () => server.close(() => resolve(body)))
      }).on("error", (error) => server.close(() => reject(error))).end()
    })
  })

describe("the remote inbox's certificate", () => {
  it("is made once in a private folder, reused by the next run, covers every address and name, and a pinning client trusts it", async () => {
    const dir = join(tempDir(), "state", "ask-user", "tls")
    const made = await Effect.runPromise(selfSignedCertificate(dir))
    expect(mode(dir)).toBe("700")
    expect(mode(join(dir, "cert.pem"))).toBe("600")
    expect(mode(join(dir, "key.pem"))).toBe("600")
    expect(made.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
    const x509 = new X509Certificate(made.cert)
    const names = machineNames()
    for (const ip of names.ips) expect(x509.checkIP(ip)).toBe(ip)
    for (const name of names.dns) expect(x509.checkHost(name)).toBe(name)
    // A later run finds it (made readable by others meanwhile: it is tightened again).
    chmodSync(join(dir, "key.pem"), 0o644)
    const again = await Effect.runPromise(selfSignedCertificate(dir))
    expect(again.fingerprint).toBe(made.fingerprint)
    expect(mode(join(dir, "key.pem"))).toBe("600")
    const address = names.ips.find((ip) => ip.includes(".") && ip !== "127.0.0.1") ?? "127.0.0.1"
    expect(await fetchOver(made, address)).toBe("hello")
  })

  it("a kept certificate that is damaged is replaced", async () => {
    const dir = join(tempDir(), "tls")
    const made = await Effect.runPromise(selfSignedCertificate(dir))
    writeFileSync(join(dir, "cert.pem"), "not a certificate")
    const replaced = await Effect.runPromise(selfSignedCertificate(dir))
    expect(replaced.fingerprint).not.toBe(made.fingerprint)
    expect(await fetchOver(replaced, "127.0.0.1")).toBe("hello")
  })

  it("the person's own certificate is used as given; a key of another certificate is refused naming both files", async () => {
    const one = await Effect.runPromise(selfSignedCertificate(join(tempDir(), "one")))
    const two = await Effect.runPromise(selfSignedCertificate(join(tempDir(), "two")))
    const dir = tempDir()
    const certFile = join(dir, "mine.pem")
    const keyFile = join(dir, "other-key.pem")
    writeFileSync(certFile, one.cert)
    writeFileSync(keyFile, two.key)
    const refused = await Effect.runPromise(Effect.flip(ownCertificate(certFile, keyFile)))
    expect(refused.code).toBe("PROVIDER_FAILED")
    expect(refused.message).toContain(certFile)
    expect(refused.message).toContain("does not belong")
    writeFileSync(keyFile, one.key)
    expect((await Effect.runPromise(ownCertificate(certFile, keyFile))).fingerprint).toBe(one.fingerprint)
  })
})
