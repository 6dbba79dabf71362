/**
 * Agent processes on one PostgreSQL store as runners of one cluster over TCP
 * (`src/durable/engine.ts`, decision 165): each runner listens on loopback
 * and registers that address, and every connection begins with the handshake
 * on the cluster's secret, kept in the store. Faults: the process running an
 * ask killed with SIGKILL (another agent that joined the ask gets the
 * answer); a runner that hangs 30 s (SIGSTOP) and comes back (the ask is not
 * run twice); the database restarted under three agents; two runners asked
 * to listen on one fixed port (the second fails naming the address, the
 * first goes on); a peer with the wrong secret and a peer sending garbage
 * (refused and logged once, the runners go on); agents of different state
 * directories, or of different OS users, and no secret in the environment
 * (they agree on the store's); runners off loopback (TLS-PSK, decision 166).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync } from "node:fs"
import { networkInterfaces } from "node:os"
import * as Tls from "node:tls"
import { DurableInbox } from "../src/durable/index.js"
import { clientTls } from "../src/durable/runnerTls.js"
import { start, tempDir } from "./cliHarness.js"
import {
  agent,
  answer,
  connection,
  ended,
  garbagePeer,
  inboxOn,
  killedOwnerFailover,
  refusals,
  scopedAgent,
  stoppedRunner,
  twoRunners,
  untilPending,
  wrongSecretPeer,
  yes
} from "./support/clusterAgents.js"
import { askFile, makeStore, run, untilStatus } from "./support/durableCli.js"
import { freePort } from "./support/freePort.js"
import { psql } from "./support/postgres.js"
import { privatePostgres } from "./support/privatePostgres.js"

const { newDatabase, server } = privatePostgres()

/** The runners registered in the store, as `host:port`. */
const runnerAddresses = (url: string) => psql(url, "SELECT address FROM cluster_runners ORDER BY address")

/** The port of the one runner registered in the store (it must be a TCP one, on loopback). */
const onlyRunnerPort = (url: string) => {
  const addresses = runnerAddresses(url)
  expect(addresses).toHaveLength(1)
  expect(addresses[0]).toMatch(/^127\.0\.0\.1:\d+$/)
  return Number(addresses[0]!.split(":")[1])
}

/** The cluster's secret as the store keeps it. */
const storedSecret = (url: string) => Buffer.from(psql(url, "SELECT secret FROM ask_user_cluster_secret WHERE id = 1")[0]!, "hex")

/** An address of this machine that is not loopback (runners there speak TLS), if it has one. */
const offLoopback = Object.values(networkInterfaces()).flat()
  .find((face) => face !== undefined && face.family === "IPv4" && !face.internal)?.address

/** What a TLS client with the key of `secret` gets from `port` on `host`: the first 4 bytes inside TLS, or the failure. */
const overTls = (host: string, port: number, secret: Uint8Array) =>
  Effect.promise(() =>
    new Promise<string>((resolve) => {
      const conn = Tls.connect({ host, port, ...clientTls(secret) })
      let got = Buffer.alloc(0)
      conn.on("data", (chunk: Buffer) => {
        got = Buffer.concat([got, chunk])
        if (got.length >= 4) {
          conn.destroy()
          resolve(got.subarray(0, 4).toString("latin1"))
        }
      })
      conn.once("error", () => resolve("failed"))
      conn.once("close", () => resolve("failed"))
    })
  )

/** The first `length` bytes a runner sends to a peer that connects to `port` (its handshake's challenge). */
const firstBytes = (port: number, length: number) =>
  Effect.flatMap(connection({ host: "127.0.0.1", port }), (conn) =>
    Effect.promise(() =>
      new Promise<Buffer>((resolve) => {
        let got = Buffer.alloc(0)
        conn.on("data", (chunk: Buffer) => {
          got = Buffer.concat([got, chunk])
          if (got.length >= length) resolve(got.subarray(0, length))
        })
      })
    )).pipe(Effect.scoped)

describe("agent processes on one PostgreSQL store: runners over TCP", () => {
  it.live("each runner listens on loopback, registers the port it got, and greets a peer with the handshake", () => {
    const url = newDatabase()
    return twoRunners(
      url,
      Effect.gen(function*() {
        const addresses = runnerAddresses(url)
        expect(addresses).toHaveLength(2)
        for (const address of addresses) {
          expect(address).toMatch(/^127\.0\.0\.1:\d+$/)
          const port = Number(address.split(":")[1])
          expect(port).toBeGreaterThan(0)
          // A socket runner, not a name: it answers on that port with the handshake's challenge.
          expect((yield* firstBytes(port, 4)).toString("latin1")).toBe("AUC1")
        }
        // The secret the runners share is the store's: 32 bytes, made once.
        expect(storedSecret(url)).toHaveLength(32)
      })
    )
  }, { timeout: 90_000 })

  it.live("the process running an ask killed with SIGKILL: the agent that joined it gets the answer", () =>
    Effect.gen(function*() {
      expect(yield* killedOwnerFailover(newDatabase())).toMatchObject({ id: "kill-0", answer: yes })
    }), { timeout: 120_000 })

  it.live("a runner stopped (SIGSTOP) for 30 s while it owns an ask, then continued: the ask is answered once, each agent prints it once", () =>
    stoppedRunner(newDatabase(), { prefix: "stop", stopped: "30 seconds", answerAt: "5 seconds", exits: false }), { timeout: 120_000 })

  it.live("the database restarted under three agents: each gets its answer once, recorded once", () =>
    Effect.gen(function*() {
      const url = newDatabase()
      const agents = [yield* scopedAgent(url, "a"), yield* scopedAgent(url, "b"), yield* scopedAgent(url, "c")]
      const ids = ["a-0", "b-0", "c-0"]
      yield* Effect.forEach(ids, untilPending).pipe(Effect.provide(inboxOn(url)))
      expect(runnerAddresses(url)).toHaveLength(3)
      // Down long enough that the engine's polls and shard locks fail meanwhile.
      yield* Effect.promise(() => server().restart(3000))
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

  it.live("two runners asked to listen on one fixed port: the second fails naming the address (the CLI exits 1), the first goes on", () =>
    Effect.gen(function*() {
      const url = newDatabase()
      const port = yield* Effect.promise(freePort)
      const env = { ASK_USER_CLUSTER_PORT: String(port) }
      const first = yield* scopedAgent(url, "fixed", env)
      yield* untilPending("fixed-0").pipe(Effect.provide(inboxOn(url)))
      expect(runnerAddresses(url)).toEqual([`127.0.0.1:${port}`])

      // A program on the library: its store fails with the tagged error.
      const second = agent(url, "second", env)
      yield* Effect.promise(() => ended(second.child))
      expect(second.child.exitCode).not.toBe(0)
      expect(second.printed.err).toContain("DurableClusterError")
      expect(second.printed.err).toContain(`Cannot listen for the store's other agents on 127.0.0.1:${port}: the address is in use`)

      // The CLI: a clear line and exit 1, nothing asked.
      const store = makeStore(url)
      const cli = start(["--durable", "--store", url, "--ask-id", "cli-0", store.requestFile], { env })
      cli.child.stdin!.end()
      expect(yield* Effect.promise(() => cli.exited)).toBe(1)
      expect(cli.stderr()).toContain(`127.0.0.1:${port}: the address is in use`)
      expect(cli.stderr()).not.toMatch(/at .*\.js:\d+/)
      expect(psql(url, "SELECT id FROM ask_user_asks ORDER BY id")).toEqual(["fixed-0"])

      // The first runner is where it was and serves its ask.
      expect(runnerAddresses(url)).toEqual([`127.0.0.1:${port}`])
      yield* answer(url, "fixed-0")
      expect(yield* Effect.promise(() => first.answered())).toMatchObject({ id: "fixed-0", answer: yes })
      expect(first.printed.err).not.toContain("Refused")
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it("settings that name no address: the CLI exits 2 naming the variable, before anything is asked", async () => {
    const url = newDatabase()
    const store = makeStore(url)
    const cases: ReadonlyArray<readonly [NodeJS.ProcessEnv, string]> = [
      [{ ASK_USER_CLUSTER_PORT: "70000" }, "ASK_USER_CLUSTER_PORT is \"70000\""],
      [{ ASK_USER_CLUSTER_PORT: "80 80" }, "ASK_USER_CLUSTER_PORT is \"80 80\""],
      [{ ASK_USER_CLUSTER_HOST: "" }, "ASK_USER_CLUSTER_HOST is \"\""],
      [{ ASK_USER_CLUSTER_HOST: "bad\u001b[2Jhost" }, "ASK_USER_CLUSTER_HOST is \"bad\\u001b[2Jhost\""],
      [{ ASK_USER_CLUSTER_HOST: "0.0.0.0" }, "ASK_USER_CLUSTER_HOST is 0.0.0.0"]
    ]
    for (const [env, said] of cases) {
      const cli = start(["--durable", "--store", url, "--ask-id", "bad-0", store.requestFile], { env })
      cli.child.stdin!.end()
      expect(await cli.exited).toBe(2)
      expect(cli.stderr()).toContain(said)
      expect(cli.stderr()).not.toContain("\u001b")
    }
    expect(psql(url, "SELECT id FROM ask_user_asks")).toEqual([])
  }, 90_000)

  it.live("a peer with the wrong secret is refused and logged once; one with the store's secret is let in; the runners go on", () => {
    const url = newDatabase()
    return wrongSecretPeer(url, () => ({ host: "127.0.0.1", port: onlyRunnerPort(url) }), () => storedSecret(url))
  }, { timeout: 90_000 })

  it.live("a peer that sends garbage to a runner's TCP port is hung up on and logged once, without its bytes; the runners go on", () => {
    const url = newDatabase()
    return garbagePeer(url, () => ({ host: "127.0.0.1", port: onlyRunnerPort(url) }))
  }, { timeout: 90_000 })

  it.live("agents with different state directories and no secret in the environment agree on the store's: one joins the other's ask and both get the answer", () =>
    Effect.gen(function*() {
      const url = newDatabase()
      const apart = (dir: string) => ({ XDG_STATE_HOME: dir, ASK_USER_CLUSTER_SECRET: "" })
      const first = yield* scopedAgent(url, "apart", apart(tempDir()))
      yield* untilPending("apart-0").pipe(Effect.provide(inboxOn(url)))
      yield* Effect.sleep("2 seconds")
      // The second waits for the ask its shard's owner runs, over the other's socket.
      const second = yield* scopedAgent(url, "apart", apart(tempDir()))
      yield* Effect.sleep("4 seconds")
      expect(runnerAddresses(url)).toHaveLength(2)
      yield* answer(url, "apart-0")
      expect(yield* Effect.promise(() => first.answered())).toMatchObject({ id: "apart-0", answer: yes })
      expect(yield* Effect.promise(() => second.answered())).toMatchObject({ id: "apart-0", answer: yes })
      // Neither refused the other: a per-user secret would have made each refuse the other's connections.
      expect(refusals(first.printed.err + second.printed.err)).toEqual([])
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.live.skipIf(offLoopback === undefined)(
    "runners off loopback speak TLS keyed by the store's secret: a plain peer gets nothing in clear, a wrong key fails, the agents still join one ask",
    () =>
      Effect.gen(function*() {
        const host = offLoopback!
        const url = newDatabase()
        const env = { ASK_USER_CLUSTER_HOST: host }
        const first = yield* scopedAgent(url, "tls", env)
        yield* untilPending("tls-0").pipe(Effect.provide(inboxOn(url)))
        const [address] = runnerAddresses(url)
        expect(address).toMatch(new RegExp(`^${host.replaceAll(".", "\\.")}:\\d+$`))
        const port = Number(address!.split(":")[1])

        // A plain peer: the runner says nothing in clear (no handshake challenge) and hangs up on garbage.
        const plain = yield* Effect.flatMap(connection({ host, port }), (conn) =>
          Effect.promise(() =>
            new Promise<string>((resolve) => {
              let got = ""
              conn.on("data", (chunk: Buffer) => (got += chunk.toString("latin1")))
              conn.once("close", () => resolve(got))
              setTimeout(() => conn.write("\u001b[31mGET / HTTP/1.1\r\n\r\n"), 1000)
            })
          )).pipe(Effect.scoped)
        expect(plain).not.toContain("AUC1")
        // TLS with a key not derived from the store's secret fails; with the right one, the handshake's
        // challenge comes inside TLS.
        expect(yield* overTls(host, port, Buffer.from("not the cluster's secret"))).toBe("failed")
        expect(yield* overTls(host, port, storedSecret(url))).toBe("AUC1")

        // A second agent joins the ask; the runners talk to each other over TLS.
        yield* Effect.sleep("2 seconds")
        const second = yield* scopedAgent(url, "tls", env)
        yield* Effect.sleep("4 seconds")
        expect(runnerAddresses(url)).toHaveLength(2)
        yield* answer(url, "tls-0")
        expect(yield* Effect.promise(() => first.answered())).toMatchObject({ id: "tls-0", answer: yes })
        expect(yield* Effect.promise(() => second.answered())).toMatchObject({ id: "tls-0", answer: yes })
        const refused = refusals(first.printed.err)
        expect(refused).toHaveLength(1)
        expect(refused[0]).toContain("did not complete TLS")
        expect(first.printed.err).not.toContain("GET /")
        expect(refusals(second.printed.err)).toEqual([])
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it("agents of two OS users on one store are runners of one cluster: one joins the other's ask, both get the answer, neither refuses the other", async () => {
    const store = makeStore(newDatabase())
    // The other account reads the request file; the store is the server's, not a file.
    chmodSync(store.dir, 0o755)
    const mine = askFile(store, "shared-1", store.requestFile)
    await untilStatus(store, "shared-1", (s) => s === "pending", mine)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const theirs = start(["--durable", "--store", store.url, "--ask-id", "shared-1", store.requestFile], { user: "nobody" })
    theirs.child.stdin!.end()
    // Long enough for nobody's runner to register and for the runners' health checks to reach each other.
    await new Promise((resolve) => setTimeout(resolve, 4000))
    expect(runnerAddresses(store.url)).toHaveLength(2)
    expect((await run(["answer", "--store", store.url, "shared-1", store.file("yes.json", yes)])).code).toBe(0)
    expect([await mine.exited, await theirs.exited]).toEqual([0, 0])
    for (const agent of [mine, theirs]) expect(JSON.parse(agent.stdout())).toEqual(yes)
    expect(refusals(mine.stderr() + theirs.stderr())).toEqual([])
  }, 90_000)
})
