/**
 * SPEC "The inbox on another device", the commands: `ask-user pair` (one
 * JSON line, the running remote inbox's pairing URL when there is one),
 * `ask-user devices` and `devices revoke ID|NAME` (exit 6 for a device
 * nobody has), over SQLite files with the built program, and the flag
 * rules of `inbox --web --remote` (usage errors, exit 2).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, References, Scope } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { codeAlphabet, DurableInbox, DurableStore, type PairedDevices } from "effect-user-interaction/durable"
import { renderUnicodeCompact } from "uqr"
import { program } from "./cliHarness.js"
import { makeStore, run } from "./support/durableCli.js"

/** Runs `f` on the store's devices in this process. */
const onDevices = <A, E>(url: string, f: (devices: PairedDevices) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.runPromise(
    Effect.flatMap(DurableInbox, (inbox) => f(inbox.devices)).pipe(
      Effect.scoped,
      Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))),
      Effect.provideService(References.MinimumLogLevel, "Error")
    )
  )

const lines = (stdout: string) => stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)

describe("ask-user pair and devices", () => {
  it("pair prints {code, expiresAt}; with a remote inbox running on the store, its pairing URL too; the code pairs once", async () => {
    const store = makeStore()
    const alone = await run(["pair", "--store", store.url])
    expect(alone.code).toBe(0)
    const [printed] = lines(alone.stdout)
    expect(Object.keys(printed!)).toEqual(["code", "expiresAt"])
    expect(printed!.code).toMatch(new RegExp(`^[${codeAlphabet}]{10}$`))
    const left = Date.parse(String(printed!.expiresAt)) - Date.now()
    expect(left).toBeGreaterThan(8 * 60_000)
    expect(left).toBeLessThanOrEqual(10 * 60_000)
    // Not a terminal: no QR code, only the hint that no inbox runs.
    expect(alone.stderr).toContain("no remote inbox runs on this store")
    expect(alone.stderr).not.toContain("▀")

    // A remote inbox running (in this process) on the same store.
    const base = "https://192.0.2.2:8443/"
    const scope = await Effect.runPromise(Scope.make())
    try {
      await onDevices(store.url, (devices) => devices.announce(base).pipe(Scope.provide(scope)))
      const withInbox = await run(["pair", "--store", store.url])
      expect([withInbox.code, withInbox.stderr]).toEqual([0, ""])
      const [line] = lines(withInbox.stdout)
      expect(Object.keys(line!)).toEqual(["code", "url", "expiresAt"])
      expect(line!.url).toBe(`${base}pair#code=${line!.code}`)
      // On a terminal, pair draws the URL's QR code and the code on stderr (stdout still the JSON line).
      const onTty = spawnSync("script", ["-qfec", `${process.execPath} ${program} pair --store ${store.url}`, "/dev/null"], {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" }
      })
      const drawn = onTty.stdout.replace(/\r\n/g, "\n")
      const shown = JSON.parse(drawn.split("\n")[0]!)
      expect(drawn).toContain(renderUnicodeCompact(shown.url, { border: 2 }))
      expect(drawn).toContain(`Pairing code: ${shown.code.slice(0, 5)} ${shown.code.slice(5)} (single use, valid until `)
      const outcomes = await onDevices(store.url, (devices) =>
        Effect.all([devices.pair(String(line!.code), "Ana's phone"), devices.pair(String(line!.code), "Mallory")].map(
          (pairing) => Effect.match(pairing, { onSuccess: (paired) => paired.device.name, onFailure: (error) => error.reason })
        )))
      expect(outcomes).toEqual(["Ana's phone", "invalid"])
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 60_000)

  it("devices lists the paired devices; revoke by name or id revokes at once; an unknown one exits 6", async () => {
    const store = makeStore()
    expect(await run(["devices", "--store", store.url])).toEqual({ code: 0, stdout: "", stderr: "" })
    const none = await run(["devices", "revoke", "--store", store.url, "phone"])
    expect([none.code, none.stdout]).toEqual([6, ""])
    expect(none.stderr).toContain("does not exist")
    expect(existsSync(join(store.dir, "asks.db"))).toBe(false)
    const paired = await onDevices(store.url, (devices) =>
      Effect.gen(function*() {
        const phone = yield* devices.pair((yield* devices.newCode).code, "Ana's phone")
        const laptop = yield* devices.pair((yield* devices.newCode).code, "laptop")
        yield* devices.authenticate(phone.credential)
        return { phone, laptop }
      }))
    const listed = await run(["devices", "--store", store.url])
    expect([listed.code, listed.stderr]).toEqual([0, ""])
    // Listed in the order paired; two paired in one millisecond may come either way.
    const listedDevices = lines(listed.stdout)
    expect(listedDevices).toHaveLength(2)
    const phone = listedDevices.find((device) => device.name === "Ana's phone")
    const laptop = listedDevices.find((device) => device.name === "laptop")
    expect(phone).toEqual({
      id: paired.phone.device.id,
      name: "Ana's phone",
      pairedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
    })
    expect(laptop).toEqual({ id: paired.laptop.device.id, name: "laptop", pairedAt: expect.any(String) })

    const byName = await run(["devices", "revoke", "--store", store.url, "Ana's phone"])
    expect([byName.code, byName.stderr]).toEqual([0, ""])
    expect(lines(byName.stdout).map((device) => device.id)).toEqual([paired.phone.device.id])
    const byId = await run(["devices", "revoke", "--store", store.url, paired.laptop.device.id])
    expect(byId.code).toBe(0)
    const seen = await onDevices(store.url, (devices) =>
      Effect.all([devices.authenticate(paired.phone.credential), devices.authenticate(paired.laptop.credential)]))
    expect(seen).toEqual([undefined, undefined])
    expect(await run(["devices", "--store", store.url])).toEqual({ code: 0, stdout: "", stderr: "" })

    const unknown = await run(["devices", "revoke", "--store", store.url, "nobody's \u001b[2Jphone"])
    expect([unknown.code, unknown.stdout]).toEqual([6, ""])
    expect(unknown.stderr).toContain("No paired device has the id or name")
    expect(unknown.stderr).not.toContain("\u001b")
    // A device already revoked is no device to revoke again.
    expect((await run(["devices", "revoke", "--store", store.url, paired.laptop.device.id])).code).toBe(6)
  }, 60_000)

  it("inbox's remote flags: --remote needs --web, --tls-* and --public-url need --remote, and more (exit 2, nothing served)", async () => {
    const store = makeStore()
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--remote"], "--remote only applies with --web."],
      [["--web", "--tls-cert", "c.pem", "--tls-key", "k.pem"], "--tls-cert only applies with --remote."],
      [["--web", "--public-url", "https://inbox.example.org/"], "--public-url only applies with --remote."],
      [["--web", "--remote", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together."],
      [["--web", "--remote", "--tls-key", "k.pem"], "--tls-cert and --tls-key go together."],
      [["--web", "--remote", "--token", "abc"], "--token does not apply with --remote"],
      [
        ["--web", "--remote", "--public-url", "https://inbox.example.org/", "--tls-cert", "c.pem", "--tls-key", "k.pem"],
        "--tls-cert does not apply with --public-url"
      ],
      [["--web", "--remote", "--public-url", "ftp://inbox.example.org/"], "--public-url \"ftp://inbox.example.org/\" is not valid"]
    ]
    for (const [flags, message] of cases) {
      const result = await run(["inbox", "--store", store.url, ...flags])
      expect([flags, result.code, result.stdout]).toEqual([flags, 2, ""])
      expect(result.stderr).toContain(message)
    }
    expect(existsSync(join(store.dir, "asks.db"))).toBe(false)
  }, 120_000)
})
