/**
 * Agent processes on a durable store for the cluster's fault tests
 * (`test/durableCluster*.test.ts`): each runs `durableAgent.ts` asking one
 * ask, and the helpers that watch, answer and clean them up.
 */
import { Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { DurableInbox, DurableStore } from "../../src/durable/index.js"
import { untilPending as waitPending } from "./untilPending.js"

const agentScript = join(import.meta.dirname, "durableAgent.ts")

/** The answer the tests give. */
export const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

/**
 * An agent process asking `<prefix>-0` on the store; its first stdout line, once answered;
 * everything it printed (`out`, `err`) so far.
 */
export const agent = (url: string, prefix: string) => {
  const child = spawn(process.execPath, [agentScript, url, prefix, "1"], { stdio: ["ignore", "pipe", "pipe"] })
  const printed = { out: "", err: "" }
  child.stdout!.on("data", (chunk) => printed.out += String(chunk))
  child.stderr!.on("data", (chunk) => printed.err += String(chunk))
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  return {
    child,
    printed,
    answered: () => lines.next().then((line) => line.value === undefined ? undefined : JSON.parse(String(line.value)))
  }
}

/** Resolves once the child has ended. */
export const ended = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("close", resolve))

/** How the child ended (its exit code, or the signal that ended it), once it has. */
export const exitOf = (child: ChildProcess) => ended(child).then(() => child.exitCode ?? child.signalCode)

/** An agent for the test's scope: killed at its end (woken first, should it be stopped). */
export const scopedAgent = (url: string, prefix: string) =>
  Effect.acquireRelease(Effect.sync(() => agent(url, prefix)), ({ child }) =>
    Effect.promise(() => {
      child.kill("SIGCONT")
      child.kill("SIGKILL")
      return ended(child)
    }))

/** An inbox on the store at `url`, as an answerer (a client: no shards). */
export const inboxOn = (url: string) => DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))

/** Waits until the ask `id` is pending. */
export const untilPending = (id: string) => Effect.flatMap(DurableInbox, (inbox) => waitPending(inbox.status, id))

/** Answers the ask from an answerer (a client of the cluster, no shards). */
export const answer = (url: string, id: string) =>
  Effect.gen(function*() {
    const inbox = yield* DurableInbox
    yield* inbox.answer(id, yes)
  }).pipe(Effect.provide(inboxOn(url)))

/**
 * The failover scenario on the store at `url`: an agent runs an ask, a
 * second joins it, the first is killed with SIGKILL, the ask is answered:
 * the agent that joined must get the answer.
 */
export const killedOwnerFailover = (url: string) =>
  Effect.gen(function*() {
    const first = yield* scopedAgent(url, "kill")
    yield* untilPending("kill-0").pipe(Effect.provide(inboxOn(url)))
    // The first agent runs the ask's workflow; the second starts and joins it.
    yield* Effect.sleep("2 seconds")
    const joined = yield* scopedAgent(url, "kill")
    yield* Effect.sleep("4 seconds")
    first.child.kill("SIGKILL")
    yield* Effect.promise(() => ended(first.child))
    yield* answer(url, "kill-0")
    return yield* Effect.promise(() => joined.answered())
  }).pipe(Effect.scoped)
