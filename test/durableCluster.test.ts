/**
 * Agent processes sharing a SQLite store as runners of one cluster
 * (`src/durable/engine.ts`): each listens on a Unix socket in a private
 * folder beside the store; a runner killed with SIGKILL while it runs an ask
 * hands it on, so an agent that joined the ask gets the answer, and is
 * dropped from the store once a peer finds its socket refusing (a stopped
 * runner, or a refusal over TCP, drops nobody: decision 168); a socket
 * left over from a crashed run is cleared when the next runner starts; a
 * runner that hangs (SIGSTOP) while it owns an ask and comes back does not
 * run it twice, and every agent ends once it has its answer (a connection to
 * a stopped runner is not left open); runners started at once each listen on their own address;
 * a process that connects to a runner's socket without the handshake is
 * refused and logged once, and the runners go on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { Runner, RunnerAddress, Runners, RunnerStorage, ShardId, ShardingConfig, SqlRunnerStorage } from "effect/cluster"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createServer, type Socket } from "node:net"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { DurableInbox } from "../src/durable/index.js"
import { engineLayer, type Transport, transportFor } from "../src/durable/engine.js"
import { connect } from "../src/durable/runnerHandshake.js"
import { layer as sqliteLayer } from "../src/durable/sqlite.js"
import { tempDir } from "./cliHarness.js"
import { freePort } from "./support/freePort.js"
import {
  answer,
  ended,
  garbagePeer,
  inboxOn,
  killedOwnerFailover,
  scopedAgent,
  stoppedRunner,
  twoRunners,
  untilPending,
  wrongSecretPeer,
  yes
} from "./support/clusterAgents.js"

/** What `read` finds in the store's file, opened read-only for it. */
const fromStore = <A>(file: string, read: (db: DatabaseSync) => A): A => {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

/** The cluster's secret as the store keeps it. */
const storedSecret = (file: string) =>
  fromStore(file, (db) => Buffer.from(String(db.prepare("SELECT secret FROM ask_user_cluster_secret WHERE id = 1").get()!.secret), "hex"))

const sockets = (folder: string) => existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".sock")) : []

/** What the store has of the runner at `address`: its row, and how many shard locks it holds. */
const keptOf = (file: string, address: string) =>
  fromStore(file, (db) => ({
    rows: Number(db.prepare("SELECT count(*) AS n FROM cluster_runners WHERE address = ?").get(address)!.n),
    locks: Number(db.prepare("SELECT count(*) AS n FROM cluster_locks WHERE address = ?").get(address)!.n)
  }))

/** `read`'s value once it has one (undefined: not yet), read every 50 ms for at most 30 s. */
const once = <A>(read: () => A | undefined) =>
  Effect.suspend(() => {
    const value = read()
    return value === undefined ? Effect.fail("not yet") : Effect.succeed(value)
  }).pipe(Effect.retry({ schedule: Schedule.spaced("50 millis") }), Effect.timeout("30 seconds"), Effect.orDie)

/** The one runner registered in the store (as the store writes its address: `<socket path>:0`), once it holds a shard lock. */
const onlyRunner = (file: string) =>
  once(() => {
    try {
      const rows = fromStore(file, (db) => db.prepare("SELECT DISTINCT address FROM cluster_locks").all())
      return rows.length === 1 ? String(rows[0]!.address) : undefined
    } catch {
      return undefined // The engine's tables may not exist yet.
    }
  })

/** An agent asking `<prefix>-0` on a fresh store, its ask pending: the one runner, and its address as stored. */
const loneRunner = (prefix: string) =>
  Effect.gen(function*() {
    const file = join(tempDir(), "asks.db")
    const url = `sqlite:${file}`
    const agent = yield* scopedAgent(url, prefix)
    yield* untilPending(`${prefix}-0`).pipe(Effect.provide(inboxOn(url)))
    return { file, url, agent, address: yield* onlyRunner(file) }
  })

/** The runner address the store wrote as `<socket path>:0`. */
const socketAddress = (stored: string) => RunnerAddress.make(stored.replace(/:0$/, ""), 0)

/**
 * A client of the store's cluster (as an answerer is) on `transport` pings
 * the runner at `address`, as its sends do; the ping's outcome.
 */
const pingFromClient = (file: string, address: RunnerAddress.RunnerAddress, transport: Transport = transportFor(`sqlite:${file}`)) =>
  Effect.gen(function*() {
    const runners = yield* Runners.Runners
    return yield* Effect.result(runners.ping(address))
  }).pipe(Effect.provide(engineLayer(transport, false).pipe(Layer.provide(Layer.orDie(sqliteLayer(file))))))

/** effect/cluster's own storage of runners and shard locks, on the SQLite file. */
const runnerStorageOn = (file: string) =>
  SqlRunnerStorage.layer.pipe(Layer.provide(Layer.orDie(sqliteLayer(file))), Layer.provide(ShardingConfig.layer({ shardsPerGroup: 16 })))

/** Waits until the store has nothing left of the runner at `address`. */
const untilDropped = (file: string, address: string) =>
  once(() => {
    const kept = keptOf(file, address)
    return kept.rows + kept.locks === 0 ? true : undefined
  })

describe("agent processes as runners of one cluster (SQLite file)", () => {
  it.live("a runner killed with SIGKILL while it runs an ask: the agent that joined it gets the answer", () =>
    Effect.gen(function*() {
      expect(yield* killedOwnerFailover(`sqlite:${join(tempDir(), "asks.db")}`)).toMatchObject({ id: "kill-0", answer: yes })
    }), { timeout: 90_000 })

  it.live("a runner killed with SIGKILL is dropped from the store once a peer finds its socket refusing: its row and shard locks are gone at once", () =>
    Effect.gen(function*() {
      const { address, file, url, agent: crashed } = yield* loneRunner("gone")
      crashed.child.kill("SIGKILL")
      yield* Effect.promise(() => ended(crashed.child))
      // Nothing else removes a dead runner's row: with no runner left, only this peer's refused connection can.
      expect(keptOf(file, address).rows).toBe(1)
      expect(keptOf(file, address).locks).toBeGreaterThan(0)
      expect((yield* pingFromClient(file, socketAddress(address)))._tag).toBe("Failure")
      yield* untilDropped(file, address)
      // Its ask is the next runner's at once: it has the answer.
      const next = yield* scopedAgent(url, "gone")
      yield* answer(url, "gone-0")
      expect(yield* Effect.promise(() => next.answered())).toMatchObject({ id: "gone-0", answer: yes })
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.live("a runner stopped (SIGSTOP) is not dropped when a peer cannot reach it: its socket still accepts, so its locks lapse in their own time", () =>
    Effect.gen(function*() {
      const { address, file, url, agent: stopped } = yield* loneRunner("busy")
      stopped.child.kill("SIGSTOP")
      // The ping gives up after the handshake's 5 s; the runner may only be slow.
      expect((yield* pingFromClient(file, socketAddress(address)))._tag).toBe("Failure")
      yield* Effect.sleep("1 second")
      expect(keptOf(file, address).rows).toBe(1)
      expect(keptOf(file, address).locks).toBeGreaterThan(0)
      stopped.child.kill("SIGCONT")
      yield* answer(url, "busy-0")
      expect(yield* Effect.promise(() => stopped.answered())).toMatchObject({ id: "busy-0", answer: yes })
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.live("over TCP a refused connection drops nobody: the refusal may be a firewall's, or a live runner elsewhere registered an address unreachable from here", () =>
    Effect.gen(function*() {
      const file = join(tempDir(), "asks.db")
      const address = RunnerAddress.make("127.0.0.1", yield* Effect.promise(freePort))
      const shown = `127.0.0.1:${address.port}`
      // A runner registered at an address where nothing listens here, holding a shard.
      yield* Effect.gen(function*() {
        const storage = yield* RunnerStorage.RunnerStorage
        yield* storage.register(Runner.make({ address, groups: ["default"], weight: 1 }), true)
        expect(yield* storage.acquire(address, [ShardId.make("default", 1)])).toHaveLength(1)
      }).pipe(Effect.provide(runnerStorageOn(file)), Effect.orDie)
      // The store's own tables (the cluster's secret), as any process of it makes them.
      yield* Effect.provide(Effect.void, inboxOn(`sqlite:${file}`))
      expect((yield* pingFromClient(file, address, { _tag: "Tcp" }))._tag).toBe("Failure")
      yield* Effect.sleep("1 second")
      expect(keptOf(file, shown)).toEqual({ rows: 1, locks: 1 })
      // The same refusal on a Unix socket drops the runner.
      const path = join(tempDir(), "left.sock")
      yield* Effect.gen(function*() {
        const storage = yield* RunnerStorage.RunnerStorage
        const gone = RunnerAddress.make(path, 0)
        yield* storage.register(Runner.make({ address: gone, groups: ["default"], weight: 1 }), true)
        yield* storage.release(address, ShardId.make("default", 1))
        expect(yield* storage.acquire(gone, [ShardId.make("default", 1)])).toHaveLength(1)
      }).pipe(Effect.provide(runnerStorageOn(file)), Effect.orDie)
      expect((yield* pingFromClient(file, RunnerAddress.make(path, 0)))._tag).toBe("Failure")
      yield* untilDropped(file, `${path}:0`)
      expect(keptOf(file, shown).rows).toBe(1)
    }), { timeout: 60_000 })

  it.live("each runner's socket is private (0600, in a 0700 folder); one left over from a crashed run is cleared", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const url = `sqlite:${join(dir, "asks.db")}`
      const folder = join(dir, ".asks.db-runners")
      // A runner that crashes leaves its socket behind.
      const crashed = yield* scopedAgent(url, "crash")
      yield* untilPending("crash-0").pipe(Effect.provide(inboxOn(url)))
      expect(sockets(folder)).toHaveLength(1)
      const [left] = sockets(folder)
      crashed.child.kill("SIGKILL")
      yield* Effect.promise(() => ended(crashed.child))
      expect(sockets(folder)).toEqual([left])

      const next = yield* scopedAgent(url, "next")
      yield* untilPending("next-0").pipe(Effect.provide(inboxOn(url)))
      const now = sockets(folder)
      expect(now).toHaveLength(1)
      expect(now).not.toContain(left)
      expect(statSync(folder).mode & 0o777).toBe(0o700)
      expect(statSync(join(folder, now[0]!)).mode & 0o777).toBe(0o600)
      // The new runner serves its own ask while the crashed one's socket is gone.
      yield* answer(url, "next-0")
      expect(yield* Effect.promise(() => next.answered())).toMatchObject({ id: "next-0", answer: yes })
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.live("a runner stopped (SIGSTOP) for 30 s while it owns an ask, then continued: the ask is answered once, each agent prints it once", () =>
    stoppedRunner(`sqlite:${join(tempDir(), "asks.db")}`, { prefix: "stop", stopped: "30 seconds", answerAt: "5 seconds", exits: false }), {
    timeout: 120_000
  })

  it.live("a runner starved for 2 s (SIGSTOP) while it owns an ask, answered after it goes on: answered once, each agent prints it once and ends", () =>
    stoppedRunner(`sqlite:${join(tempDir(), "asks.db")}`, { prefix: "starve", stopped: "2 seconds", answerAt: "2 seconds", exits: true }), {
    timeout: 120_000
  })
  it.live("a connection to a runner that accepts it and never answers the handshake (a stopped runner) is closed when it gives up", () =>
    Effect.gen(function*() {
      const path = join(tempDir(), "silent.sock")
      const accepted: Array<Socket> = []
      // What a stopped runner looks like to a peer: the kernel accepts the connection, nothing reads it.
      const server = createServer((conn) => void accepted.push(conn))
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(path, resolve))),
        () => Effect.sync(() => {
          for (const conn of accepted) conn.destroy()
          server.close()
        })
      )
      const socket = yield* connect({ path }, Buffer.alloc(32))
      const opened = yield* Effect.result(Effect.scoped(socket.reader))
      expect(opened._tag).toBe("Failure")
      expect(accepted).toHaveLength(1)
      // The peer sees the connection closed: nothing of it is left to keep the process alive.
      yield* Effect.promise(() => new Promise((resolve) => accepted[0]!.closed ? resolve(undefined) : accepted[0]!.once("close", resolve)))
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("two runners started at once each listen on their own address and serve their own ask", () => {
    const dir = tempDir()
    return twoRunners(
      `sqlite:${join(dir, "asks.db")}`,
      Effect.sync(() => expect(sockets(join(dir, ".asks.db-runners"))).toHaveLength(2))
    )
  }, { timeout: 90_000 })

  it.live("a process that connects to a runner's socket and sends garbage is refused and logged once; the runners go on", () => {
    const dir = tempDir()
    const folder = join(dir, ".asks.db-runners")
    return garbagePeer(`sqlite:${join(dir, "asks.db")}`, () => ({ path: join(folder, sockets(folder)[0]!) }))
  }, { timeout: 90_000 })

  it.live("a peer with the wrong secret is refused and logged once; one with the cluster's secret (kept in the store) is let in", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const folder = join(dir, ".asks.db-runners")
      const file = join(dir, "asks.db")
      yield* wrongSecretPeer(`sqlite:${file}`, () => ({ path: join(folder, sockets(folder)[0]!) }), () => storedSecret(file))
      // The secret is the store's (so every process that can open the store agrees), not a file beside it.
      expect(existsSync(join(folder, "secret"))).toBe(false)
      expect(statSync(file).mode & 0o777).toBe(0o600)
    }), { timeout: 90_000 })
})
