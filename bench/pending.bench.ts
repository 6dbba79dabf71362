/**
 * Many pending asks on a SQLite file: how creating them scales (each
 * thousand's time, `DurableInbox.submit` one after another, the 10th
 * thousand against the 1st) and what one costs on disk (the file's growth
 * per pending ask, against the asks-table row alone written straight into
 * the table).
 *
 *   node bench/pending.bench.ts [COUNT]
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Effect, Layer, References } from "effect"
import { DurableInbox, DurableStore } from "../dist/durable/index.js"
import { printTable } from "./support.ts"

const count = Number(process.argv[2] ?? 10_000)
const dir = mkdtempSync(join(tmpdir(), "ask-user-pending-"))
const quiet = Effect.provideService(References.MinimumLogLevel, "Error")
const question = { id: "q", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }

/** Bytes the database holds, its write-ahead log folded in first. */
const storedBytes = (file: string) => {
  const db = new DatabaseSync(file)
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
    const pages = db.prepare("PRAGMA page_count").get()!.page_count as number
    const free = db.prepare("PRAGMA freelist_count").get()!.freelist_count as number
    const size = db.prepare("PRAGMA page_size").get()!.page_size as number
    return (pages - free) * size
  } finally {
    db.close()
  }
}

/** Creates `count` pending asks through the inbox; the milliseconds each thousand took. */
const creation = async (file: string) => {
  const layer = DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(`sqlite:${file}`)))
  return Effect.runPromise(Effect.gen(function*() {
    const inbox = yield* DurableInbox
    yield* inbox.submit({ id: "warm", questions: [question] })
    const empty = storedBytes(file)
    const thousands: Array<number> = []
    let start = performance.now()
    for (let i = 0; i < count; i++) {
      yield* inbox.submit({ id: `p-${i}`, questions: [question] })
      if ((i + 1) % 1000 === 0) {
        thousands.push(performance.now() - start)
        start = performance.now()
      }
    }
    return { thousands, bytes: (storedBytes(file) - empty) / count }
  }).pipe(Effect.provide(layer), quiet))
}

/** The asks-table row alone: the same asks written straight into the table. */
const bareRow = async (file: string) => {
  await Effect.runPromise(Effect.provide(Effect.void, DurableStore.layer(`sqlite:${file}`, { runner: false })).pipe(quiet))
  const empty = storedBytes(file)
  const db = new DatabaseSync(file)
  const insert = db.prepare(
    "INSERT INTO ask_user_asks (id, execution_id, request, asked_at, status) VALUES (?, ?, ?, ?, 'pending')"
  )
  const request = JSON.stringify({ id: "p-0", questions: [question] })
  db.exec("BEGIN")
  for (let i = 0; i < count; i++) insert.run(`p-${i}`, `${"e".repeat(64)}`, request, Date.now())
  db.exec("COMMIT")
  db.close()
  return (storedBytes(file) - empty) / count
}

const made = await creation(join(dir, "asks.db"))
const bare = await bareRow(join(dir, "bare.db"))
rmSync(dir, { recursive: true, force: true })

const first = made.thousands[0]!
const last = made.thousands[made.thousands.length - 1]!
process.stdout.write(`${count.toLocaleString("en")} pending asks, one after another, one process; load average ${
  (await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")
}.\n\n`)
printTable(["measure", "ours", "baseline", "ratio", "target"], [
  [
    "creating pending asks: the last thousand against the first",
    `${last.toFixed(0)} ms`,
    `first thousand ${first.toFixed(0)} ms`,
    `${(last / first).toFixed(2)}×`,
    "≤ 1.5×"
  ],
  ["each thousand (ms)", made.thousands.map((ms) => ms.toFixed(0)).join(" "), "", "", ""],
  ["bytes per pending ask (SQLite file)", `${made.bytes.toFixed(0)} B`, `the asks-table row alone ${bare.toFixed(0)} B`, `${(made.bytes / bare).toFixed(1)}×`, "reported"]
])
