/**
 * SPEC "Answerers" on the command line, end to end, for any store: the
 * built `ask-user` in separate processes answers as `os:<user>@<host>`,
 * `status` and `history` show the receipt, `answerableBy` refusals exit 7,
 * claims taken through `DurableInbox` make `answer`, `cancel` and `decline`
 * exit 8 until they lapse, `--force` breaks one and the record says so, and
 * a store the previous release wrote is upgraded in place by processes
 * opening it at once. `test/durableCli.test.ts` runs it on SQLite files,
 * `test/durablePostgres.test.ts` on PostgreSQL databases.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer, References } from "effect"
import { spawn } from "node:child_process"
import { hostname, userInfo } from "node:os"
import { join } from "node:path"
import type { Answerer } from "effect-user-interaction"
import { DurableInbox, DurableStore } from "effect-user-interaction/durable"
import { ask, askFile, askPending, request, run, type Store, untilPast, untilStatus } from "./durableCli.js"

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

/** Who `ask-user answer` run by this test process is. */
export const me = `os:${userInfo().username}@${hostname()}`

/** Runs `f` on the store's inbox in this process, as another answerer's device would. */
export const onInbox = <A, E>(url: string, f: (inbox: DurableInbox["Service"]) => Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(
    Effect.flatMap(DurableInbox, f).pipe(
      Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))),
      Effect.provideService(References.MinimumLogLevel, "Error")
    )
  )

/** The JSON lines `ask-user history` prints. */
const historyOf = async (store: Store, ...flags: Array<string>) => {
  const result = await run(["history", "--store", store.url, ...flags])
  expect([result.code, result.stderr]).toEqual([0, ""])
  return result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line))
}

interface ClaimerResult {
  readonly ok: boolean
  readonly until?: string
  readonly code?: string
  readonly message?: string
}

/**
 * Starts `durableClaimer.ts` on the ask `id` as `answerer`; it acts (claims or answers) when `go`
 * is called, once `ready` has resolved. `kill` ends it if the test ends first.
 */
const claimer = (url: string, id: string, answerer: string, action: "claim" | "answer", skewMillis?: number) => {
  const args = [join(import.meta.dirname, "durableClaimer.ts"), url, id, answerer, action]
  const child = spawn(process.execPath, skewMillis === undefined ? args : [...args, String(skewMillis)], { stdio: "pipe" })
  let out = ""
  let err = ""
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (out.startsWith("ready\n")) resolve()
    })
    child.once("close", () => reject(new Error(`the claimer ended before it was ready: ${err}`)))
  })
  const done = new Promise<ClaimerResult>((resolve, reject) =>
    child.once("close", (code) =>
      code === 0 ? resolve(JSON.parse(out.split("\n")[1]!)) : reject(new Error(`the claimer exited ${code}: ${err}`))))
  return { ready, done, go: () => child.stdin.end("go\n"), kill: () => child.kill("SIGKILL") }
}

/** How the suite reaches a store's database directly, to write the previous release's schema. */
export interface RawStore {
  /** Runs one statement; a query's rows as the text of their first column. */
  readonly exec: (store: Store, statement: string) => ReadonlyArray<string>
  /** A query listing the asks table's columns in order. */
  readonly columnsQuery: string
}

/** The asks table exactly as the first durable release (0.2.0) created it. */
export const releaseSchema = [
  `CREATE TABLE IF NOT EXISTS ask_user_asks (
    id TEXT PRIMARY KEY,
    execution_id TEXT NOT NULL,
    request TEXT NOT NULL,
    asked_at BIGINT NOT NULL,
    expires_at BIGINT,
    status TEXT NOT NULL,
    answer TEXT,
    settled_at BIGINT
  )`,
  "CREATE INDEX IF NOT EXISTS ask_user_asks_pending ON ask_user_asks (status, asked_at)"
]
const releaseColumns = ["id", "execution_id", "request", "asked_at", "expires_at", "status", "answer", "settled_at"]

/** The suite's tests, each on a new empty store from `makeStore`. */
export const durableAnswerersSuite = (makeStore: () => Store, raw: RawStore) => {
  it("answer records the OS account on the cli surface; status and history show the receipt; --limit and --since choose", async () => {
    const store = makeStore()
    const asker = await askPending(store, "who-1")
    const before = Date.now()
    expect((await run(["answer", "--store", store.url, "who-1", store.file("yes.json", yes)])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    const status = await untilStatus(store, "who-1", (s) => s === "answered")
    expect(status.receipt).toEqual({ surface: "cli", by: { id: me }, at: expect.any(String), millis: expect.any(Number) })
    expect(Date.parse(status.receipt.at)).toBeGreaterThanOrEqual(before - 1000)

    const canceller = await askPending(store, "who-2")
    expect((await run(["cancel", "--store", store.url, "who-2"])).code).toBe(0)
    expect(await canceller.exited).toBe(3)
    const [cancelled, answered] = await historyOf(store)
    expect(answered).toEqual({
      id: "who-1",
      questions: request.questions,
      outcome: "answered",
      receipt: status.receipt,
      askedAt: expect.any(String),
      settledAt: status.receipt.at
    })
    expect(cancelled).toMatchObject({ id: "who-2", outcome: "cancelled", receipt: { surface: "cli", by: { id: me } } })
    expect(Date.parse(cancelled.settledAt)).toBeGreaterThanOrEqual(Date.parse(answered.settledAt))
    expect((await historyOf(store, "--limit", "1")).map((line) => line.id)).toEqual(["who-2"])
    expect((await historyOf(store, "--since", "1h")).map((line) => line.id)).toEqual(["who-2", "who-1"])
    // Nothing settled in the last millisecond.
    expect(await historyOf(store, "--since", "1ms")).toEqual([])
    for (const bad of [["--limit", "0"], ["--limit", "many"], ["--since", "soon"]]) {
      const result = await run(["history", "--store", store.url, ...bad])
      expect([bad, result.code, result.stdout]).toEqual([bad, 2, ""])
    }
  }, 120_000)

  it("an ask whose answerableBy leaves this account out: answer, cancel and decline exit 7, and it stays pending", async () => {
    const store = makeStore()
    const guarded = store.file("guarded.json", { ...request, answerableBy: ["os:someone-else@*", "device:*"] })
    const asker = askFile(store, "only-1", guarded)
    await untilStatus(store, "only-1", (s) => s === "pending", asker)
    for (const command of [["answer", "only-1", store.file("yes.json", yes)], ["cancel", "only-1"], ["decline", "--force", "only-1"]]) {
      const result = await run([command[0]!, "--store", store.url, ...command.slice(1)])
      expect([command[0], result.code]).toEqual([command[0], 7])
      expect(result.stderr).toContain(`NOT_AUTHORIZED: Only os:someone-else@*, device:* may settle this ask; ${me} may not.`)
    }
    expect((await run(["status", "--store", store.url, "only-1"])).stdout).toContain("\"pending\"")
    // A device the patterns allow answers, and the asker gets it.
    await onInbox(store.url, (inbox) => inbox.answer("only-1", yes, { by: { id: "device:phone-1" } }))
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(yes)
  }, 90_000)

  it("while Ana's device holds a claim, answer, cancel and decline exit 8 naming her; after the ttl this account's answer wins", async () => {
    const store = makeStore()
    const asker = await askPending(store, "claim-1")
    const ana: Answerer = { id: "device:ana-phone", name: "Ana's phone" }
    // Long enough for three commands to start on a busy machine; the test waits out the rest.
    const claim = await onInbox(store.url, (inbox) => inbox.claim("claim-1", ana, { ttl: "15 seconds" }))
    const yesFile = store.file("yes.json", yes)
    for (const command of [["answer", "claim-1", yesFile], ["cancel", "claim-1"], ["decline", "claim-1"]]) {
      const result = await run([command[0]!, "--store", store.url, ...command.slice(1)])
      expect([command[0], result.code]).toEqual([command[0], 8])
      expect(result.stderr).toContain(
        `ASK_CLAIMED: The ask "claim-1" is claimed by Ana's phone (device:ana-phone) until ${claim.until.toISOString()}`
      )
    }
    expect((await run(["status", "--store", store.url, "claim-1"])).stdout).toContain("\"pending\"")
    // The claim is timed by the database's clock, on this machine too: past its end, it no longer holds.
    await untilPast(claim.until.getTime() + 500)
    expect((await run(["answer", "--store", store.url, "claim-1", yesFile])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    const { receipt } = await untilStatus(store, "claim-1", (s) => s === "answered")
    expect(receipt.by).toEqual({ id: me })
    expect(receipt.brokeClaim).toBeUndefined()
  }, 90_000)

  it("answer --force breaks a live claim: recorded, and status and history say whose claim it broke", async () => {
    const store = makeStore()
    const asker = await askPending(store, "force-1")
    const ana: Answerer = { id: "device:ana-phone" }
    const claim = await onInbox(store.url, (inbox) => inbox.claim("force-1", ana))
    const forced = await run(["answer", "--force", "--store", store.url, "force-1", store.file("yes.json", yes)])
    expect(forced).toMatchObject({ code: 0, stderr: "" })
    expect(await asker.exited).toBe(0)
    const brokeClaim = { by: ana, until: claim.until.toISOString() }
    expect((await untilStatus(store, "force-1", (s) => s === "answered")).receipt).toMatchObject({ by: { id: me }, brokeClaim })
    expect((await historyOf(store))[0].receipt).toMatchObject({ by: { id: me }, brokeClaim })
  }, 90_000)

  it("of four processes claiming one ask in the same breath, exactly one holds it; the others get ASK_CLAIMED naming it", async () => {
    const store = makeStore()
    const asker = await askPending(store, "race-claim")
    const claimers = [0, 1, 2, 3].map((i) => claimer(store.url, "race-claim", `device:d${i}`, "claim"))
    try {
      await Promise.all(claimers.map((one) => one.ready))
      for (const one of claimers) one.go()
      const results = await Promise.all(claimers.map((one) => one.done))
      const held = results.flatMap((result, i) => result.ok ? [i] : [])
      expect(held).toHaveLength(1)
      for (const result of results.filter((result) => !result.ok)) {
        expect(result.code).toBe("ASK_CLAIMED")
        expect(result.message).toContain(`claimed by device:d${held[0]} until ${results[held[0]!]!.until}`)
      }
    } finally {
      for (const one of claimers) one.kill()
      asker.child.kill("SIGTERM")
      await asker.exited
    }
  }, 120_000)

  it("claims run on the database's clock: a process whose clock is an hour ahead still finds the claim live, one an hour behind claims for the ttl", async () => {
    const store = makeStore()
    const asker = await askPending(store, "skew-1")
    const hour = 60 * 60 * 1000
    const ahead = [claimer(store.url, "skew-1", "os:bob@fast-clock", "answer", hour), claimer(store.url, "skew-1", "os:bob@fast-clock", "claim", hour)]
    const behind = claimer(store.url, "skew-2", "os:carol@slow-clock", "claim", -hour)
    try {
      await Promise.all([...ahead, behind].map((one) => one.ready))
      const claim = await onInbox(store.url, (inbox) => inbox.claim("skew-1", { id: "device:ana-phone" }))
      for (const one of ahead) {
        one.go()
        expect(await one.done).toMatchObject({ ok: false, code: "ASK_CLAIMED", message: expect.stringContaining("device:ana-phone") })
      }
      expect((await run(["status", "--store", store.url, "skew-1"])).stdout).toContain("\"pending\"")
      const second = await askPending(store, "skew-2")
      const claimedAt = Date.now()
      behind.go()
      const held = await behind.done
      expect(held.ok).toBe(true)
      // Two minutes from the database's now, not from the slow clock's (an hour earlier): a generous bound.
      expect(Math.abs(Date.parse(held.until!) - claimedAt - 2 * 60 * 1000)).toBeLessThan(30_000)
      expect(claim.until.getTime() - Date.now()).toBeLessThan(2 * 60 * 1000)
      second.child.kill("SIGTERM")
      await second.exited
    } finally {
      for (const one of [...ahead, behind]) one.kill()
      asker.child.kill("SIGTERM")
      await asker.exited
    }
  }, 120_000)

  it("a store the previous release wrote, opened by several processes at once: upgraded once, its pending ask kept and answerable", async () => {
    const store = makeStore()
    for (const statement of releaseSchema) raw.exec(store, statement)
    const askedAt = Date.now() - 60_000
    raw.exec(
      store,
      `INSERT INTO ask_user_asks (id, execution_id, request, asked_at, status)
       VALUES ('old-1', 'exec-old-1', '${JSON.stringify(request)}', ${askedAt}, 'pending')`
    )
    expect(raw.exec(store, raw.columnsQuery)).toEqual(releaseColumns)
    const listings = await Promise.all(Array.from({ length: 4 }, () => run(["pending", "--store", store.url])))
    for (const listing of listings) {
      expect([listing.code, listing.stderr]).toEqual([0, ""])
      expect(JSON.parse(listing.stdout)).toEqual({ id: "old-1", questions: request.questions, askedAt: new Date(askedAt).toISOString() })
    }
    expect(raw.exec(store, "SELECT migration_id FROM ask_user_migrations ORDER BY migration_id")).toEqual(["1", "2", "3", "4"])
    expect(raw.exec(store, raw.columnsQuery)).toEqual([...releaseColumns, "receipt", "claim_by_id", "claim_by_name", "claim_until"])
    expect((await run(["answer", "--store", store.url, "old-1", store.file("yes.json", yes)])).code).toBe(0)
    expect((await historyOf(store))[0]).toMatchObject({ id: "old-1", outcome: "answered", receipt: { surface: "cli", by: { id: me } } })
  }, 90_000)

  it("a new store opened by several askers at once gets its schema once", async () => {
    const store = makeStore()
    const askers = ["n-1", "n-2", "n-3"].map((id) => ask(store, id))
    for (const [i, asker] of askers.entries()) await untilStatus(store, `n-${i + 1}`, (s) => s === "pending", asker)
    expect(raw.exec(store, "SELECT migration_id FROM ask_user_migrations ORDER BY migration_id")).toEqual(["1", "2", "3", "4"])
    // Runners starting at once made one cluster secret between them: 32 bytes, as hex.
    expect(raw.exec(store, "SELECT secret FROM ask_user_cluster_secret").map((hex) => hex.length)).toEqual([64])
    for (const asker of askers) {
      asker.child.kill("SIGTERM")
      await asker.exited
    }
  }, 120_000)
}
