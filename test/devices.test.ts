/**
 * SPEC "The inbox on another device", the store's side: pairing codes and
 * paired devices in a durable store, attacked. Wrong, expired, reused and
 * brute-forced codes (the 6th try on a code fails even with the right one),
 * two redemptions of one code at once, a revoked or forged credential, and
 * neither codes nor credentials readable from the store's file. The same
 * suite runs on a SQLite file and on a PostgreSQL database.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, References, Scope } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { codeAlphabet, DurableInbox, DurableStore, type PairedDevices } from "effect-user-interaction/durable"
import { tempDir } from "./cliHarness.js"
import { postgresBin, psql } from "./support/postgres.js"
import { privatePostgres } from "./support/privatePostgres.js"

interface TestStore {
  readonly url: string
  /** Runs one SQL statement on the store behind the library's back (to age a code). */
  readonly exec: (statement: string) => void
}

const sqliteStore = (): TestStore => {
  const file = join(tempDir(), "asks.db")
  return {
    url: `sqlite:${file}`,
    exec: (statement) => {
      const db = new DatabaseSync(file)
      try {
        db.exec(statement)
      } finally {
        db.close()
      }
    }
  }
}

/** Runs `f` on the store's devices in this process, the store closed after. */
const withDevices = <A, E>(store: TestStore, f: (devices: PairedDevices) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.runPromise(
    Effect.flatMap(DurableInbox, (inbox) => f(inbox.devices)).pipe(
      Effect.scoped,
      Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(store.url, { runner: false })))),
      Effect.provideService(References.MinimumLogLevel, "Error")
    )
  )

/** The refusal of `pair`, or "paired". */
const tryPair = (devices: PairedDevices, code: string, name = "Ana's phone") =>
  Effect.match(devices.pair(code, name), {
    onSuccess: () => "paired",
    onFailure: (error) => `${error._tag}:${error.reason}`
  })

/** A code of the right form that is not `code`. */
const wrongCode = (code: string) => code.slice(0, 9) + (code[9] === "A" ? "B" : "A")

const suite = (makeStore: () => TestStore) => {
  it("a code is 10 characters without look-alikes, valid 10 minutes; redeeming it pairs a device whose credential authenticates", async () => {
    const store = makeStore()
    const result = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const before = Date.now()
        const { code, expiresAt } = yield* devices.newCode
        const paired = yield* devices.pair(code, "  Ana's phone ")
        const seen = yield* devices.authenticate(paired.credential)
        return { code, expiresAt, before, paired, seen, listed: yield* devices.list }
      }))
    expect(result.code).toMatch(new RegExp(`^[${codeAlphabet}]{10}$`))
    expect(result.code).not.toMatch(/[01OIL]/)
    const ttl = result.expiresAt.getTime() - result.before
    expect(ttl).toBeGreaterThan(9 * 60_000)
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000)
    expect(result.paired.device.name).toBe("Ana's phone")
    expect(result.paired.credential.startsWith(`${result.paired.device.id}.`)).toBe(true)
    // 256 bits of secret after the id.
    expect(Buffer.from(result.paired.credential.split(".")[1]!, "base64url")).toHaveLength(32)
    expect(result.seen).toMatchObject({ id: result.paired.device.id, name: "Ana's phone" })
    expect(result.seen?.lastSeenAt).toBeInstanceOf(Date)
    expect(result.listed.map((device) => device.id)).toEqual([result.paired.device.id])
  })

  it("a code as people type it (lower case, spaces, a dash) still pairs", async () => {
    const store = makeStore()
    const outcome = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const { code } = yield* devices.newCode
        const typed = `${code.slice(0, 5).toLowerCase()} - ${code.slice(5).toLowerCase()}`
        return yield* tryPair(devices, typed)
      }))
    expect(outcome).toBe("paired")
  })

  it("attacks: a wrong code, a reused code and an expired code are each refused alike ('invalid')", async () => {
    const store = makeStore()
    const outcomes = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const { code } = yield* devices.newCode
        const wrong = yield* tryPair(devices, wrongCode(code))
        const garbage = yield* tryPair(devices, "'; DROP TABLE ask_user_devices; --")
        const first = yield* tryPair(devices, code)
        const reused = yield* tryPair(devices, code, "Mallory")
        return { wrong, garbage, first, reused, names: (yield* devices.list).map((device) => device.name) }
      }))
    expect(outcomes).toEqual({
      wrong: "PairingRefused:invalid",
      garbage: "PairingRefused:invalid",
      first: "paired",
      reused: "PairingRefused:invalid",
      names: ["Ana's phone"]
    })
    const expired = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const { code } = yield* devices.newCode
        // Ten minutes pass (the code's end moved into the past, by the database's reckoning).
        yield* Effect.sync(() => store.exec("UPDATE ask_user_pairing_codes SET expires_at = expires_at - 600001"))
        return yield* tryPair(devices, code)
      }))
    expect(expired).toBe("PairingRefused:invalid")
  })

  it("attack: brute force. The 5th wrong try voids every outstanding code, so the 6th try fails even with the right code; 4 wrong tries do not", async () => {
    const store = makeStore()
    const outcomes = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const first = yield* devices.newCode
        const second = yield* devices.newCode
        const tries: Array<string> = []
        for (let i = 0; i < 4; i++) tries.push(yield* tryPair(devices, wrongCode(first.code)))
        // Four wrong tries leave the codes standing: the right one still pairs.
        const afterFour = yield* tryPair(devices, second.code, "Ana's tablet")
        const third = yield* devices.newCode
        // The 5th wrong try (of any code, counted across redemptions) voids every outstanding code.
        tries.push(yield* tryPair(devices, wrongCode(third.code)))
        const sixthRight = yield* tryPair(devices, first.code, "Mallory")
        const thirdRight = yield* tryPair(devices, third.code, "Mallory")
        // A code made afterwards is not void: the owner can still pair.
        const fresh = yield* devices.newCode
        const afterVoid = yield* tryPair(devices, fresh.code, "Ana's phone")
        return { tries, afterFour, sixthRight, thirdRight, afterVoid, names: (yield* devices.list).map((d) => d.name).sort() }
      }))
    expect(outcomes).toEqual({
      tries: Array(5).fill("PairingRefused:invalid"),
      afterFour: "paired",
      sixthRight: "PairingRefused:invalid",
      thirdRight: "PairingRefused:invalid",
      afterVoid: "paired",
      names: ["Ana's phone", "Ana's tablet"]
    })
  })

  it("attack: five wrong tries from five processes void the codes too (the count is in the store)", async () => {
    const store = makeStore()
    const code = await withDevices(store, (devices) => Effect.map(devices.newCode, ({ code }) => code))
    for (let i = 0; i < 5; i++) {
      expect(await withDevices(store, (devices) => tryPair(devices, wrongCode(code)))).toBe("PairingRefused:invalid")
    }
    expect(await withDevices(store, (devices) => tryPair(devices, code))).toBe("PairingRefused:invalid")
  })

  it("attack: one code redeemed twice at once pairs exactly one device", async () => {
    const store = makeStore()
    const outcomes = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const { code } = yield* devices.newCode
        return yield* Effect.all([tryPair(devices, code, "one"), tryPair(devices, code, "two")], { concurrency: 2 })
      }))
    expect([...outcomes].sort()).toEqual(["PairingRefused:invalid", "paired"])
  })

  it("a bad device name is refused ('name') and costs no try", async () => {
    const store = makeStore()
    const outcomes = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const { code } = yield* devices.newCode
        const names = ["", "   ", "x".repeat(65), "evil\u001b[2Jname", "line\nbreak", "tab\there"]
        const refused: Array<string> = []
        for (const name of names) refused.push(yield* tryPair(devices, code, name))
        return { refused, then: yield* tryPair(devices, code, "é".repeat(64)) }
      }))
    expect(outcomes).toEqual({ refused: Array(6).fill("PairingRefused:name"), then: "paired" })
  })

  it("attack: a revoked credential, a forged one (right id, wrong secret) and junk authenticate nobody; revoke takes an id or a name", async () => {
    const store = makeStore()
    const result = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const phone = yield* devices.pair((yield* devices.newCode).code, "phone")
        const laptop = yield* devices.pair((yield* devices.newCode).code, "laptop")
        const forged = `${phone.device.id}.${Buffer.alloc(32).toString("base64url")}`
        const junk = ["", ".", phone.device.id, `.${phone.credential.split(".")[1]}`, `${phone.credential}x`, "x".repeat(5000)]
        const beforeRevoke = {
          forged: yield* devices.authenticate(forged),
          junk: yield* Effect.forEach(junk, devices.authenticate)
        }
        const byName = yield* devices.revoke("phone")
        const phoneAfter = yield* devices.authenticate(phone.credential)
        const laptopAfter = yield* devices.authenticate(laptop.credential)
        const byId = yield* devices.revoke(laptop.device.id)
        const again = yield* devices.revoke(laptop.device.id)
        const unknown = yield* devices.revoke("nobody's phone")
        return {
          beforeRevoke,
          byName: byName.map((d) => d.name),
          phoneAfter,
          laptopAfter: laptopAfter?.name,
          byId: byId.map((d) => d.name),
          again,
          unknown,
          listed: yield* devices.list,
          laptopLast: yield* devices.authenticate(laptop.credential)
        }
      }))
    expect(result).toEqual({
      beforeRevoke: { forged: undefined, junk: Array(6).fill(undefined) },
      byName: ["phone"],
      phoneAfter: undefined,
      laptopAfter: "laptop",
      byId: ["laptop"],
      again: [],
      unknown: [],
      listed: [],
      laptopLast: undefined
    })
  })

  it("the running remote inbox's address is in the store while it runs, and gone once it stops", async () => {
    const store = makeStore()
    const url = `https://192.0.2.7:${8000 + Math.floor(Math.random() * 1000)}/`
    const seen = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const before = yield* devices.remoteInbox
        const scope = yield* Scope.make()
        yield* devices.announce(url).pipe(Scope.provide(scope))
        const during = yield* devices.remoteInbox
        yield* Scope.close(scope, Exit.void)
        return { before, during, after: yield* devices.remoteInbox }
      }))
    expect(seen).toEqual({ before: undefined, during: url, after: undefined })
  })
}

describe("pairing and devices on SQLite", () => {
  suite(sqliteStore)

  it("neither a code nor a credential's secret can be read from the store's files", async () => {
    const dir = tempDir()
    const file = join(dir, "asks.db")
    const store: TestStore = { url: `sqlite:${file}`, exec: () => {} }
    const { code, credential } = await withDevices(store, (devices) =>
      Effect.gen(function*() {
        const { code } = yield* devices.newCode
        const unused = yield* devices.newCode
        const { credential } = yield* devices.pair(code, "phone")
        return { code: unused.code, credential }
      }))
    const secret = credential.split(".")[1]!
    const bytes = ["", "-wal"].map((suffix) => {
      try {
        return readFileSync(`${file}${suffix}`).toString("latin1")
      } catch {
        return ""
      }
    }).join("")
    expect(bytes.includes(code)).toBe(false)
    expect(bytes.includes(secret)).toBe(false)
  })
})

describe.skipIf(postgresBin() === undefined)("pairing and devices on PostgreSQL", () => {
  const { newDatabase } = privatePostgres()
  suite(() => {
    const url = newDatabase("devices")
    return { url, exec: (statement) => void psql(url, statement) }
  })
})
