/**
 * SPEC "Durable asks", command line, end to end over SQLite files: the shared
 * suite (`test/support/durableCliSuite.ts`), each test on a file of its own,
 * and what only a file store has (a store that does not exist yet).
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { makeStore, run } from "./support/durableCli.js"
import { durableCliSuite } from "./support/durableCliSuite.js"

describe("ask-user durable commands over a SQLite file", () => {
  it("pending on a store that does not exist prints nothing, exits 0 and creates nothing", async () => {
    const store = makeStore()
    const result = await run(["pending", "--store", store.url])
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(existsSync(join(store.dir, "asks.db"))).toBe(false)
  })

  durableCliSuite(() => makeStore())
})
