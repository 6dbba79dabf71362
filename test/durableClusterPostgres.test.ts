/**
 * Agent processes on one PostgreSQL store, faults: the process running an
 * ask killed with SIGKILL (another agent that joined the ask gets the
 * answer), and the database restarted under three agents (each gets its
 * answer, once). PostgreSQL stores still run one `SingleRunner` per process
 * meeting in the database (decision 156); these hold for the transport that
 * replaces it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { DurableInbox } from "../src/durable/index.js"
import { answer, ended, inboxOn, killedOwnerFailover, scopedAgent, untilPending, yes } from "./support/clusterAgents.js"
import { type PostgresServer, startPostgres } from "./support/postgres.js"

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 120_000)
afterAll(() => server?.stop())

const newDatabase = () => server.createDatabase(`asks_${randomUUID().replaceAll("-", "")}`)

describe("agent processes on one PostgreSQL store: faults", () => {
  it.live("the process running an ask killed with SIGKILL: the agent that joined it gets the answer", () =>
    Effect.gen(function*() {
      expect(yield* killedOwnerFailover(newDatabase())).toMatchObject({ id: "kill-0", answer: yes })
    }), { timeout: 120_000 })

  it.live("the database restarted under three agents: each gets its answer once, recorded once", () =>
    Effect.gen(function*() {
      const url = newDatabase()
      const agents = [yield* scopedAgent(url, "a"), yield* scopedAgent(url, "b"), yield* scopedAgent(url, "c")]
      const ids = ["a-0", "b-0", "c-0"]
      yield* Effect.forEach(ids, untilPending).pipe(Effect.provide(inboxOn(url)))
      // Down long enough that the engine's polls and shard locks fail meanwhile.
      yield* Effect.promise(() => server.restart(3000))
      yield* Effect.forEach(ids, (id) => answer(url, id))
      for (const [i, one] of agents.entries()) {
        expect(yield* Effect.promise(() => one.answered())).toMatchObject({ id: ids[i], answer: yes })
        yield* Effect.promise(() => ended(one.child))
        expect(one.child.exitCode).toBe(0)
        expect(one.printed.out.trim().split("\n")).toHaveLength(1)
      }
      const history = yield* Effect.flatMap(DurableInbox, (inbox) => inbox.history()).pipe(Effect.provide(inboxOn(url)))
      expect(history.map((ask) => ask.id).sort()).toEqual(ids)
    }).pipe(Effect.scoped), { timeout: 180_000 })
})
