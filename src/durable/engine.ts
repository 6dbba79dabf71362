/**
 * Which runner a durable store's process is, and how runners reach each
 * other: the one place the engine's layers are chosen (decision 156).
 *
 * - A SQLite file is shared only by processes on one machine: each agent
 *   process is a runner of one `effect/cluster` cluster, listening on a Unix
 *   socket (0600) in a private folder beside the store, with ping health
 *   checks. An answer reaches the runner that owns the ask over its socket
 *   instead of through a storage poll, and a runner that dies is seen at once
 *   (its socket refuses), its asks moving when its shard locks lapse (about 3 s).
 *   Each connection begins with a handshake on the cluster's secret
 *   (`runnerHandshake.ts`, decision 163).
 *   Answerers (`runner: false`) are clients: they send, and own no shards.
 * - An in-memory SQLite store is private to its process, and a PostgreSQL
 *   store may be shared by agents on other machines, which a Unix socket
 *   cannot reach: both keep `SingleRunner`, processes meeting in the
 *   database alone (decision 072's timings).
 *
 * @internal
 */
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { connect as NetConnect } from "node:net"
import * as Path from "node:path"
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  ClusterWorkflowEngine,
  type MessageStorage,
  RunnerAddress,
  RunnerHealth,
  Runners,
  type Sharding,
  ShardingConfig,
  SingleRunner,
  SocketRunner,
  SqlMessageStorage,
  SqlRunnerStorage
} from "effect/cluster"
import { Digest } from "effect/crypto"
import { RpcClient, RpcSerialization } from "effect/rpc"
import type { SqlClient } from "effect/sql"
import { Socket, SocketServer } from "effect/socket"
import { clusterSecret, connect, guardServer } from "./runnerHandshake.js"

/**
 * Where the store's runners listen: a folder of Unix sockets, or none (the
 * store keeps `SingleRunner`).
 */
export type Transport =
  | { readonly _tag: "Single" }
  | { readonly _tag: "Sockets"; readonly folder: string }

/** The longest socket path the kernel takes (`sun_path` is 108 bytes with its NUL on Linux). */
const maxSocketPath = 100

/**
 * The transport for a store: sockets beside a SQLite file (in
 * `.<file>-runners/` beside it), else `SingleRunner`. A folder whose socket paths would
 * be too long for the kernel keeps `SingleRunner` too.
 */
export const transportFor = (sqliteFile: string | undefined): Transport => {
  if (sqliteFile === undefined || sqliteFile === ":memory:") return { _tag: "Single" }
  const file = Path.resolve(sqliteFile)
  // Hidden, and not named like the store's own files (`asks.db`, `-wal`, `-shm`).
  const folder = Path.join(Path.dirname(file), `.${Path.basename(file)}-runners`)
  return Path.join(folder, "0123456789abcdef.sock").length > maxSocketPath ? { _tag: "Single" } : { _tag: "Sockets", folder }
}

/**
 * The engine's timings under `SingleRunner`: defaults are a 10 s message poll
 * and a 35 s shard lock; an answer from another process must wake an agent
 * within a second and a rerun after a crash must get its shard back within
 * 15 s (decision 072).
 */
const singleTimings = {
  shardsPerGroup: 16,
  entityMessagePollInterval: Duration.millis(200),
  entityReplyPollInterval: Duration.millis(200),
  refreshAssignmentsInterval: Duration.seconds(1),
  shardLockRefreshInterval: Duration.seconds(3),
  shardLockExpiration: Duration.seconds(9),
  entityTerminationTimeout: Duration.seconds(2)
}

/**
 * The timings of socket runners (decision 157). Messages and replies come
 * over the sockets, so storage is polled only as a fallback, every 500 ms (a
 * notice that came before its message was committed, or while the workflow
 * was busy, is read there). A dead runner's shards move once their locks
 * lapse: 2 s, refreshed every 500 ms, with assignments re-read every 500 ms,
 * so failover takes about 3 s (2.6–3.3 s). Not 1 s: SQLite's
 * `CURRENT_TIMESTAMP`, which the engine stamps locks and runners' heartbeats
 * with, has whole seconds, so a 1 s lock looked lapsed for part of every
 * second and runners kept leaving and rejoining the assignments. Runners
 * that join within a second of each other are assigned shards once
 * (`runnerJoinDebounce`), not once per join.
 */
const socketTimings = {
  shardsPerGroup: 16,
  entityMessagePollInterval: Duration.millis(500),
  entityReplyPollInterval: Duration.millis(500),
  refreshAssignmentsInterval: Duration.millis(500),
  shardLockRefreshInterval: Duration.millis(500),
  shardLockExpiration: Duration.seconds(2),
  runnerHealthCheckInterval: Duration.seconds(1),
  runnerJoinDebounce: Duration.seconds(1),
  entityTerminationTimeout: Duration.seconds(2)
}

/** Whether something listens on the socket at `path`: a left-over file refuses. */
const listening = (path: string) =>
  Effect.callback<boolean>((resume) => {
    const probe = NetConnect(path)
    probe.once("connect", () => {
      probe.destroy()
      resume(Effect.succeed(true))
    })
    probe.once("error", () => resume(Effect.succeed(false)))
    return Effect.sync(() => probe.destroy())
  })

/**
 * Removes the sockets of runners that are gone (a crashed run leaves its
 * file behind): a socket nothing listens on refuses a connection.
 */
const sweepLeftOvers = (folder: string) =>
  Effect.gen(function*() {
    const names = yield* Effect.sync(() => {
      try {
        return Fs.readdirSync(folder).filter((name) => name.endsWith(".sock"))
      } catch {
        return []
      }
    })
    yield* Effect.forEach(names, (name) => {
      const path = Path.join(folder, name)
      return Effect.flatMap(listening(path), (live) => live ? Effect.void : Effect.sync(() => Fs.rmSync(path, { force: true })))
    }, { concurrency: 8, discard: true })
  })

/** A private folder for the sockets: 0700 whatever the umask, tightened if it exists. */
const privateFolder = (folder: string) =>
  Effect.sync(() => {
    Fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
    Fs.chmodSync(folder, 0o700)
  })

/**
 * Runners reach each other's socket by the path their address names (its
 * host; the port is unused), each connection past the handshake first.
 */
const clientProtocol = (secret: Uint8Array) =>
  Layer.effect(
  Runners.RpcClientProtocol,
  Effect.gen(function*() {
    const serialization = yield* RpcSerialization.RpcSerialization
    return Runners.RpcClientProtocol.of({
      codecFor: serialization.codecFor,
      make: Effect.fnUntraced(function*(address) {
        const socket = yield* connect({ path: address.host, timeout: 5500 }, secret)
        return yield* RpcClient.makeProtocolSocket().pipe(
          Effect.provideService(Socket.Socket, socket),
          Effect.provideService(RpcSerialization.RpcSerialization, serialization)
        )
      }, Effect.orDie)
    })
  })
)

/**
 * `server` whose connections that end in a socket error end quietly (logged
 * at Debug): a peer runner that is killed, or that drops a connection it
 * gave up on, is the cluster working, but the server logged each as an
 * unhandled error, into the output of the agent that runs it.
 */
const quietPeerErrors = (server: SocketServer.SocketServer["Service"]): SocketServer.SocketServer["Service"] =>
  SocketServer.SocketServer.of({
    address: server.address,
    run: (handler) =>
      server.run((socket) =>
        handler(socket).pipe(
          // The RPC server's socket protocol ends a connection with a socket error as a defect.
          Effect.catchCause((cause) =>
            Socket.isSocketError(Cause.squash(cause))
              ? Effect.logDebug("A peer runner's connection ended", cause)
              : Effect.failCause(cause)
          )
        )
      )
  })

/**
 * This runner's socket: a fresh name in the private folder, made 0600 once
 * it listens, that lets in only peers past the handshake.
 */
const socketServer = (path: string, secret: Uint8Array) =>
  Layer.effect(
    SocketServer.SocketServer,
    Effect.gen(function*() {
      const server = yield* NodeSocketServer.make({ path })
      yield* Effect.sync(() => Fs.chmodSync(path, 0o600))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(path, { force: true })))
      return quietPeerErrors(guardServer(server, secret))
    })
  )

const storageLayers = Layer.mergeAll(SqlMessageStorage.layer, Layer.orDie(SqlRunnerStorage.layer))

/** A runner of the store's cluster on a Unix socket in `folder`, or (`runner: false`) a client of it. */
const socketEngine = (folder: string, runner: boolean) =>
  Layer.unwrap(Effect.gen(function*() {
  yield* privateFolder(folder)
  const secret = yield* clusterSecret(Path.join(folder, "secret"))
  if (!runner) {
    return SocketRunner.layerClientOnly.pipe(
      Layer.provide(clientProtocol(secret)),
      Layer.provideMerge(storageLayers),
      Layer.provide(ShardingConfig.layer({ ...socketTimings, runnerAddress: Option.none() })),
      Layer.provide(RpcSerialization.layerSchemaBinary())
    )
  }
    yield* sweepLeftOvers(folder)
    const path = Path.join(folder, `${randomBytes(8).toString("hex")}.sock`)
    const address = RunnerAddress.make(path, 0)
    return SocketRunner.layer.pipe(
      Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(clientProtocol(secret)))),
      Layer.provide(clientProtocol(secret)),
      Layer.provide(socketServer(path, secret)),
      Layer.provideMerge(storageLayers),
      Layer.provide(ShardingConfig.layer({ ...socketTimings, runnerAddress: Option.some(address) })),
      Layer.provide(RpcSerialization.layerSchemaBinary())
    )
  }))

const singleEngine = (runner: boolean) =>
  SingleRunner.layer({
    shardingConfig: {
      ...singleTimings,
      // The address is only a name here: single runners never talk to each other.
      runnerAddress: runner ? Option.some(RunnerAddress.make(`ask-user-${randomBytes(16).toString("hex")}`, 1)) : Option.none()
    },
    runnerStorage: "sql"
  })

/**
 * The workflow engine for a store with `transport`; with `runner: false`
 * the process only sends and reads (answerers, `ask-user pending`): it
 * claims no shards, so it never runs asks itself.
 */
export const engineLayer = (transport: Transport, runner: boolean) => {
  const cluster: Layer.Layer<
    Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
    unknown,
    SqlClient.SqlClient | Digest.Digest
  > = transport._tag === "Sockets" ? socketEngine(transport.folder, runner) : singleEngine(runner)
  return ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(cluster),
    Layer.provide(Digest.layerWebCrypto),
    // The configuration is given here in full; a bad one is a bug, not an input.
    Layer.orDie
  )
}
