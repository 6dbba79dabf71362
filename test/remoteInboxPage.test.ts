/**
 * SPEC "The inbox on another device", as a newcomer follows README's
 * "Answer from your phone": the built `ask-user inbox --web --remote --port 0`
 * on a SQLite store, `ask-user pair`'s URL opened in headless Chromium at
 * 360×640 on the machine's network address (the self-signed certificate
 * trusted by its public key's fingerprint, never by turning checks off),
 * the phone named, a durable ask answered on the page as the device, then
 * `ask-user devices revoke` and the page loses access.
 */
import { expect, layer } from "@effect/vitest"
import { createHash, X509Certificate } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { start, tempDir } from "./cliHarness.js"
import { Chromium, promise } from "./support/chromium.js"
import { ask, makeStore, run } from "./support/durableCli.js"

const phone = { width: 360, height: 640 }

/** The base64 SHA-256 of a certificate's public key: what Chromium's SPKI list takes. */
const spkiHash = (cert: string) =>
  createHash("sha256").update(new X509Certificate(cert).publicKey.export({ type: "spki", format: "der" })).digest("base64")

layer(Layer.empty, { timeout: 120_000, excludeTestServices: true })("the remote inbox, end to end", (it) => {
  it.effect("pair from ask-user pair's URL at 360×640, answer a durable ask as the device, lose access on devices revoke", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const state = tempDir()
      const inbox = yield* Effect.acquireRelease(
        Effect.sync(() =>
          start(["inbox", "--web", "--remote", "--port", "0", "--store", store.url], { env: { XDG_STATE_HOME: state } })
        ),
        (inbox) => Effect.promise(() => (inbox.child.kill("SIGTERM"), inbox.exited))
      )
      yield* promise(() => inbox.stderrContains(")\n"))
      const base = /^Inbox at (https:\/\/\S+\/) \(SHA-256 fingerprint /.exec(inbox.stderr())![1]!
      const cert = readFileSync(join(state, "ask-user", "tls", "cert.pem"), "utf8")
      const browser = Context.get(yield* Layer.build(Chromium.trusting(spkiHash(cert))), Chromium)
      const context = yield* Effect.acquireRelease(
        promise(() => browser.newContext({ viewport: phone })),
        (context) => promise(() => context.close())
      )
      const page = yield* promise(() => context.newPage())
      const problems: Array<string> = []
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))

      // Step 2 and 3 of README: the pairing URL (as the QR code carries it), the phone named.
      const paired = yield* promise(() => run(["pair", "--store", store.url]))
      const { code, url } = JSON.parse(paired.stdout)
      expect(url).toBe(`${base}pair#code=${code}`)
      const started = Date.now()
      yield* promise(() => page.goto(url))
      expect(yield* promise(() => page.getByLabel("Pairing code").inputValue())).toBe(code)
      yield* promise(() => page.getByLabel("Device name").fill("Ana's phone"))
      yield* promise(() => page.getByRole("button", { name: "Pair", exact: true }).click())
      yield* promise(() => page.getByText("Live: new questions appear here as they arrive.").waitFor())
      const devices = (yield* promise(() => run(["devices", "--store", store.url]))).stdout.split("\n").filter(Boolean)
      const device = JSON.parse(devices[0]!)
      expect(device).toMatchObject({ name: "Ana's phone" })

      // Step 5: an agent asks durably; the phone answers on the page.
      const asker = ask(store, "phone-1", "--expires", "1h")
      yield* promise(() => page.getByRole("heading", { name: "Ship it?" }).waitFor({ timeout: 30_000 }))
      // Its age and time left come from the store (the ask may have waited for days before).
      expect(yield* promise(() => page.locator(".asker").textContent())).toMatch(/ · (5\d|60) min left$/)
      yield* promise(() => page.getByRole("button", { name: /^Yes/ }).click())
      expect(yield* promise(() => asker.exited)).toBe(0)
      expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
      yield* Effect.logInfo(`pairing to first answer in the browser: ${Date.now() - started} ms`)
      const status = JSON.parse((yield* promise(() => run(["status", "--store", store.url, "phone-1"]))).stdout)
      expect(status.receipt).toMatchObject({ surface: "web", by: { id: `device:${device.id}`, name: "Ana's phone" } })

      // Lost the phone: revoked from the command line, the page finds itself unpaired.
      expect((yield* promise(() => run(["devices", "revoke", "--store", store.url, "Ana's phone"]))).code).toBe(0)
      yield* promise(() => page.getByRole("heading", { name: "Pair this device" }).waitFor({ timeout: 10_000 }))
      expect(yield* promise(() => page.evaluate(() => fetch("/api/questions").then((response) => response.status)))).toBe(401)
      expect(problems).toEqual([])
    }))
})
