/**
 * Agent processes sharing a SQLite store as runners of one cluster
 * (`src/durable/engine.ts`): each listens on a Unix socket in a private
 * folder beside the store; a runner killed with SIGKILL while it runs an ask
 * hands it on, so an agent that joined the ask gets the answer; a socket
 * left over from a crashed run is cleared when the next runner starts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { DurableInbox, DurableStore } from "../src/durable/index.js"
import { tempDir } from "./cliHarness.js"
import { untilPending as waitPending } from "./support/untilPending.js"

const agentScript = join(import.meta.dirname, "support", "durableAgent.ts")
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

/** An agent process asking `<prefix>-0` on the store; its first stdout line, once answered. */
const agent = (url: string, prefix: string) => {
  const child = spawn(process.execPath, [agentScript, url, prefix, "1"], { stdio: ["ignore", "pipe", "pipe"] })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  return { child, answered: () => lines.next().then((line) => line.value === undefined ? undefined : JSON.parse(String(line.value))) }
}

const ended = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("close", resolve))

/** An agent for the test's scope: killed at its end. */
const scopedAgent = (url: string, prefix: string) =>
  Effect.acquireRelease(Effect.sync(() => agent(url, prefix)), ({ child }) =>
    Effect.promise(() => {
      child.kill("SIGKILL")
      return ended(child)
    }))

const inboxOn = (url: string) => DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))

const untilPending = (id: string) => Effect.flatMap(DurableInbox, (inbox) => waitPending(inbox.status, id))

/** Answers the ask from an answerer (a client of the cluster, no shards). */
const answer = (url: string, id: string) =>
  Effect.gen(function*() {
    const inbox = yield* DurableInbox
    yield* inbox.answer(id, yes)
  }).pipe(Effect.provide(inboxOn(url)))

const sockets = (folder: string) => existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".sock")) : []

describe("agent processes as runners of one cluster (SQLite file)", () => {
  it.live("a runner killed with SIGKILL while it runs an ask: the agent that joined it gets the answer", () =>
    Effect.gen(function*() {
      const url = `sqlite:${join(tempDir(), "asks.db")}`
      const first = yield* scopedAgent(url, "kill")
      yield* untilPending("kill-0").pipe(Effect.provide(inboxOn(url)))
      // The first agent runs the ask's workflow; the second starts and joins it.
      yield* Effect.sleep("2 seconds")
      const joined = yield* scopedAgent(url, "kill")
      yield* Effect.sleep("4 seconds")
      first.child.kill("SIGKILL")
      yield* Effect.promise(() => ended(first.child))
      yield* answer(url, "kill-0")
      expect(yield* Effect.promise(() => joined.answered())).toMatchObject({ id: "kill-0", answer: yes })
    }).pipe(Effect.scoped), { timeout: 90_000 })

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
})
