/**
 * The handshake a connection between two runners of a store's cluster
 * begins with, before effect/cluster's RPC sees a byte (decision 163): each
 * side proves it holds the cluster's secret without sending it, so a process
 * that connects with anything else (garbage, an old client, a peer with
 * another secret) is refused before it can reach a workflow, and logged.
 *
 * Challenge and response, both ways, HMAC-SHA256 over fresh nonces:
 *
 *   server → client   "AUC1" nonceS(16)
 *   client → server   nonceC(16) HMAC(secret, "client" nonceS nonceC)
 *   server → client   HMAC(secret, "server" nonceC nonceS)
 *
 * It runs on the raw `net.Socket` (paused, as the Node socket server hands
 * it over, and read with `read(n)`, so nothing after the handshake is
 * consumed); effect/cluster's socket protocol then reads the same socket.
 * Between runners off loopback it runs inside TLS (`runnerTls.ts`), which a
 * peer without the secret's key does not get through either.
 *
 * @internal
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as Net from "node:net"
import * as Tls from "node:tls"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { Socket, SocketServer } from "effect/socket"
import { clientTls, serverTls } from "./runnerTls.js"

/**
 * Why a handshake did not complete (said in the log, never the peer's
 * bytes); `probe` when the peer hung up without sending a byte, as a runner
 * checking whether a socket is live does.
 */
export class HandshakeError extends Data.TaggedError("HandshakeError")<{ readonly reason: string; readonly probe?: boolean }> {}

const magic = Buffer.from("AUC1")
const nonceLength = 16
const macLength = 32
/** A peer that has not proved itself by then is dropped: a silent connection holds nothing open. */
const handshakeMillis = 5_000

const mac = (secret: Uint8Array, label: string, first: Uint8Array, second: Uint8Array) =>
  createHmac("sha256", secret).update(label).update(first).update(second).digest()

/**
 * The first result `handlers` give for `emitter`'s events (a handler's
 * undefined: keep waiting), `now`'s before any event when it has one; fails
 * with `silent` after the handshake's time. Its listeners are removed
 * whichever comes first.
 */
const firstOf = <A>(
  emitter: NodeJS.EventEmitter,
  handlers: Record<string, () => Effect.Effect<A, HandshakeError> | undefined>,
  silent: string,
  now?: () => Effect.Effect<A, HandshakeError> | undefined
) =>
  Effect.callback<A, HandshakeError>((resume) => {
    const finish = (result: Effect.Effect<A, HandshakeError> | undefined) => {
      if (result === undefined) return
      cleanup()
      resume(result)
    }
    const listeners = Object.entries(handlers).map(([event, handle]) => [event, () => finish(handle())] as const)
    const timer = setTimeout(() => finish(Effect.fail(new HandshakeError({ reason: silent }))), handshakeMillis)
    const cleanup = () => {
      clearTimeout(timer)
      for (const [event, listener] of listeners) emitter.off(event, listener)
    }
    for (const [event, listener] of listeners) emitter.on(event, listener)
    if (now !== undefined) finish(now())
    return Effect.sync(cleanup)
  })

/** Reads exactly `length` bytes from a paused socket; fails when it ends first or stays silent. */
const readExactly = (conn: Net.Socket, length: number) => {
  const read = () => {
    const chunk: Buffer | null = conn.read(length)
    if (chunk === null) return undefined
    return chunk.length === length ? Effect.succeed(chunk) : Effect.fail(new HandshakeError({ reason: "it closed the connection" }))
  }
  const closed = () => Effect.fail(new HandshakeError({ reason: "it closed the connection", probe: conn.bytesRead === 0 }))
  // The bytes may be buffered already: read once before waiting.
  return firstOf(conn, { readable: read, end: closed, close: closed, error: closed }, "it did not answer in time", read)
}

const write = (conn: Net.Socket, bytes: Uint8Array) => Effect.sync(() => void conn.write(bytes))

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b)

/** The server's side: the peer proves the secret, then is told the server holds it too. */
const serverSide = (conn: Net.Socket, secret: Uint8Array) =>
  Effect.gen(function*() {
    const nonceS = randomBytes(nonceLength)
    yield* write(conn, Buffer.concat([magic, nonceS]))
    const reply = yield* readExactly(conn, nonceLength + macLength)
    const nonceC = reply.subarray(0, nonceLength)
    if (!equal(reply.subarray(nonceLength), mac(secret, "client", nonceS, nonceC))) {
      return yield* new HandshakeError({ reason: "it did not prove the cluster's secret" })
    }
    yield* write(conn, mac(secret, "server", nonceC, nonceS))
  })

/** The client's side, on a connected socket: answers the server's challenge and checks the server's proof. */
export const clientSide = (conn: Net.Socket, secret: Uint8Array) =>
  Effect.gen(function*() {
    const hello = yield* readExactly(conn, magic.length + nonceLength)
    if (!equal(hello.subarray(0, magic.length), magic)) {
      return yield* new HandshakeError({ reason: "it is not a runner of this cluster" })
    }
    const nonceS = hello.subarray(magic.length)
    const nonceC = randomBytes(nonceLength)
    yield* write(conn, Buffer.concat([nonceC, mac(secret, "client", nonceS, nonceC)]))
    const proof = yield* readExactly(conn, macLength)
    if (!equal(proof, mac(secret, "server", nonceC, nonceS))) {
      return yield* new HandshakeError({ reason: "it did not prove the cluster's secret" })
    }
  })

/** A refusal is logged at most once a minute, so a peer that keeps knocking cannot flood the log. */
const refusalLogEvery = 60_000

/**
 * TLS over a connection a client opened (`runnerTls.ts`): the secured socket,
 * or why not (`probe` when the client hung up without a byte).
 */
const startTls = (conn: Net.Socket, secret: Uint8Array) =>
  Effect.suspend(() => {
    const secure = new Tls.TLSSocket(conn, serverTls(secret))
    // A TLS failure after the wait (a refused peer's late alert) must not be an uncaught error; the
    // socket protocol that reads it later has its own listener.
    secure.on("error", () => {})
    const failed = () =>
      Effect.fail(new HandshakeError({ reason: "it did not complete TLS with the cluster's key", probe: conn.bytesRead === 0 }))
    return firstOf(secure, { secure: () => Effect.succeed(secure), error: failed, close: failed }, "it did not complete TLS in time").pipe(
      Effect.onError(() => Effect.sync(() => secure.destroy()))
    )
  })

/**
 * `server` with the handshake in front (after TLS when `encrypted`): a
 * connection that does not complete it is closed before effect/cluster's
 * protocol reads it, and logged.
 */
export const guardServer = (
  server: SocketServer.SocketServer["Service"],
  secret: Uint8Array,
  encrypted = false
): SocketServer.SocketServer["Service"] => {
  let lastLogged = 0
  let refusedSince = 0
  const refuse = (conn: Net.Socket, error: HandshakeError) =>
    Effect.suspend(() => {
      conn.destroy()
      if (error.probe === true) return Effect.void
      refusedSince++
      const now = Date.now()
      if (now - lastLogged < refusalLogEvery) return Effect.void
      const count = refusedSince
      lastLogged = now
      refusedSince = 0
      return Effect.logError(
        `Refused a connection to this runner's socket: ${error.reason}${count > 1 ? ` (${count} refused since the last notice)` : ""}.`
      ).pipe(Effect.annotateLogs({ module: "effect-user-interaction/durable" }))
    })
  return SocketServer.SocketServer.of({
    address: server.address,
    // The Node socket server gives each handler its `net.Socket` (`NetSocket`), which the types do not say.
    run: <R, E, _>(handler: (socket: Socket.Socket) => Effect.Effect<_, E, R>) =>
      server.run((socket) =>
        Effect.gen(function*() {
          const conn = yield* NodeSocket.NetSocket
          if (!encrypted) {
            return yield* serverSide(conn, secret).pipe(
              Effect.matchEffect({ onFailure: (error) => refuse(conn, error), onSuccess: () => handler(socket) })
            )
          }
          return yield* startTls(conn, secret).pipe(
            Effect.tap((secure) => serverSide(secure, secret)),
            Effect.matchEffect({
              onFailure: (error) => refuse(conn, error),
              onSuccess: (secure) =>
                Effect.flatMap(
                  NodeSocket.fromDuplex(Effect.acquireRelease(Effect.succeed(secure), (s) => Effect.sync(() => s.destroy()))),
                  handler
                )
            })
          )
        })
      ) as Effect.Effect<never, SocketServer.SocketServerError, R>
  })
}

/** Whether a connection's error says nothing listens at the address (or, for a Unix socket, no file is there). */
const nothingListens = (cause: unknown) => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  return code === "ECONNREFUSED" || code === "ENOENT"
}

/**
 * A connection to the runner listening at `options`, past TLS when
 * `encrypted`, and past the handshake; `refused` is run when the connection
 * is refused outright (nothing listens at the address).
 */
export const connect = (
  options: Net.NetConnectOpts,
  secret: Uint8Array,
  { encrypted = false, refused = Effect.void }: { readonly encrypted?: boolean; readonly refused?: Effect.Effect<void> } = {}
): Effect.Effect<Socket.Socket> =>
  NodeSocket.fromDuplex(
    Effect.acquireRelease(
      Effect.callback<Net.Socket, Socket.SocketError>((resume) => {
        const conn = encrypted
          ? Tls.connect({ ...(options as Net.TcpNetConnectOpts), ...clientTls(secret) })
          : Net.createConnection(options)
        conn.once(encrypted ? "secureConnect" : "connect", () => {
          conn.off("error", onError)
          resume(Effect.succeed(conn))
        })
        const onError = (cause: Error) => resume(Effect.fail(new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind: "Unknown", cause }) })))
        conn.once("error", onError)
        return Effect.sync(() => conn.destroy())
      }).pipe(
        Effect.tapError((error) =>
          error.reason._tag === "SocketOpenError" && nothingListens(error.reason.cause) ? refused : Effect.void
        ),
        Effect.tap((conn) =>
          Effect.mapError(clientSide(conn, secret), (error) =>
            new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind: "Unknown", cause: error }) })).pipe(
              // A stopped runner accepts a connection and never says a word: the release below is
              // not ours until the handshake is, and a connection left open kept the process alive.
              Effect.onError(() => Effect.sync(() => conn.destroy()))
            )
        ),
        Effect.timeoutOrElse({
          duration: handshakeMillis,
          orElse: () => Effect.fail(new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind: "Timeout", cause: new Error("timeout") }) }))
        })
      ),
      (conn) => Effect.sync(() => conn.destroy())
    )
  )
