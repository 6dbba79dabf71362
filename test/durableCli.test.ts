/**
 * SPEC "Durable asks", command line, end to end over SQLite files: the shared
 * suite (`test/support/durableCliSuite.ts`), each test on a file of its own,
 * and what only a file store has (a store that does not exist yet).
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { makeStore, run, type Store } from "./support/durableCli.js"
import { durableAnswerersSuite } from "./support/durableAnswerersSuite.js"
import { durableCliSuite } from "./support/durableCliSuite.js"

/** Runs one statement on a store's SQLite file. */
const exec = (store: Store, statement: string): ReadonlyArray<string> => {
  const db = new DatabaseSync(join(store.dir, "asks.db"))
  try {
    if (!/^\s*select/i.test(statement)) return (db.exec(statement), [])
    return db.prepare(statement).all().map((row) => String(Object.values(row)[0]))
  } finally {
    db.close()
  }
}

describe("ask-user durable commands over a SQLite file", () => {
  it("on a store that does not exist, pending and history print nothing (exit 0), the others exit 6: none creates it", async () => {
    const store = makeStore()
    const result = await run(["pending", "--store", store.url])
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" })
    const answerFile = store.file("yes.json", { answers: [{ id: "q", selected: ["Yes"] }] })
    expect(await run(["history", "--store", store.url])).toEqual({ code: 0, stdout: "", stderr: "" })
    for (const command of [["status", "a1"], ["answer", "a1", answerFile], ["cancel", "a1"], ["decline", "a1"]]) {
      const one = await run([command[0]!, "--store", store.url, ...command.slice(1)])
      expect([command[0], one.code, one.stdout]).toEqual([command[0], 6, ""])
      expect(one.stderr).toContain("does not exist")
    }
    expect(existsSync(join(store.dir, "asks.db"))).toBe(false)
  }, 60_000)

  it("a store another process holds locked past SQLite's busy timeout opens once the lock goes", async () => {
    const store = makeStore()
    const file = join(store.dir, "asks.db")
    // Another process holds the new file's lock for 12 s: longer than the 10 s each statement waits.
    const holder = spawn(process.execPath, ["-e", `
      const db = new (require("node:sqlite").DatabaseSync)(${JSON.stringify(file)})
      db.exec("BEGIN EXCLUSIVE"); db.exec("CREATE TABLE held (x)"); console.log("held")
      setTimeout(() => db.exec("COMMIT"), 12000)
    `], { stdio: ["ignore", "pipe", "ignore"] })
    const released = new Promise((resolve) => holder.once("exit", resolve))
    await new Promise((resolve) => holder.stdout.once("data", resolve))
    const started = Date.now()
    const result = await run(["pending", "--store", store.url])
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(Date.now() - started).toBeGreaterThan(10_000)
    await released
  }, 90_000)

  durableCliSuite(() => makeStore())
  durableAnswerersSuite(() => makeStore(), {
    exec,
    columnsQuery: "SELECT name FROM pragma_table_info('ask_user_asks') ORDER BY cid"
  })
})
