/**
 * The web provider's last look at its connections before the server closes.
 * Node's `server.close()` destroys every connection that is idle at that
 * moment, and a kept-alive connection whose next request is still unread in
 * the kernel's buffer counts as idle: destroying it answers that request with
 * a TCP reset. So before closing, the provider lets the event loop read what
 * clients have already sent; those requests then count as active and are
 * answered (`404 not-pending` once the table is closed).
 *
 * Then no client may hold the exit: `server.close()` waits for every
 * connection, and Node leaves alone one that sent nothing or only part of its
 * headers (minutes, until its own timeouts), and one whose body is still
 * arriving. `trackConnections` destroys the first kind at once and the second
 * after a short grace.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Server } from "node:http"
import type { Server as HttpsServer } from "node:https"
import type { Socket } from "node:net"

/**
 * One quiet window: long enough for a client that is writing a burst of
 * requests (and may be descheduled midway on a loaded machine) to finish it,
 * short enough not to hold the exit noticeably.
 */
const quietMillis = 25

/** At most this many windows (about a second): a client that keeps sending cannot hold the shutdown. */
const maxRounds = 40

/**
 * One window, ended by an I/O poll: on a loaded machine the process may get
 * no CPU for the whole window, and libuv runs expired timers before it polls,
 * so a timer alone would end the window with requests that arrived during
 * it still unread. `setImmediate` runs after that poll has read them.
 */
const window = Effect.callback<void>((resume) => {
  let immediate: NodeJS.Immediate | undefined
  const timer = setTimeout(() => {
    immediate = setImmediate(() => resume(Effect.void))
  }, quietMillis)
  return Effect.sync(() => {
    clearTimeout(timer)
    if (immediate !== undefined) clearImmediate(immediate)
  })
})

/**
 * Waits until a whole window brings no new request: everything already sent
 * has been read and parsed, and its handler started. (One poll phase was not
 * enough: a burst written by a client that lost the CPU midway arrived after
 * an empty phase and met a closed server.)
 */
export const readInFlight = (server: Server | HttpsServer): Effect.Effect<void> =>
  Effect.suspend(() => {
    let requests = 0
    const count = () => void requests++
    server.on("request", count)
    const round = (n: number): Effect.Effect<void> =>
      Effect.flatMap(window, () => {
        if (requests === 0 || n >= maxRounds) return Effect.void
        requests = 0
        return round(n + 1)
      })
    return round(1).pipe(Effect.ensuring(Effect.sync(() => server.off("request", count))))
  })

/**
 * How long a request already being handled may still take once the exit has
 * begun: a body that is still arriving after this is cut off. Answers that
 * were sent in full are answered well within it.
 */
const graceMillis = 1000

/** Closes the server's connections at the end of the shutdown; see `trackConnections`. */
export interface ConnectionTracker {
  /**
   * Destroys every connection that has no request in progress (nothing sent,
   * half a header, idle between requests) and any opened from now on, and
   * destroys the rest after the grace. Run once every request already sent
   * has been read (`readInFlight`).
   */
  readonly release: Effect.Effect<void>
}

/**
 * Tracks the server's connections and how many requests each is handling.
 * On TLS a request's socket is the TLS one, which exists once the handshake
 * is done; the TCP sockets under them are kept too, so one whose handshake
 * never ends (a stalled client, plain HTTP sent to the port) is cut off with
 * the rest after the grace.
 */
export const trackConnections = (server: Server | HttpsServer): ConnectionTracker => {
  const inProgress = new Map<Socket, number>()
  const tcp = new Set<Socket>()
  const secure = "setSecureContext" in server
  let released = false
  const node = server as Server
  node.on(secure ? "secureConnection" : "connection", (socket: Socket) => {
    // Opened after the exit began: a clean close, as decision 056 allows.
    if (released) return void socket.destroy()
    inProgress.set(socket, 0)
    socket.once("close", () => inProgress.delete(socket))
  })
  if (secure) {
    node.on("connection", (socket: Socket) => {
      if (released) return void socket.destroy()
      tcp.add(socket)
      socket.once("close", () => tcp.delete(socket))
    })
  }
  node.on("request", (request, response) => {
    const socket = request.socket
    if (!inProgress.has(socket)) return
    inProgress.set(socket, inProgress.get(socket)! + 1)
    response.once("close", () => {
      const count = inProgress.get(socket)
      if (count !== undefined) inProgress.set(socket, count - 1)
    })
  })
  const release = Effect.sync(() => {
    if (released) return
    released = true
    for (const [socket, count] of inProgress) if (count === 0) socket.destroy()
    // Unref'd: the connections keep the process alive until it fires, nothing else needs to.
    setTimeout(() => {
      for (const socket of inProgress.keys()) socket.destroy()
      for (const socket of tcp) socket.destroy()
    }, graceMillis).unref()
  })
  return { release }
}
