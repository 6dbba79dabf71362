/**
 * Agent processes sharing a SQLite store as runners of one cluster
 * (`src/durable/engine.ts`): each listens on a Unix socket in a private
 * folder beside the store; a runner killed with SIGKILL while it runs an ask
 * hands it on, so an agent that joined the ask gets the answer; a socket
 * left over from a crashed run is cleared when the next runner starts; a
 * runner that hangs (SIGSTOP) while it owns an ask and comes back does not
 * run it twice, and every agent ends once it has its answer (a connection to
 * a stopped runner is not left open); runners started at once each listen on their own address;
 * a process that connects to a runner's socket without the handshake is
 * refused and logged once, and the runners go on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createServer, type Socket } from "node:net"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { DurableInbox } from "../src/durable/index.js"
import { connect } from "../src/durable/runnerHandshake.js"
import { tempDir } from "./cliHarness.js"
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

/** The cluster's secret as the store keeps it. */
const storedSecret = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return Buffer.from(String(db.prepare("SELECT secret FROM ask_user_cluster_secret WHERE id = 1").get()!.secret), "hex")
  } finally {
    db.close()
  }
}

const sockets = (folder: string) => existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".sock")) : []

describe("agent processes as runners of one cluster (SQLite file)", () => {
  it.live("a runner killed with SIGKILL while it runs an ask: the agent that joined it gets the answer", () =>
    Effect.gen(function*() {
      expect(yield* killedOwnerFailover(`sqlite:${join(tempDir(), "asks.db")}`)).toMatchObject({ id: "kill-0", answer: yes })
    }), { timeout: 90_000 })

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
