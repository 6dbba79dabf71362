/**
 * Several agent processes on one store: how fast an answer recorded by an
 * answerer process wakes the agent waiting for it (p50/p99) with five
 * agents on a SQLite file and three on PostgreSQL, each asking one ask after
 * another, from the moment they start: every wake-up counts, and they are
 * also told apart by when the answer was given, in the first 5 s after the
 * last agent started (while the runners join and the shards move between
 * them) or after. No agent leaves while another waits (each asks one more
 * that is never answered), so leaving runners move no shard during the
 * measure. And failover: the agent that holds an ask's shard is killed
 * (SIGKILL) while another agent waits for the ask too, and the answer is
 * given: how long from the kill until the other has the answer (three runs,
 * each on a fresh store).
 *
 *   node bench/agents.bench.ts [ASKS_PER_AGENT]
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { Effect, Layer, References } from "effect"
import { EntityId, MessageStorage, RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig } from "effect/cluster"
import { DatabaseSync } from "node:sqlite"
import { DurableInbox, DurableStore } from "../dist/durable/index.js"
import { untilPending as waitPending } from "../test/support/untilPending.ts"
import { printTable } from "./support.ts"

const perAgent = Number(process.argv[2] ?? 40)
const dir = mkdtempSync(join(tmpdir(), "ask-user-agents-"))
const quiet = Effect.provideService(References.MinimumLogLevel, "Error")
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
const agentScript = join(import.meta.dirname, "durableAgent.ts")

const inboxOn = (url: string) => DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))

/** An agent process asking `<prefix>-0`, `<prefix>-1`, …; its lines are `<index> <epoch ms>` as each answer arrives. */
const agent = (url: string, prefix: string, count: number) => {
  const child = spawn(process.execPath, [agentScript, url, prefix, String(count)], { stdio: ["ignore", "pipe", "inherit"] })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  // An agent that ends without its answer fails the measure rather than reading as a time.
  const next = () =>
    lines.next().then((line) => {
      if (line.value === undefined) throw new Error(`the agent ${prefix} ended (${child.exitCode ?? child.signalCode}) without an answer`)
      return Number(String(line.value).split(" ")[1])
    })
  return { child, next }
}

const closed = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("close", resolve))

const untilPending = (id: string) => Effect.flatMap(DurableInbox, (inbox) => waitPending(inbox.status, id))

/** How long after the last agent started an answer counts as given while the runners join. */
const joining = 5_000

/**
 * Answer → wake with `agents` agent processes, round-robin: each agent's next ask is answered
 * in turn; the wake-ups while the runners join, and once they have settled.
 */
const wake = async (url: string, agents: number) => {
  // One ask more than answered: an agent that ended would move its shards under the others' asks.
  const running = Array.from({ length: agents }, (_, k) => agent(url, `wake${k}`, perAgent + 1))
  const startedAt = Date.now()
  const whileJoining: Array<number> = []
  const settled: Array<number> = []
  try {
    await Effect.runPromise(Effect.gen(function*() {
      const inbox = yield* DurableInbox
      for (let i = 0; i < perAgent; i++) {
        for (let k = 0; k < agents; k++) {
          yield* untilPending(`wake${k}-${i}`)
          const answeredAt = Date.now()
          yield* inbox.answer(`wake${k}-${i}`, yes)
          const wokeAt = yield* Effect.promise(() => running[k]!.next())
          ;(answeredAt - startedAt < joining ? whileJoining : settled).push(wokeAt - answeredAt)
        }
      }
    }).pipe(Effect.provide(inboxOn(url)), quiet))
  } finally {
    for (const { child } of running) child.kill("SIGKILL")
    await Promise.all(running.map(({ child }) => closed(child)))
  }
  const sorted = (latencies: Array<number>) => latencies.sort((a, b) => a - b)
  return { all: sorted([...whileJoining, ...settled]), whileJoining: sorted(whileJoining), settled: sorted(settled) }
}

/** The shard effect/cluster routes an ask's workflow and waiter to (both are keyed by its execution id). */
const shardOf = (executionId: string) =>
  Effect.runSync(
    Effect.gen(function*() {
      const sharding = yield* Sharding.Sharding
      return sharding.getShardId(EntityId.make(executionId), "default").toString()
    }).pipe(
      // An engine of no storage and no peers, configured as the store's runners are (16 shards).
      Effect.provide(Sharding.layer.pipe(
        Layer.provide(Runners.layerNoop),
        Layer.provide(MessageStorage.layerMemory),
        Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
        Layer.provide(ShardingConfig.layer({ shardsPerGroup: 16 }))
      )),
      Effect.scoped
    )
  )

/** One value a statement reads from the store at `url` (SQLite through node:sqlite, PostgreSQL through psql). */
const readOne = async (url: string, statement: string): Promise<string | undefined> => {
  if (url.startsWith("sqlite:")) {
    const db = new DatabaseSync(url.slice("sqlite:".length), { readOnly: true })
    try {
      const row = db.prepare(statement).get()
      return row === undefined ? undefined : String(Object.values(row)[0])
    } finally {
      db.close()
    }
  }
  const { psql } = await import("../test/support/postgres.ts")
  return psql(url, statement)[0]
}

/** The address of the runner holding the shard lock of the ask `id`. */
const ownerOf = async (url: string, id: string) => {
  const executionId = await readOne(url, `SELECT execution_id FROM ask_user_asks WHERE id = '${id}'`)
  return readOne(url, `SELECT address FROM cluster_locks WHERE shard_id = '${shardOf(executionId!)}'`)
}

/**
 * Kill -9 of the agent that holds an ask while another waits for it too (it joined): the answer
 * is given at the kill; how long until the other has it. The first agent, alone, registers
 * first; once the second has joined, whichever holds the ask's shard is the one killed.
 */
const failoverOnce = async (url: string) => {
  const first = agent(url, "fail", 1)
  let joined: ReturnType<typeof agent> | undefined
  try {
    return await Effect.runPromise(Effect.gen(function*() {
      const inbox = yield* DurableInbox
      yield* untilPending("fail-0")
      // Long enough for the first agent to run the ask's workflow, so that it owns it, and then
      // for the second to start and join it (nothing tells from outside when it has).
      yield* Effect.sleep("2 seconds")
      const firstAddress = yield* Effect.promise(() => readOne(url, "SELECT address FROM cluster_runners"))
      joined = agent(url, "fail", 1)
      yield* Effect.sleep("4 seconds")
      const holder = yield* Effect.promise(() => ownerOf(url, "fail-0"))
      // A kill of the agent that does not hold it would measure nothing.
      if (holder === undefined) throw new Error("no runner holds the shard of the ask fail-0")
      const [owner, survivor] = holder === firstAddress ? [first, joined] : [joined, first]
      const killedAt = Date.now()
      owner.child.kill("SIGKILL")
      yield* inbox.answer("fail-0", yes)
      const wokeAt = yield* Effect.promise(() => survivor.next())
      return wokeAt - killedAt
    }).pipe(Effect.provide(inboxOn(url)), quiet))
  } finally {
    first.child.kill("SIGKILL")
    joined?.child.kill("SIGKILL")
    await Promise.all([closed(first.child), ...(joined === undefined ? [] : [closed(joined.child)])])
  }
}

/** Failover three times, each on a fresh store. */
const failover = async (store: (i: number) => string) => {
  const times: Array<number> = []
  for (let i = 0; i < 3; i++) times.push(await failoverOnce(store(i)))
  return times
}

const sqlite = `sqlite:${join(dir, "agents.db")}`
const onSqlite = await wake(sqlite, 5)
const failSqlite = await failover((i) => `sqlite:${join(dir, `failover-${i}.db`)}`)
let onPostgres: Awaited<ReturnType<typeof wake>> | undefined
let failPostgres: ReadonlyArray<number> | undefined
// BENCH_NO_PG=1 measures SQLite alone; PostgreSQL's helpers are loaded only when it runs.
const postgres = process.env.BENCH_NO_PG === undefined ? await import("../test/support/postgres.ts") : undefined
if (postgres !== undefined && postgres.postgresBin() !== undefined) {
  const server = await postgres.startPostgres()
  try {
    onPostgres = await wake(server.createDatabase("wake"), 3)
    failPostgres = await failover((i) => server.createDatabase(`failover${i}`))
  } finally {
    server.stop()
  }
}
rmSync(dir, { recursive: true, force: true })

const latency = (sorted: ReadonlyArray<number> | undefined) =>
  sorted === undefined ? "not run (no PostgreSQL)" :
  sorted.length === 0 ? "no answer in that time" :
  `${percentile(sorted, 0.5)} / ${percentile(sorted, 0.99)} ms (${sorted.length} answers)`
process.stdout.write(`${perAgent} asks per agent; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}.\n\n`)
printTable(["measure", "ours", "baseline", "target"], [
  ["answer → agent wakes, five agents, SQLite file, p50 / p99, every answer", latency(onSqlite.all), "", "≤ 50 ms / ≤ 250 ms"],
  ["of which while the runners join (first 5 s)", latency(onSqlite.whileJoining), "", "reported"],
  ["of which once they have settled", latency(onSqlite.settled), "", "reported"],
  ["answer → agent wakes, three agents, PostgreSQL, p50 / p99, every answer", latency(onPostgres?.all), "", "≤ 50 ms / ≤ 250 ms"],
  ["of which while the runners join (first 5 s)", latency(onPostgres?.whileJoining), "", "reported"],
  ["of which once they have settled", latency(onPostgres?.settled), "", "reported"],
  ["kill -9 of the agent holding an ask's shard → the other agent waiting for it has the answer, SQLite", `${failSqlite.join(" / ")} ms`, "", "≤ 3 s"],
  [
    "kill -9 of the agent holding an ask's shard → the other agent waiting for it has the answer, PostgreSQL",
    failPostgres === undefined ? "not run (no PostgreSQL)" : `${failPostgres.join(" / ")} ms`,
    "",
    "≤ 3 s"
  ]
])
