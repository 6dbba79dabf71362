/**
 * The durable store's SQLite client (`src/durable/sqlite.ts`) where a store
 * goes wrong: a file damaged while open fails every later statement, not
 * only those reading the damaged pages; a statement waiting for another
 * process's lock can be interrupted at once; and once the store closes, its
 * statements wait a second for a lock, not the usual 10 s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { closeSync, openSync, statSync, writeSync } from "node:fs"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { ReadConnection } from "../src/durable/readConnection.js"
import { layer } from "../src/durable/sqlite.js"
import { isDamagedStore } from "../src/durable/storeFault.js"
import { LockWaits } from "../src/durable/storeTimings.js"
import { tempDir } from "./cliHarness.js"
import { holdLock } from "./support/durableCli.js"

/** The client and its lock waits on the SQLite file `file`, for the test's scope. */
const open = (file: string) =>
  Effect.map(Layer.build(layer(file)), (context) => ({
    sql: Context.get(context, SqlClient.SqlClient),
    waits: Context.get(context, LockWaits)
  }))

/** Another process holding the file's write lock for the test's scope. */
const holdLockScoped = (file: string) =>
  Effect.acquireRelease(Effect.promise(() => holdLock(file)), (lock) => Effect.sync(lock.release))

describe("the durable store's SQLite client", () => {
  it.live("its read connection reads committed rows while this process's own transaction holds the write lock, and cannot write", () =>
    Effect.gen(function*() {
      const file = join(tempDir(), "asks.db")
      const context = yield* Layer.build(layer(file))
      const sql = Context.get(context, SqlClient.SqlClient)
      const reader = Option.getOrThrow(Context.getOption(context, ReadConnection))
      yield* sql`CREATE TABLE asks (id TEXT, status TEXT)`
      yield* sql`INSERT INTO asks VALUES ('a', 'answered')`
      const read = reader<{ readonly id: string; readonly status: string }>`SELECT id, status FROM asks`
      // A transaction of this process, held open: the main connection is lent to it.
      const held = yield* sql.withTransaction(Effect.andThen(sql`INSERT INTO asks VALUES ('b', 'pending')`, Effect.never)).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* Effect.sleep("50 millis")
      // Committed rows only, at once, from beside the transaction.
      expect(yield* read.pipe(Effect.timeout("2 seconds"))).toEqual([{ id: "a", status: "answered" }])
      yield* Fiber.interrupt(held)
      const refused = yield* Effect.flip(reader`INSERT INTO asks VALUES ('c', 'pending')`)
      expect(String(refused)).toMatch(/readonly/i)
      expect(yield* Effect.map(sql`SELECT count(*) AS n FROM asks`, (rows) => rows[0]!.n)).toBe(1)
    }))

  it.live("an in-memory store has no read connection", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(layer(":memory:"))
      expect(Context.getOption(context, ReadConnection)._tag).toBe("None")
    }))

  it.live("a file damaged while open: the statement that finds it fails, and so does every later one", () =>
    Effect.gen(function*() {
      const file = join(tempDir(), "asks.db")
      const { sql } = yield* open(file)
      yield* sql`CREATE TABLE t (x TEXT)`
      yield* sql.withTransaction(Effect.forEach(Array.from({ length: 2000 }), () => sql`INSERT INTO t VALUES (${"x".repeat(500)})`))
      yield* sql.unsafe("PRAGMA wal_checkpoint(TRUNCATE)")
      // The table's pages, in the file itself (the WAL folded in), made garbage from outside.
      const size = statSync(file).size
      const fd = openSync(file, "r+")
      writeSync(fd, randomBytes(size >> 1), 0, size >> 1, size >> 2)
      closeSync(fd)
      // Another connection's write makes this one read its pages from the file again.
      const other = new DatabaseSync(file)
      other.exec("CREATE TABLE nudge (x)")
      other.close()

      const found = yield* Effect.flip(sql`SELECT count(*) AS n, sum(length(x)) AS total FROM t`)
      expect(isDamagedStore(found)).toBe(true)
      const later = yield* Effect.flip(sql`SELECT 1 AS one`)
      expect(later).toBe(found)
    }))

  it.live("a statement waiting for another process's lock is interrupted at once", () =>
    Effect.gen(function*() {
      const file = join(tempDir(), "asks.db")
      const { sql } = yield* open(file)
      yield* sql`CREATE TABLE t (x TEXT)`
      yield* holdLockScoped(file)
      // A transaction's BEGIN runs uninterruptibly; its wait for the lock does not.
      const waiting = yield* Effect.forkChild(sql.withTransaction(sql`INSERT INTO t VALUES ('a')`))
      yield* Effect.sleep("1 second")
      const began = Date.now()
      yield* Fiber.interrupt(waiting)
      expect(Date.now() - began).toBeLessThan(1_000)
    }), 20_000)

  it.live("once the store closes, a statement waits a second for a lock, not 10 s", () =>
    Effect.gen(function*() {
      const file = join(tempDir(), "asks.db")
      const { sql, waits } = yield* open(file)
      yield* sql`CREATE TABLE t (x TEXT)`
      yield* holdLockScoped(file)
      yield* waits.closing
      const began = Date.now()
      const failure = yield* Effect.flip(sql`INSERT INTO t VALUES ('a')`)
      expect(failure.reason._tag).toBe("LockTimeoutError")
      expect(Date.now() - began).toBeLessThan(5_000)
    }), 20_000)
})
