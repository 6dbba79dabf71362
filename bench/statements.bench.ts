/**
 * What a durable round trip costs the database: SQL statements and
 * transactions per phase of one ask (create, wait, answer, wake and finish)
 * on a SQLite file and on PostgreSQL, split into the asks table's (ours) and
 * the engine's (`cluster_*` tables), and the round trips per second of the
 * same loop.
 *
 * Statements are counted where every one of them passes, whoever issues it
 * (the engine turns its own tracing off, so spans would miss most): on
 * SQLite at the driver, every `node:sqlite` statement run in this process;
 * on PostgreSQL at the server, `pg_stat_statements` for the store's role,
 * which sees few of the `BEGIN`s and `COMMIT`s the driver sends (so that
 * column counts the other statements). On SQLite `BEGIN` and `COMMIT` are
 * statements, and transactions are counted by their `BEGIN`. The bench
 * watches for the pending row on a connection of its own, not counted.
 *
 *   node bench/statements.bench.ts [ROUND_TRIPS]
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { Context, Effect, Fiber, Layer, Redacted, References, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { PgClient } from "@effect/sql-pg"
import { UserInteraction } from "../dist/index.js"
import { DurableInbox, DurableProvider, DurableStore } from "../dist/durable/index.js"
import { postgresBin, psql, startPostgres } from "../test/support/postgres.ts"
import { printTable } from "./support.ts"

const rounds = Number(process.argv[2] ?? 50)
const dir = mkdtempSync(join(tmpdir(), "ask-user-statements-"))
const quiet = Effect.provideService(References.MinimumLogLevel, "Error")
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }
const question = { id: "q", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }

interface Tally {
  readonly ours: number
  readonly engine: number
  readonly control: number
  readonly transactions: number
}

const zero: Tally = { ours: 0, engine: 0, control: 0, transactions: 0 }
const statements = (t: Tally) => t.ours + t.engine + t.control
const add = (a: Tally, b: Tally): Tally => ({
  ours: a.ours + b.ours,
  engine: a.engine + b.engine,
  control: a.control + b.control,
  transactions: a.transactions + b.transactions
})
const minus = (a: Tally, b: Tally): Tally => add(a, { ours: -b.ours, engine: -b.engine, control: -b.control, transactions: -b.transactions })
const scale = (a: Tally, k: number): Tally => ({ ours: a.ours * k, engine: a.engine * k, control: a.control * k, transactions: a.transactions * k })

/** A statement's text, `calls` times, added to a tally. */
const tallied = (t: Tally, text: string, calls: number): Tally => {
  const head = text.trimStart().slice(0, 16).toUpperCase()
  if (head.startsWith("BEGIN")) return { ...t, control: t.control + calls, transactions: t.transactions + calls }
  if (/^(COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/.test(head)) return { ...t, control: t.control + calls }
  return /ask_user_/.test(text) ? { ...t, ours: t.ours + calls } : { ...t, engine: t.engine + calls }
}

/** How the bench counts a store's statements and sees its pending row, uncounted. */
interface Counter {
  readonly url: string
  readonly total: Effect.Effect<Tally>
  readonly isPending: (id: string) => Effect.Effect<boolean>
}

/** SQLite: every statement `node:sqlite` runs in this process, but the bench's own. */
const sqliteCounter = (file: string): Effect.Effect<Counter, never, Scope.Scope> => {
  let total = zero
  let own = false
  const detail = new Map<string, number>()
  const count = (sql: string) => {
    total = tallied(total, sql, 1)
    if (process.env.STATEMENTS_DETAIL !== undefined) {
      const key = sql.replace(/\s+/g, " ").slice(0, 120)
      detail.set(key, (detail.get(key) ?? 0) + 1)
    }
  }
  if (process.env.STATEMENTS_DETAIL !== undefined) {
    process.once("beforeExit", () => {
      for (const [sql, n] of [...detail].sort((a, b) => b[1] - a[1])) process.stderr.write(`${n}\t${sql}\n`)
    })
  }
  const probe = new DatabaseSync(":memory:")
  const statementProto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, unknown>
  probe.close()
  for (const method of ["run", "all", "get", "iterate"]) {
    const original = statementProto[method] as (this: StatementSync, ...args: Array<unknown>) => unknown
    statementProto[method] = function(this: StatementSync, ...args: Array<unknown>) {
      if (!own) count(this.sourceSQL)
      return original.apply(this, args)
    }
  }
  const dbProto = DatabaseSync.prototype as unknown as Record<string, unknown>
  const exec = dbProto.exec as (this: DatabaseSync, sql: string) => void
  dbProto.exec = function(this: DatabaseSync, sql: string) {
    if (!own) count(sql)
    return exec.call(this, sql)
  }
  return Effect.gen(function*() {
    const reader = yield* Effect.acquireRelease(Effect.sync(() => new DatabaseSync(file)), (db) => Effect.sync(() => db.close()))
    return {
      url: `sqlite:${file}`,
      total: Effect.sync(() => total),
      isPending: (id) =>
        Effect.sync(() => {
          own = true
          try {
            return reader.prepare("SELECT status FROM ask_user_asks WHERE id = ?").get(id)?.status === "pending"
          } catch {
            return false
          } finally {
            own = false
          }
        })
    } satisfies Counter
  })
}

/** PostgreSQL: `pg_stat_statements` for the store's role, read by another role on a connection of its own. */
const postgresCounter = (url: string) =>
  Effect.gen(function*() {
    psql(url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    psql(url, "CREATE ROLE bench LOGIN SUPERUSER")
    const context = yield* Layer.build(PgClient.layer({ url: Redacted.make(url.replace("postgres://postgres@", "postgres://bench@")) })).pipe(Effect.orDie)
    const sql = Context.get(context, SqlClient.SqlClient)
    const control = sql.literal("query ~* '^\\s*(begin|commit|rollback|savepoint|release)'")
    const total = sql<{ readonly ours: string; readonly engine: string; readonly control: string; readonly transactions: string }>`
      SELECT coalesce(sum(calls) FILTER (WHERE NOT ${control} AND query LIKE '%ask_user_%'), 0) AS ours,
        coalesce(sum(calls) FILTER (WHERE NOT ${control} AND query NOT LIKE '%ask_user_%'), 0) AS engine,
        coalesce(sum(calls) FILTER (WHERE ${control}), 0) AS control,
        coalesce(sum(calls) FILTER (WHERE query ~* '^\\s*begin'), 0) AS transactions
      FROM pg_stat_statements WHERE userid = 'postgres'::regrole`.pipe(
      Effect.map(([row]): Tally => ({
        ours: Number(row!.ours),
        engine: Number(row!.engine),
        control: Number(row!.control),
        transactions: Number(row!.transactions)
      })),
      Effect.orDie
    )
    return {
      url,
      total,
      isPending: (id) =>
        sql<{ readonly status: string }>`SELECT status FROM ask_user_asks WHERE id = ${id}`.pipe(
          Effect.map((rows) => rows[0]?.status === "pending"),
          Effect.orElseSucceed(() => false)
        )
    } satisfies Counter
  })

interface Phases {
  readonly create: Tally
  readonly answer: Tally
  readonly wake: Tally
  readonly waitPerSecond: Tally
  readonly perRoundTrip: Tally
  readonly perSecond: number
}

const phases = (makeCounter: Effect.Effect<Counter, never, Scope.Scope>, n: number) => Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const counter = yield* makeCounter
  const layer = Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer()), DurableInbox.layer).pipe(
    Layer.provideMerge(DurableStore.layer(counter.url))
  )
  /** What `effect` cost: statements run meanwhile, whoever ran them. */
  const measured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const before = yield* counter.total
      const value = yield* effect
      return [value, minus(yield* counter.total, before)] as const
    })
  const untilPending = (id: string) =>
    Effect.gen(function*() {
      while (!(yield* counter.isPending(id))) yield* Effect.sleep("1 millis")
    })
  return yield* Effect.gen(function*() {
    const inbox = yield* DurableInbox
    /** One round trip, phase by phase; each phase's count includes what ran in the background meanwhile. */
    const once = (id: string) =>
      Effect.gen(function*() {
        const [asker, create] = yield* measured(Effect.gen(function*() {
          const asker = yield* UserInteraction.ask({ id, questions: [question] }).pipe(Effect.forkChild)
          yield* untilPending(id)
          return asker
        }))
        const [, answer] = yield* measured(inbox.answer(id, yes))
        const [, wake] = yield* measured(Fiber.join(asker))
        return { create, answer, wake }
      })
    yield* once("warm")
    // A pending ask nobody answers: what waiting costs, per second.
    const idle = yield* UserInteraction.ask({ id: "idle", questions: [question] }).pipe(Effect.forkChild)
    yield* untilPending("idle")
    // At rest: past the first 5 s after the store opened, when a waiting ask also reads its row
    // twenty times a second (decision 169).
    yield* Effect.sleep("6 seconds")
    const [, waited] = yield* measured(Effect.sleep("5 seconds"))
    yield* Fiber.interrupt(idle)
    let create = zero
    let answer = zero
    let wake = zero
    const [, total] = yield* measured(Effect.gen(function*() {
      for (let i = 0; i < n; i++) {
        const trip = yield* once(`rt-${i}`)
        create = add(create, trip.create)
        answer = add(answer, trip.answer)
        wake = add(wake, trip.wake)
      }
    }))
    // The rate, with the pending row seen through the inbox, as an answerer sees it.
    const speedOnce = (id: string) =>
      Effect.gen(function*() {
        const asker = yield* UserInteraction.ask({ id, questions: [question] }).pipe(Effect.forkChild)
        for (;;) {
          const status = yield* Effect.result(inbox.status(id))
          if (status._tag === "Success" && status.success.status === "pending") break
          yield* Effect.sleep("1 millis")
        }
        yield* inbox.answer(id, yes)
        yield* Fiber.join(asker)
      })
    const start = performance.now()
    for (let i = 0; i < n; i++) yield* speedOnce(`speed-${i}`)
    const perSecond = n / ((performance.now() - start) / 1000)
    return {
      create: scale(create, 1 / n),
      answer: scale(answer, 1 / n),
      wake: scale(wake, 1 / n),
      waitPerSecond: scale(waited, 1 / 5),
      perRoundTrip: scale(total, 1 / n),
      perSecond
    } satisfies Phases
  }).pipe(Effect.provide(layer))
})).pipe(quiet))

const onSqlite = await phases(sqliteCounter(join(dir, "statements.db")), rounds)
let onPostgres: Phases | undefined
if (postgresBin() !== undefined) {
  const server = await startPostgres(["shared_preload_libraries=pg_stat_statements"])
  try {
    onPostgres = await phases(postgresCounter(server.url), rounds)
  } finally {
    server.stop()
  }
}
rmSync(dir, { recursive: true, force: true })

const cell = (t: Tally | undefined) =>
  t === undefined
    ? "not run (no PostgreSQL)"
    : `${statements(t).toFixed(1)} (ours ${t.ours.toFixed(1)}, engine ${t.engine.toFixed(1)}, ` +
      `BEGIN/COMMIT ${t.control.toFixed(1)}; ${t.transactions.toFixed(1)} tx)`
const row = (what: string, pick: (p: Phases) => Tally) => [what, cell(pick(onSqlite)), cell(onPostgres && pick(onPostgres))]

process.stdout.write(`${rounds} sequential round trips in one process; load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}.\n\n`)
printTable(["phase", "SQLite file: statements (by whom; transactions)", "PostgreSQL"], [
  row("create: ask → pending row", (p) => p.create),
  row("wait: one pending ask, per second", (p) => p.waitPerSecond),
  row("answer: `DurableInbox.answer`", (p) => p.answer),
  row("wake and finish: answer recorded → asker has the answer", (p) => p.wake),
  row("**whole round trip** (the loop's total / round trips)", (p) => p.perRoundTrip),
  ["round trips/s (answerer polls the inbox)", onSqlite.perSecond.toFixed(0), onPostgres === undefined ? "" : onPostgres.perSecond.toFixed(0)]
])
