/**
 * A provider that asks in a web page: an HTTP server on loopback (`effect/http`
 * on `NodeHttpServer`) serving one small page, a JSON API and a Server-Sent
 * Events stream. Each pending ask gets an id; the first valid answer posted
 * for it wins. Whoever holds the page's token answers as `web:token`, and is
 * shown only the asks that allows (those without `answerableBy`, or whose
 * patterns match it: `web:token`, `web:*`, `*`); an answer or cancel on
 * another ask gets 403 `not-authorized`. Given a claims keeper (`claims`),
 * the page claims the ask its person is answering, and shows every other
 * answerer who is answering it.
 *
 * ```ts
 * const program = Effect.gen(function*() {
 *   const web = yield* WebProvider
 *   yield* Console.error(`Answer at ${web.url}`)
 *   return yield* UserInteraction.ask(request)
 * })
 * program.pipe(Effect.provide(UserInteraction.layerWith(WebProvider.layer())))
 * ```
 *
 * @since 0.1.0
 */
import { createServer } from "node:http"
import { readInFlight, trackConnections } from "./drain.js"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type { ServeError } from "effect/http/HttpServerError"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { Answerer } from "../Answerer.js"
import { type Entry, makePendingTable, type PendingTable, type PendingView } from "./pending.js"
import { displayHost, makeHostCheck, makeTokenCheck, randomToken } from "./security.js"
import { secretRefusal } from "./secretGuard.js"
import { makeWebApp } from "./server.js"
import { makeClaimKeeper } from "./claims.js"
import type { WebClaims } from "./WebClaims.js"
import {
  describeSurface,
  interruptionReason,
  settledElsewhere,
  UserInteractionProvider
} from "../UserInteractionProvider.js"
import { ProviderClosed } from "../UserInteractionError.js"

/**
 * Options of `WebProvider.layer`: `port` 0 (the default) takes any free port;
 * `host` defaults to `127.0.0.1` (widen it, say to `0.0.0.0`, to answer from
 * another device: the token is still required, and a request with a `secret`
 * question fails `PROVIDER_FAILED` there, since the page is plain HTTP);
 * `token` defaults to 32 random bytes.
 *
 * @since 0.1.0
 */
export interface WebProviderOptions {
  readonly port?: number | undefined
  readonly host?: string | undefined
  readonly token?: string | undefined
  /**
   * Who a request to the page or its API is from, once it carried the token:
   * its answers and cancels are theirs (the receipt's `by`), and it is shown
   * only the asks whose `answerableBy` allows them; `undefined` is an
   * answerer nobody can name, shown only asks without `answerableBy`.
   * Default: the token holder, `web:token`. A server that knows its visitors
   * better (a paired device's credential, say) names them here, per request.
   *
   * @since 0.3.0
   */
  readonly answerer?: ((request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Answerer | undefined>) | undefined
  /**
   * Review before submit: a request of two or more questions ends with a
   * review of every answer, where "Submit" sends, choosing an answer goes
   * back to its question and "Cancel" cancels. Off by default.
   *
   * @since 0.3.0
   */
  readonly review?: boolean | undefined
  /**
   * Claims, kept by whatever keeps the asks (a durable inbox): the page
   * claims an ask for its answerer when it starts answering it, renews the
   * claim while it holds the ask open and releases it when it leaves; every
   * other page says who is answering and lets nobody else answer, and an
   * answer or cancel posted meanwhile gets 409 `claimed`. Without it, the
   * first valid answer wins.
   *
   * @since 0.3.0
   */
  readonly claims?: WebClaims | undefined
}

/** Who answers on the loopback page: whoever holds its token. */
const tokenHolder: Answerer = { id: "web:token" }
const byTokenHolder = () => Effect.succeed(tokenHolder)

/** Resolves an interrupted entry (`aborted` when another surface settled it, saying which). */
const settleInterrupted = (table: PendingTable, entry: Entry, cause: Cause.Cause<unknown>): void => {
  const elsewhere = settledElsewhere(cause)
  if (elsewhere === undefined) {
    table.settle(entry, interruptionReason(cause) ?? "aborted")
    return
  }
  // SPEC: a fan-out's losing members are interrupted, so the entry resolves `aborted` whatever
  // the winner's outcome; `surface` and `where` tell the page where the ask went instead.
  table.settle(entry, "aborted", undefined, {
    surface: elsewhere.surface,
    where: describeSurface(elsewhere.surface),
    settled: elsewhere.outcome
  })
}

/**
 * A pending ask as the JSON API shows it: `{ id, request, askedAt }`.
 *
 * @since 0.1.0
 */
export type WebPendingAsk = PendingView

/**
 * The running web provider: where its page is and what is pending on it.
 *
 * @since 0.1.0
 */
export class WebProvider extends Context.Service<WebProvider, {
  /** The page's address with the token, e.g. `http://127.0.0.1:4123/?token=…`. */
  readonly url: string
  /** The address the server listens on, as given (`127.0.0.1` by default). */
  readonly host: string
  /** The port it listens on (the chosen one when asked for port 0). */
  readonly port: number
  /** The token every request must carry. */
  readonly token: string
  /** The asks waiting for an answer, oldest first. */
  readonly pending: Effect.Effect<ReadonlyArray<WebPendingAsk>>
}>()("effect-user-interaction/WebProvider") {
  /**
   * Starts the server and provides the provider, scoped: closing the layer's
   * scope resolves every still-pending ask `closed` (it fails
   * `ProviderClosed`), answers the requests already sent, then sends the
   * `closing` event, ends the open event streams and closes the server.
   *
   * @since 0.1.0
   */
  static layer(options: WebProviderOptions = {}): Layer.Layer<UserInteractionProvider | WebProvider, ServeError> {
    return Layer.effectContext(Effect.gen(function*() {
      const host = options.host ?? "127.0.0.1"
      const token = options.token ?? randomToken()
      const table = makePendingTable()
      const nodeServer = createServer()
      const connections = trackConnections(nodeServer)
      const server = yield* NodeHttpServer.make(() => nodeServer, { port: options.port ?? 0, host })
      const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
      const app = yield* makeWebApp(table, {
        hostAllowed: makeHostCheck(host, port),
        tokenMatches: makeTokenCheck(token),
        answerer: options.answerer ?? byTokenHolder,
        claims: options.claims === undefined ? undefined : yield* makeClaimKeeper(table, options.claims)
      }, {
        review: options.review
      })
      yield* server.serve(app)
      // Added last, so it runs first. Nothing stays pending, every request
      // already sent is read (and answered: a late answer gets `404
      // not-pending`), and only then do the event streams get their
      // `closing` event and end; connections with no request in progress are
      // destroyed and the rest get a short grace, so the server's shutdown
      // waits for no client (decision 059).
      yield* Effect.addFinalizer(() =>
        table.close.pipe(
          Effect.andThen(readInFlight(nodeServer)),
          Effect.andThen(table.endStreams),
          Effect.andThen(connections.release)
        )
      )

      const ask: UserInteractionProvider["Service"]["ask"] = (request) => {
        // Before anything is shown: a secret typed into a page served in clear text would cross the network.
        const refused = secretRefusal(request, host)
        if (refused !== undefined) return Effect.fail(refused)
        return Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const entry = table.register(request, new Date(now))
            if (entry === undefined) return Effect.fail(new ProviderClosed())
            return restore(Deferred.await(entry.answer)).pipe(
              // Interrupted: another surface of a fan-out settled the ask, or the seam says
              // why (a caller that gave up, its timeout, the provider closing); an
              // interruption from anywhere else counts as aborted.
              Effect.onExit((exit) =>
                Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)
                  ? Effect.sync(() => settleInterrupted(table, entry, exit.cause))
                  : Effect.void
              )
            )
          })
        )
      }

      return Context.make(UserInteractionProvider, UserInteractionProvider.of({ ask, name: "web" })).pipe(
        Context.add(WebProvider, WebProvider.of({
          url: `http://${displayHost(host)}:${port}/?token=${encodeURIComponent(token)}`,
          host,
          port,
          token,
          pending: Effect.sync(table.list)
        }))
      )
    }))
  }

  /**
   * The page's address, token included.
   *
   * @since 0.1.0
   */
  static readonly url: Effect.Effect<string, never, WebProvider> = WebProvider.use((web) => Effect.succeed(web.url))
}
