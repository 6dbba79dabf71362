/**
 * Which runner a durable store's process is, and how runners reach each
 * other: the one place the engine's layers are chosen (decisions 156, 165).
 *
 * Where several agent processes share a store they are runners of one
 * `effect/cluster` cluster (`SocketRunner`, ping health checks): an answer
 * reaches the runner that owns the ask over a socket instead of through a
 * storage poll, and a runner that dies is seen at once: a SQLite runner
 * whose socket refuses is dropped from the store by whoever found it so
 * (`goneRunners.ts`, decision 168), a TCP runner's asks move when its shard
 * locks lapse (2–3 s). Each connection begins with a handshake on the
 * cluster's secret (`runnerHandshake.ts`, decision 163), which is
 * `ASK_USER_CLUSTER_SECRET` or one kept in the store (`clusterSecret.ts`).
 * Answerers (`runner: false`) are clients: they send, and own no shards.
 *
 * - A SQLite file is shared only by processes on one machine: each runner
 *   listens on a Unix socket (0600) in a private folder beside the store.
 * - A PostgreSQL store may be shared by agents on several machines, which a
 *   Unix socket cannot reach: each runner listens on TCP, on
 *   `ASK_USER_CLUSTER_HOST` (default `127.0.0.1`) and `ASK_USER_CLUSTER_PORT`
 *   (default a free port), and registers that host and the port it got. The
 *   health checks reach every runner from every other, so agents on several
 *   machines must each name an address the others can reach. Off loopback
 *   the connections are TLS with a key derived from the secret (TLS-PSK,
 *   `runnerTls.ts`, decision 166).
 * - An in-memory SQLite store is private to its process: `SingleRunner`
 *   (decision 072's timings).
 *
 * @internal
 */
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { connect as NetConnect, isIP, type NetConnectOpts } from "node:net"
import * as Path from "node:path"
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import {
  ClusterWorkflowEngine,
  type MessageStorage,
  RunnerAddress,
  RunnerHealth,
  type Runner,
  Runners,
  RunnerStorage,
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
import { inertJson } from "../internal/sanitize.js"
import { clusterSecret } from "./clusterSecret.js"
import { DurableClusterError } from "./DurableClusterError.js"
import { goneRunners } from "./goneRunners.js"
import { connect, guardServer } from "./runnerHandshake.js"
import { isLoopback } from "./runnerTls.js"
import { sqlitePath } from "./storeUrl.js"

/**
 * Where the store's runners listen: a folder of Unix sockets, TCP, or
 * nowhere (the store keeps `SingleRunner`).
 */
export type Transport =
  | { readonly _tag: "Single" }
  | { readonly _tag: "Sockets"; readonly folder: string }
  | { readonly _tag: "Tcp" }

/** The longest socket path the kernel takes (`sun_path` is 108 bytes with its NUL on Linux). */
const maxSocketPath = 100

/**
 * The transport for the store at `url`: TCP for PostgreSQL, sockets beside a
 * SQLite file (in `.<file>-runners/` beside it), `SingleRunner` in memory. A
 * folder whose socket paths would be too long for the kernel keeps
 * `SingleRunner` too.
 */
export const transportFor = (url: string): Transport => {
  const sqliteFile = sqlitePath(url)
  if (sqliteFile === undefined) return { _tag: "Tcp" }
  if (sqliteFile === ":memory:") return { _tag: "Single" }
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
 * so failover takes about 3 s (2.6–3.3 s) unless the runner is found gone
 * sooner (decision 168). Not 1 s: SQLite's
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
 * How to reach a runner: where, whether over TLS, and whether a refused
 * connection means the runner is gone (its socket is on this machine).
 */
interface Dial {
  readonly options: NetConnectOpts
  readonly encrypted: boolean
  readonly refusedMeansGone: boolean
}

/**
 * Runners reach each other as `target` says of a runner's address (a Unix
 * socket's path, or a host and port), each connection past the handshake
 * first. A runner found gone is told to the store (`goneRunners.ts`).
 */
const clientProtocol = (secret: Uint8Array, target: (address: RunnerAddress.RunnerAddress) => Dial) =>
  Layer.effect(
    Runners.RpcClientProtocol,
    Effect.gen(function*() {
      const serialization = yield* RpcSerialization.RpcSerialization
      const gone = yield* goneRunners
      return Runners.RpcClientProtocol.of({
        codecFor: serialization.codecFor,
        make: Effect.fnUntraced(function*(address) {
          const { encrypted, options, refusedMeansGone } = target(address)
          const socket = yield* connect(options, secret, { encrypted, refused: refusedMeansGone ? gone(address) : Effect.void })
          return yield* RpcClient.makeProtocolSocket().pipe(
            Effect.provideService(Socket.Socket, socket),
            Effect.provideService(RpcSerialization.RpcSerialization, serialization)
          )
        }, Effect.orDie)
      })
    })
  )

/** A Unix socket runner's address is its path (the port is unused); the file system keeps others out. */
const bySocketPath = (address: RunnerAddress.RunnerAddress): Dial => ({
  options: { path: address.host, timeout: 5500 },
  encrypted: false,
  refusedMeansGone: true
})

/**
 * A TCP runner's address is the host it was told to listen on and the port
 * it got; off loopback it listens with TLS (decision 166), as its host says.
 */
const byHostAndPort = (address: RunnerAddress.RunnerAddress): Dial => ({
  options: { host: address.host, port: address.port, timeout: 5500 },
  encrypted: !isLoopback(address.host),
  // A refusal over TCP may be a firewall's, or a runner elsewhere that registered an address unreachable from here.
  refusedMeansGone: false
})

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

/**
 * When this process last saw the runners of the store's cluster change (a
 * runner joined, left or changed health), in epoch ms: for a few seconds
 * after, shards move between runners and the cluster is slow to wake a
 * waiting ask (decision 169). Read from the engine's own reads of its
 * runners (every 500 ms), so knowing costs no statement.
 */
export class RunnersChanged extends Context.Service<RunnersChanged, {
  readonly lastAt: () => number
  /** Calls `listener` at each change, for the rest of the scope. */
  readonly onChange: (listener: () => void) => Effect.Effect<void, never, Scope.Scope>
}>()("effect-user-interaction/durable/RunnersChanged") {}

/** Listeners of `RunnersChanged`, and a change told to them. */
const changeListeners = () => {
  const listeners = new Set<() => void>()
  return {
    tell: () => listeners.forEach((listener) => listener()),
    onChange: (listener: () => void) =>
      Effect.acquireRelease(Effect.sync(() => void listeners.add(listener)), () => Effect.sync(() => void listeners.delete(listener)))
  }
}

/** effect/cluster's storage of runners, telling `RunnersChanged` what its reads of the runners find. */
const watchedRunnerStorage = Layer.effectContext(Effect.gen(function*() {
  const storage = yield* RunnerStorage.RunnerStorage
  let seen: string | undefined
  let lastAt = 0
  const { onChange, tell } = changeListeners()
  const noteRunners = (runners: ReadonlyArray<readonly [Runner.Runner, boolean]>) =>
    Effect.sync(() => {
      const now = runners.map(([{ address }, healthy]) => `${address.host}:${address.port}:${healthy}`).sort().join("\n")
      if (now === seen) return
      seen = now
      lastAt = Date.now()
      tell()
    })
  return Context.make(RunnerStorage.RunnerStorage, { ...storage, getRunners: Effect.tap(storage.getRunners, noteRunners) }).pipe(
    Context.add(RunnersChanged, { lastAt: () => lastAt, onChange })
  )
})).pipe(Layer.provide(Layer.orDie(SqlRunnerStorage.layer)))

const storageLayers = Layer.mergeAll(SqlMessageStorage.layer, watchedRunnerStorage)

/** How a process of the cluster reaches its runners (`clientProtocol`). */
type Protocol = Layer.Layer<Runners.RpcClientProtocol, never, RpcSerialization.RpcSerialization | RunnerStorage.RunnerStorage>

/** A client of the store's cluster: it sends to the runners and owns no shards. */
const clientEngine = (protocol: Protocol) =>
  SocketRunner.layerClientOnly.pipe(
    Layer.provide(protocol),
    Layer.provideMerge(storageLayers),
    Layer.provide(ShardingConfig.layer({ ...socketTimings, runnerAddress: Option.none() })),
    Layer.provide(RpcSerialization.layerSchemaBinary())
  )

/** A runner of the store's cluster, registered at `address`, served by `server`. */
const runnerEngine = (
  protocol: Protocol,
  server: Layer.Layer<SocketServer.SocketServer>,
  address: RunnerAddress.RunnerAddress
) =>
  SocketRunner.layer.pipe(
    Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(protocol))),
    Layer.provide(protocol),
    Layer.provide(server),
    Layer.provideMerge(storageLayers),
    Layer.provide(ShardingConfig.layer({ ...socketTimings, runnerAddress: Option.some(address) })),
    Layer.provide(RpcSerialization.layerSchemaBinary())
  )

/** A runner of the store's cluster on a Unix socket in `folder`, or (`runner: false`) a client of it. */
const socketEngine = (folder: string, runner: boolean) =>
  Layer.unwrap(Effect.gen(function*() {
    const secret = yield* clusterSecret
    const protocol = clientProtocol(secret, bySocketPath)
    if (!runner) return clientEngine(protocol)
    yield* privateFolder(folder)
    yield* sweepLeftOvers(folder)
    const path = Path.join(folder, `${randomBytes(8).toString("hex")}.sock`)
    return runnerEngine(protocol, Layer.orDie(socketServer(path, secret)), RunnerAddress.make(path, 0))
  }))

/** A TCP port number: decimal digits, 0 (a free port) to 65535. */
const portPattern = /^\d{1,5}$/

/**
 * A host name or IP address: letters, digits, dots, hyphens (IPv6 has its
 * own check), and one the other runners could connect to, so not "any".
 */
const hostPattern = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})$/

/**
 * Where this runner listens: `ASK_USER_CLUSTER_HOST` (default `127.0.0.1`)
 * and `ASK_USER_CLUSTER_PORT` (default 0, a free port). A value that names
 * no address is an error naming the variable, before anything listens.
 */
const listenAddress = Effect.suspend(() => {
  const host = process.env.ASK_USER_CLUSTER_HOST ?? "127.0.0.1"
  const port = process.env.ASK_USER_CLUSTER_PORT ?? "0"
  const invalid = (message: string) => Effect.fail(new DurableClusterError({ reason: "InvalidSetting", message }))
  if (host === "" || (isIP(host) === 0 && !hostPattern.test(host))) {
    return invalid(
      `ASK_USER_CLUSTER_HOST is ${inertJson(host)}: it must be a host name or IP address of this machine that the store's other agents can reach.`
    )
  }
  if (host === "0.0.0.0" || host === "::") {
    return invalid(
      `ASK_USER_CLUSTER_HOST is ${host}: every agent registers the address it listens on, so name one the store's other agents can reach (127.0.0.1 when they all run here).`
    )
  }
  if (!portPattern.test(port) || Number(port) > 65535) {
    return invalid(`ASK_USER_CLUSTER_PORT is ${inertJson(port)}: it must be a TCP port, 1 to 65535, or 0 for a free one.`)
  }
  return Effect.succeed({ host, port: Number(port) })
})

/** `host:port`, IPv6 in brackets. */
const shownAddress = (host: string, port: number) => isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`

/**
 * A runner of the store's cluster on TCP, or (`runner: false`) a client of
 * it. The server listens before the runner registers, so the address it
 * registers has the port it got; an address it cannot listen on (in use, not
 * this machine's) is a `DurableClusterError` naming it.
 */
const tcpEngine = (runner: boolean) =>
  Layer.unwrap(Effect.gen(function*() {
    const secret = yield* clusterSecret
    const protocol = clientProtocol(secret, byHostAndPort)
    if (!runner) return clientEngine(protocol)
    const { host, port } = yield* listenAddress
    const server = yield* NodeSocketServer.make({ host, port }).pipe(
      Effect.mapError(({ reason }) => {
        const code = (reason.cause as NodeJS.ErrnoException | undefined)?.code
        const address = shownAddress(host, port)
        const why = code === "EADDRINUSE"
          ? "the address is in use (is another agent listening on the same ASK_USER_CLUSTER_PORT? Leave it unset for a free port)"
          : code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? "it is not an address of this machine (ASK_USER_CLUSTER_HOST)"
          : `${code ?? String(reason.cause)}`
        return new DurableClusterError({
          reason: "CannotListen",
          address,
          message: `Cannot listen for the store's other agents on ${address}: ${why}.`
        })
      })
    )
    const bound = server.address._tag === "InetAddressV4" || server.address._tag === "InetAddressV6" ? server.address.port : port
    return runnerEngine(
      protocol,
      // Off loopback, TLS first: the handshake authenticates, TLS hides the traffic (decision 166).
      Layer.succeed(SocketServer.SocketServer, quietPeerErrors(guardServer(server, secret, !isLoopback(host)))),
      RunnerAddress.make(host, bound)
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
    Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | RunnersChanged,
    DurableClusterError,
    SqlClient.SqlClient | Digest.Digest
  > = transport._tag === "Sockets"
    ? socketEngine(transport.folder, runner)
    : transport._tag === "Tcp"
    ? tcpEngine(runner)
    // The configuration is given here in full; a bad one is a bug, not an input.
    // Single runners never see another.
    : Layer.merge(Layer.orDie(singleEngine(runner)), Layer.succeed(RunnersChanged, { lastAt: () => 0, onChange: () => Effect.void }))
  return ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(cluster),
    Layer.provide(Digest.layerWebCrypto)
  )
}
