/**
 * The web provider's last look at its connections before the server closes.
 * Node's `server.close()` destroys every connection that is idle at that
 * moment, and a kept-alive connection whose next request is still unread in
 * the kernel's buffer counts as idle: destroying it answers that request with
 * a TCP reset. So before closing, the provider lets the event loop read what
 * clients have already sent; those requests then count as active and are
 * answered (`404 not-pending` once the table is closed).
 *
 * @internal
 */
import { Effect } from "effect"
import type { Server } from "node:http"

/** Two macrotasks: a poll phase, where libuv reads every readable socket, lies between them. */
const pollPhase = Effect.callback<void>((resume) => {
  let inner: NodeJS.Immediate | undefined
  const outer = setImmediate(() => {
    inner = setImmediate(() => resume(Effect.void))
  })
  return Effect.sync(() => {
    clearImmediate(outer)
    if (inner !== undefined) clearImmediate(inner)
  })
})

/** At most this many rounds: a client that keeps sending cannot hold the shutdown. */
const maxRounds = 50

/**
 * Waits until a whole poll phase brings no new request: everything already
 * sent has been read and parsed, and its handler started.
 */
export const readInFlight = (server: Server): Effect.Effect<void> =>
  Effect.suspend(() => {
    let requests = 0
    const count = () => void requests++
    server.on("request", count)
    const round = (n: number): Effect.Effect<void> =>
      Effect.flatMap(pollPhase, () => {
        if (requests === 0 || n >= maxRounds) return Effect.void
        requests = 0
        return round(n + 1)
      })
    return round(1).pipe(Effect.ensuring(Effect.sync(() => server.off("request", count))))
  })
