/**
 * SPEC "Durable asks" on a real PostgreSQL server (a private cluster started
 * here, stopped after): the SQLite suite (`test/support/durableCliSuite.ts`),
 * each test on a new database, then two agent processes and two answerers on
 * one database with 100 asks, every ask answered exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { askPending, makeStore, run } from "./support/durableCli.js"
import { durableCliSuite } from "./support/durableCliSuite.js"
import { type PostgresServer, startPostgres } from "./support/postgres.js"

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 120_000)
afterAll(() => server?.stop())

/** A new empty database on the private server. */
const newDatabase = () => server.createDatabase(`asks_${randomUUID().replaceAll("-", "")}`)

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

  it("a database that does not exist is named in the server's own words, exit 1", async () => {
    const missing = server.url.replace(/\/postgres$/, "/no_such_asks")
    const result = await run(["pending", "--store", missing])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`Cannot open the durable store ${missing}`)
    expect(result.stderr).toContain('database "no_such_asks" does not exist')
  }, 60_000)

  it("a store URL in libpq's socket form (no host after the user, host=DIR) opens the server's Unix socket", async () => {
    const result = await run(["pending", "--store", server.socketUrl])
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
    await server.restart(3000)
    const answered = await run(["answer", "--store", store.url, "restart-1", store.file("yes.json", yes)])
    expect(answered.code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(asker.stdout()).toBe(`${JSON.stringify(yes)}\n`)
    // What the engine logged meanwhile came one line each, without a stack trace.
    expect(asker.stderr()).not.toMatch(/^\s+at /m)
    for (const line of asker.stderr().split("\n").filter(Boolean)) expect(line).toMatch(/^ask-user: /)
  }, 120_000)
})
