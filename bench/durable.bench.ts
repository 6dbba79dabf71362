/**
 * Durable asks: how fast an answer recorded by one process wakes an agent
 * waiting in another (p50/p99, SQLite file), what a waiting agent costs in
 * CPU while nothing happens (against an idle `node` process; on a SQLite
 * file and on PostgreSQL), sequential
 * round trips (ask, answer, outcome) in one process on SQLite and PostgreSQL
 * (against the seam with an instant provider), and `ask-user pending` with
 * 10,000 pending asks (against `ask-user --help`).
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { Effect, Fiber, Layer, References } from "effect"
import { ScriptedProvider, UserInteraction } from "../dist/index.js"
import { DurableInbox, DurableProvider, DurableStore } from "../dist/durable/index.js"
import { postgresBin, startPostgres } from "../test/support/postgres.ts"
import { untilPending as waitPending } from "../test/support/untilPending.ts"
import { printTable } from "./support.ts"

const dir = mkdtempSync(join(tmpdir(), "ask-user-bench-"))
const program = join(import.meta.dirname, "..", "dist", "bin", "ask-user.js")
const quiet = Effect.provideService(References.MinimumLogLevel, "Error")
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }
const question = { id: "q", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const inboxOn = (url: string) => DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))

const untilPending = (id: string) => Effect.flatMap(DurableInbox, (inbox) => waitPending(inbox.status, id))

/** Answer → wake across processes: an agent process asks SAMPLES times in a row; this process answers each. */
const wakeLatency = async (url: string, samples: number) => {
  const agent = spawn(process.execPath, [join(import.meta.dirname, "durableAgent.ts"), url, "wake", String(samples)], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const woke = createInterface({ input: agent.stdout })[Symbol.asyncIterator]()
  const latencies: Array<number> = []
  await Effect.runPromise(Effect.gen(function*() {
    const inbox = yield* DurableInbox
    for (let i = 0; i < samples; i++) {
      yield* untilPending(`wake-${i}`)
      const answeredAt = Date.now()
      yield* inbox.answer(`wake-${i}`, yes)
      const line = yield* Effect.promise(() => woke.next())
      latencies.push(Number(String(line.value).split(" ")[1]) - answeredAt)
    }
  }).pipe(Effect.provide(inboxOn(url)), quiet))
  await new Promise((resolve) => agent.once("close", resolve))
  return latencies.sort((a, b) => a - b)
}

/** CPU seconds (user + system) a process used so far, from /proc. */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU share of one core over `seconds` for a process, after it settled. */
const idleCpu = async (pid: number, seconds: number) => {
  const before = cpuSeconds(pid)
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  return (cpuSeconds(pid) - before) / seconds
}

const waitingAgentCpu = async (url: string) => {
  const agent = spawn(process.execPath, [join(import.meta.dirname, "durableAgent.ts"), url, "idle", "1"], { stdio: "ignore" })
  await Effect.runPromise(untilPending("idle-0").pipe(Effect.provide(inboxOn(url)), quiet))
  // Past its first 5 s, when it also reads its ask's row twenty times a second (decision 169).
  await new Promise((resolve) => setTimeout(resolve, 6000))
  const share = await idleCpu(agent.pid!, 10)
  agent.kill("SIGKILL")
  const idle = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" })
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const baseline = await idleCpu(idle.pid!, 10)
  idle.kill("SIGKILL")
  return { share, baseline }
}

/** Sequential round trips in one process: ask, answer from the inbox, the asker gets the outcome. */
const roundTrips = async (url: string, n: number) => {
  const layer = Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer()), DurableInbox.layer).pipe(
    Layer.provideMerge(DurableStore.layer(url))
  )
  return Effect.runPromise(Effect.gen(function*() {
    const inbox = yield* DurableInbox
    const once = (id: string) =>
      Effect.gen(function*() {
        const asker = yield* UserInteraction.ask({ id, questions: [question] }).pipe(Effect.forkChild)
        yield* untilPending(id)
        yield* inbox.answer(id, yes)
        yield* Fiber.join(asker)
      })
    yield* once("warm")
    const start = performance.now()
    for (let i = 0; i < n; i++) yield* once(`rt-${i}`)
    return n / ((performance.now() - start) / 1000)
  }).pipe(Effect.provide(layer), quiet))
}

const seamRoundTrips = (n: number) =>
  Effect.runPromise(Effect.gen(function*() {
    const start = performance.now()
    for (let i = 0; i < n; i++) yield* UserInteraction.ask({ questions: [question] })
    return n / ((performance.now() - start) / 1000)
  }).pipe(Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(yes))))))

/** `ask-user pending` on a store holding `count` pending asks (rows written straight into the asks table). */
const pendingListing = async (count: number) => {
  const url = `sqlite:${join(dir, "pending.db")}`
  // Opening the store once creates its tables.
  await Effect.runPromise(Effect.provide(Effect.void, DurableStore.layer(url, { runner: false })).pipe(quiet))
  const { DatabaseSync } = await import("node:sqlite")
  const db = new DatabaseSync(join(dir, "pending.db"))
  const insert = db.prepare(
    "INSERT INTO ask_user_asks (id, execution_id, request, asked_at, status) VALUES (?, ?, ?, ?, 'pending')"
  )
  db.exec("BEGIN")
  const request = JSON.stringify({ questions: [question] })
  for (let i = 0; i < count; i++) insert.run(`p-${i}`, `e-${i}`, request, Date.now())
  db.exec("COMMIT")
  db.close()
  const wall = (args: ReadonlyArray<string>) => {
    const start = performance.now()
    const out = execFileSync(process.execPath, [program, ...args], { encoding: "utf8", maxBuffer: 64 << 20 })
    return { ms: performance.now() - start, lines: out.split("\n").filter((l) => l !== "").length }
  }
  wall(["--help"])
  const help = wall(["--help"])
  const listing = wall(["pending", "--store", url])
  return { help: help.ms, pending: listing.ms, lines: listing.lines }
}

const sqlite = `sqlite:${join(dir, "bench.db")}`
const wake = await wakeLatency(sqlite, 40)
const cpu = await waitingAgentCpu(`sqlite:${join(dir, "idle.db")}`)
const seam = await seamRoundTrips(2000)
const onSqlite = await roundTrips(`sqlite:${join(dir, "rt.db")}`, 100)
let onPostgres: number | undefined
let cpuPostgres: { readonly share: number; readonly baseline: number } | undefined
if (postgresBin() !== undefined) {
  const server = await startPostgres()
  try {
    onPostgres = await roundTrips(server.url, 100)
    // A runner over TCP on PostgreSQL (decision 165) polls the server, not a file.
    cpuPostgres = await waitingAgentCpu(server.createDatabase("idle"))
  } finally {
    server.stop()
  }
}
const listing = await pendingListing(10_000)
rmSync(dir, { recursive: true, force: true })

printTable(["measure", "ours", "baseline", "ratio", "target"], [
  ["answer → agent wakes, other process, SQLite, p50 / p99 (40 asks)", `${percentile(wake, 0.5)} / ${percentile(wake, 0.99)} ms`, "", "", "≤ 250 ms / ≤ 1 s"],
  ["CPU of a waiting agent (share of one core, 10 s)", `${(cpu.share * 100).toFixed(2)} %`, `idle node ${(cpu.baseline * 100).toFixed(2)} %`, "", "≤ 2 %"],
  [
    "CPU of a waiting agent on PostgreSQL (share of one core, 10 s)",
    cpuPostgres === undefined ? "not run (no PostgreSQL)" : `${(cpuPostgres.share * 100).toFixed(2)} %`,
    cpuPostgres === undefined ? "" : `idle node ${(cpuPostgres.baseline * 100).toFixed(2)} %`,
    "",
    "≤ 2 %"
  ],
  ["round trips/s, one process, SQLite file", onSqlite.toFixed(0), `seam + instant provider ${seam.toFixed(0)}`, `${(seam / onSqlite).toFixed(0)}× slower`, "≥ 50/s"],
  ["round trips/s, one process, PostgreSQL", onPostgres === undefined ? "not run (no PostgreSQL)" : onPostgres.toFixed(0), `seam ${seam.toFixed(0)}`, onPostgres === undefined ? "" : `${(seam / onPostgres).toFixed(0)}× slower`, "reported"],
  [`\`ask-user pending\`, 10,000 pending asks (${listing.lines} lines)`, `${listing.pending.toFixed(0)} ms`, `\`--help\` ${listing.help.toFixed(0)} ms`, `${(listing.pending / listing.help).toFixed(1)}×`, "≤ 1 s"]
])

