/**
 * SPEC "Durable asks" on a real PostgreSQL server (a private cluster started
 * here, stopped after): the key cases of the SQLite suite, then two agent
 * processes and two answerers on one database with 100 asks, every ask
 * answered exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { removeTempDirs } from "./cliHarness.js"
import { ask, killHard, makeStore, run, untilPast, untilStatus } from "./support/durableCli.js"
import { type PostgresServer, startPostgres } from "./support/postgres.js"

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 120_000)
afterAll(() => {
  server?.stop()
  removeTempDirs()
})

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }
const no = { answers: [{ id: "q", selected: ["No"] }] }

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

/** A fresh ask id per attempt: the store outlives a failed attempt, and the retry must not join its ask. */
const freshId = (name: string) => `${name}-${randomUUID().slice(0, 8)}`

// One retry: a loaded CI machine can stretch a kill -9 failover past the test's timeout; the
// retry starts from fresh ids, and vitest still reports the first attempt's failure.
describe("durable asks on PostgreSQL", { retry: 1 }, () => {
  it("kill -9 of the asker, answered while it is down: the rerun prints the answer", async () => {
    const store = makeStore(server.url)
    const id = freshId("pg-kill")
    const asker = ask(store, id)
    await untilStatus(store, id, (status) => status === "pending", asker)
    await killHard(asker)
    expect((await run(["answer", "--store", store.url, id, store.file("yes.json", yes)])).code).toBe(0)
    const rerun = ask(store, id)
    expect(await rerun.exited).toBe(0)
    expect(JSON.parse(rerun.stdout())).toEqual(yes)
    expect((await run(["answer", "--store", store.url, id, join(store.dir, "yes.json")])).code).toBe(5)
    expect((await run(["status", "--store", store.url, "pg-unknown"])).code).toBe(6)
  }, 120_000)

  it("the expiry passes while every process is down: the rerun exits 4", async () => {
    const store = makeStore(server.url)
    const id = freshId("pg-exp")
    // Long enough that a loaded machine still sees the ask pending before it expires.
    const asker = ask(store, id, "--expires", "10s")
    await untilStatus(store, id, (status) => status === "pending", asker)
    await killHard(asker)
    const listed = (await run(["pending", "--store", store.url])).stdout.trim().split("\n").map((line) => JSON.parse(line))
    await untilPast(Date.parse(listed.find((entry) => entry.id === id).expiresAt) + 500)
    const rerun = ask(store, id)
    expect(await rerun.exited).toBe(4)
    expect(rerun.stderr()).toContain("ASK_TIMEOUT")
  }, 120_000)

  it("two answerers at once: one outcome recorded, the other refused with exit 5", async () => {
    const store = makeStore(server.url)
    const id = freshId("pg-race")
    const asker = ask(store, id)
    await untilStatus(store, id, (status) => status === "pending", asker)
    const [a, b] = await Promise.all([
      run(["answer", "--store", store.url, id, store.file("yes.json", yes)]),
      run(["answer", "--store", store.url, id, store.file("no.json", no)])
    ])
    expect([a.code, b.code].sort()).toEqual([0, 5])
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(a.code === 0 ? yes : no)
  }, 120_000)

  it("two agents and two answerers on one database, 100 asks: every ask answered exactly once", async () => {
    const [a, b] = [freshId("a"), freshId("b")]
    const ids = [...Array.from({ length: 50 }, (_, i) => `${a}-${i}`), ...Array.from({ length: 50 }, (_, i) => `${b}-${i}`)]
    const agents = [script("durableAgent.ts", [server.url, a, "50"]), script("durableAgent.ts", [server.url, b, "50"])]
    const answerers = [
      script("durableAnswerer.ts", [server.url, "Yes", ...ids]),
      script("durableAnswerer.ts", [server.url, "No", ...ids])
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
})
