/**
 * SPEC "Durable asks" on a real PostgreSQL server (a private cluster started
 * here, stopped after): the SQLite suite (`test/support/durableCliSuite.ts`),
 * each test on a new database, then two agent processes and two answerers on
 * one database with 100 asks, every ask answered exactly once; the answerers
 * suite (`test/support/durableAnswerersSuite.ts`), and two OS accounts
 * answering one ask that allows only one of them; and SPEC "Durable store
 * hardening": the 64 KiB answer limit with the answer kept once, a database
 * that stays down ending the asker within its patience.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { chmodSync, readdirSync, readFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { start } from "./cliHarness.js"
import {
  askFile,
  askPending,
  makeStore,
  request,
  run,
  shortStoreTimingsEnv,
  untilPast,
  untilStatus
} from "./support/durableCli.js"
import { durableAnswerersSuite, me, onInbox } from "./support/durableAnswerersSuite.js"
import { durableCliSuite } from "./support/durableCliSuite.js"
import { postgresBin, psql } from "./support/postgres.js"
import { privatePostgres } from "./support/privatePostgres.js"

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

const { newDatabase, server } = privatePostgres()

/** Runs a support script (TypeScript run by Node) to its end; resolves with its stdout lines. */
const script = (name: string, args: ReadonlyArray<string>) =>
  new Promise<Array<string>>((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, "support", name), ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
    child.once("close", (code) =>
      code === 0
        // The engine may log a recovered hiccup (a slow lock query on a busy machine); keep the JSON lines.
        ? resolve(out.split("\n").filter((line) => line.startsWith("{")))
        : reject(new Error(`${name} exited ${code}: ${err}\n${out}`)))
  })

describe("durable asks on PostgreSQL", () => {
  durableCliSuite(() => makeStore(newDatabase()))
  durableAnswerersSuite(() => makeStore(newDatabase()), {
    exec: (store, statement) => psql(store.url, statement),
    columnsQuery: "SELECT column_name FROM information_schema.columns WHERE table_name = 'ask_user_asks' ORDER BY ordinal_position"
  })

  it("two OS accounts on one ask that allows only this one: the other's answer exits 7 and the ask stays pending; claims hold against it; history names who answered", async () => {
    const store = makeStore(newDatabase())
    // The other account reads the request and answer files; the store is the server's, not a file.
    chmodSync(store.dir, 0o755)
    const nobody = `os:nobody@${hostname()}`
    const onlyMe = store.file("only-me.json", { ...request, answerableBy: [`${me.slice(0, me.indexOf("@"))}@*`] })
    const yesFile = store.file("yes.json", yes)
    const noFile = store.file("no.json", { q: "No" })
    const asker = askFile(store, "two-users", onlyMe)
    await untilStatus(store, "two-users", (s) => s === "pending", asker)

    const refused = await run(["answer", "--store", store.url, "two-users", noFile], { user: "nobody" })
    expect(refused.code).toBe(7)
    expect(refused.stderr).toContain(`NOT_AUTHORIZED: Only ${me.slice(0, me.indexOf("@"))}@* may settle this ask; ${nobody} may not.`)
    expect((await run(["cancel", "--store", store.url, "two-users"], { user: "nobody" })).code).toBe(7)
    expect((await run(["status", "--store", store.url, "two-users"])).stdout).toContain("\"pending\"")
    expect((await run(["answer", "--store", store.url, "two-users", yesFile])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(yes)

    // An ask anyone may answer: this account's device claims it, and the other account waits out the claim.
    const open = await askPending(store, "two-users-2")
    const claim = await onInbox(store.url, (inbox) => inbox.claim("two-users-2", { id: me }, { ttl: "10 seconds" }))
    const claimed = await run(["answer", "--store", store.url, "two-users-2", noFile], { user: "nobody" })
    expect(claimed.code).toBe(8)
    expect(claimed.stderr).toContain(`ASK_CLAIMED: The ask "two-users-2" is claimed by ${me} until ${claim.until.toISOString()}`)
    await untilPast(claim.until.getTime() + 500)
    expect((await run(["answer", "--store", store.url, "two-users-2", noFile], { user: "nobody" })).code).toBe(0)
    expect(await open.exited).toBe(0)
    expect(JSON.parse(open.stdout())).toEqual({ answers: [{ id: "q", selected: ["No"] }] })

    const history = (await run(["history", "--store", store.url])).stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line))
    expect(history.map((line) => [line.id, line.outcome, line.receipt.surface, line.receipt.by.id])).toEqual([
      ["two-users-2", "answered", "cli", nobody],
      ["two-users", "answered", "cli", me]
    ])
  }, 120_000)

  it("a database that does not exist is named in the server's own words, exit 1", async () => {
    const missing = server().url.replace(/\/postgres$/, "/no_such_asks")
    const result = await run(["pending", "--store", missing])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`Cannot open the durable store ${missing}`)
    expect(result.stderr).toContain('database "no_such_asks" does not exist')
  }, 60_000)

  it("a store URL in libpq's socket form (no host after the user, host=DIR) opens the server's Unix socket", async () => {
    const result = await run(["pending", "--store", server().socketUrl])
    expect(result).toMatchObject({ code: 0, stdout: "" })
  }, 60_000)

  it("two agents and two answerers on one database, 100 asks: every ask answered exactly once", async () => {
    const url = newDatabase()
    const ids = [...Array.from({ length: 50 }, (_, i) => `a-${i}`), ...Array.from({ length: 50 }, (_, i) => `b-${i}`)]
    const agents = [script("durableAgent.ts", [url, "a", "50"]), script("durableAgent.ts", [url, "b", "50"])]
    const answerers = [
      script("durableAnswerer.ts", [url, "Yes", ...ids]),
      script("durableAnswerer.ts", [url, "No", ...ids])
    ]
    const [answersA, answersB] = await Promise.all(agents)
    const recorded = (await Promise.all(answerers)).map((lines) => JSON.parse(lines[0]!).recorded as Array<string>)
    const got = new Map([...answersA!, ...answersB!].map((line) => {
      const { answer, id } = JSON.parse(line)
      return [id as string, answer.answers[0].selected[0] as string]
    }))
    expect([...got.keys()].sort()).toEqual([...ids].sort())
    // Each ask recorded by exactly one answerer, and the agent got that answerer's label.
    expect([...recorded[0]!, ...recorded[1]!].sort()).toEqual([...ids].sort())
    for (const id of recorded[0]!) expect(got.get(id)).toBe("Yes")
    for (const id of recorded[1]!) expect(got.get(id)).toBe("No")
  }, 400_000)

  it("a waiting asker rides out a restart of the database: answered once it is back, stdout only the answer", async () => {
    const store = makeStore(newDatabase())
    const asker = await askPending(store, "restart-1")
    // Down long enough that the engine's polls and shard locks fail meanwhile (a second did not).
    await server().restart(3000)
    const answered = await run(["answer", "--store", store.url, "restart-1", store.file("yes.json", yes)])
    expect(answered.code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(asker.stdout()).toBe(`${JSON.stringify(yes)}\n`)
    // What the engine logged meanwhile came one line each, without a stack trace, the cause in
    // words after the engine's own message, and each cause once (the restart took under a minute).
    expect(asker.stderr()).not.toMatch(/^\s+at /m)
    const lines = asker.stderr().split("\n").filter(Boolean)
    const causes = lines.map((line) => /^ask-user: (?:ERROR|WARN): [^:]+: (.+)$/.exec(line)?.[1])
    expect(causes.filter((cause) => cause === undefined)).toEqual([])
    expect(new Set(causes).size).toBe(causes.length)
  }, 120_000)

  it("an answer over 64 KiB is refused and the ask stays pending; 63 KiB is taken and kept once in the database", async () => {
    const store = makeStore(newDatabase())
    const asker = await askPending(store, "big-pg")
    const text = (kib: number) => `MARK${"x".repeat(kib * 1024 - 4)}`
    const refused = await run([
      "answer", "--store", store.url, "big-pg", store.file("65.json", { answers: [{ id: "q", selected: [], custom: text(65) }] })
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^ask-user: INVALID_ANSWER: [^\n]*64 KiB[^\n]*\n$/)
    expect(JSON.parse((await run(["status", "--store", store.url, "big-pg"])).stdout).status).toBe("pending")

    const taken = { answers: [{ id: "q", selected: [], custom: text(63) }] }
    expect((await run(["answer", "--store", store.url, "big-pg", store.file("63.json", taken)])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(taken)
    // Every row of the database, as text; a bytea column would show the marker in hex.
    const dump = execFileSync(join(postgresBin()!, "pg_dump"), ["--data-only", `--dbname=${store.url}`], {
      maxBuffer: 64 * 1024 * 1024
    }).toString("latin1")
    const count = (marker: string) => dump.split(marker).length - 1
    expect(count("MARK") + count(Buffer.from("MARK").toString("hex"))).toBe(1)
  }, 90_000)

  it("a secret never reaches a store, SQLite or PostgreSQL: refused as a durable ask and as an answer; no byte of it in the files or the dump", async () => {
    const value = `hunter2-${randomUUID()}`
    const sqlite = makeStore()
    const postgres = makeStore(newDatabase())
    for (const store of [sqlite, postgres]) {
      const secretRequest = store.file("secret.json", { questions: [{ id: "token", question: "API token?", secret: true }] })
      const refused = await run(["--durable", "--store", store.url, "--ask-id", "s1", secretRequest])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain("a secret cannot be kept in the store")
      // An answer that tries to carry one for an ordinary question breaks the rules, and nothing is recorded.
      const asker = await askPending(store, "s2")
      const smuggled = store.file("answer.json", { answers: [{ id: "q", selected: [], secret: value }] })
      expect((await run(["answer", "--store", store.url, "s2", smuggled])).code).toBe(2)
      expect(JSON.parse((await run(["status", "--store", store.url, "s2"])).stdout).status).toBe("pending")
      expect((await run(["cancel", "--store", store.url, "s2"])).code).toBe(0)
      expect(await asker.exited).toBe(3)
    }
    const files = readdirSync(sqlite.dir).filter((name) => name.startsWith("asks.db"))
    expect(files).toContain("asks.db")
    for (const name of files) expect(readFileSync(join(sqlite.dir, name)).includes(value)).toBe(false)
    const dump = execFileSync(join(postgresBin()!, "pg_dump"), ["--data-only", `--dbname=${postgres.url}`], {
      maxBuffer: 64 * 1024 * 1024
    }).toString("latin1")
    expect(dump).toContain("s2")
    expect(dump.includes(value) || dump.includes(Buffer.from(value).toString("hex"))).toBe(false)
  }, 90_000)

  it("a database that stays down past the store's patience: the asker ends PROVIDER_FAILED naming it, the ask still pending", async () => {
    const store = makeStore(newDatabase())
    // Given up on after 2 s instead of 30 s (test/support/shortStoreTimings.ts).
    const asker = start(["--durable", "--store", store.url, "--ask-id", "down-1", store.requestFile], { env: shortStoreTimingsEnv })
    asker.child.stdin!.end()
    await untilStatus(store, "down-1", (status) => status === "pending", asker)
    let back = false
    const restarted = server().restart(10_000).then(() => void (back = true))
    const code = await asker.exited
    // The asker ended while the database was still down.
    expect(back).toBe(false)
    await restarted
    expect(code).toBe(1)
    expect(asker.stderr()).toMatch(new RegExp(
      `ask-user: PROVIDER_FAILED: The durable store ${store.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} cannot be used: ` +
        `[^\n]*; the ask "down-1" stays pending: ask again with the same id to wait for it\.\n$`
    ))
    expect(JSON.parse((await run(["status", "--store", store.url, "down-1"])).stdout).status).toBe("pending")
  }, 120_000)
})
