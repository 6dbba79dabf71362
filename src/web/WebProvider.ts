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
 * The same provider is a remote inbox a phone can answer: over HTTPS
 * (`tls`), with paired devices instead of the token (`access`: `/pair`, a
 * device cookie, `device:<id>` answerers), answers by signed token from a
 * notification (`actions`), and behind a proxy (`publicUrl`).
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
import { createServer, type Server } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import { readInFlight, trackConnections } from "./drain.js"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { ServeError } from "effect/http/HttpServerError"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { Answerer } from "../Answerer.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { askTimeoutMillis } from "../internal/onTimeout.js"
import { type Entry, makePendingTable, type PendingTable, type PendingView } from "./pending.js"
import {
  authenticateChallenge,
  displayHost,
  isLoopback,
  makeHostCheck,
  makeTokenCheck,
  originAllowed,
  randomToken
} from "./security.js"
import { credentialOf, deviceAnswerer, deviceCookie, makeTryLimiter, untilRevoked } from "./deviceAccess.js"
import type { WebAccess } from "./WebAccess.js"
import type { WebActions } from "./WebActions.js"
import { secretRefusal } from "./secretGuard.js"
import { type AnswererOfRequest, makeWebApp } from "./server.js"
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
  /**
   * Serve HTTPS with this certificate and key (PEM): every response then
   * adds `Strict-Transport-Security`, the device cookie is `Secure`, and a
   * `secret` question may be asked off loopback. Plain HTTP sent to the port
   * gets no HTTP answer (the TLS handshake fails and the connection closes).
   *
   * @since 0.3.0
   */
  readonly tls?: { readonly cert: string | Uint8Array; readonly key: string | Uint8Array } | undefined
  /**
   * Paired devices instead of the token (a remote inbox): every path but
   * `GET /pair` and `POST /api/pair {name, code}` needs the device
   * credential cookie (`ask_user_device`), else 401 (the page at `/` then
   * shows the pairing form); a visitor answers as `device:<id>`, named as its
   * device (this replaces `answerer`). Pairing tries are limited to 10 a
   * minute per client address (429 beyond, with `Retry-After`); a device's
   * event stream asks `authenticate` again every half second and ends once
   * the device is revoked. `token` is then neither needed nor accepted.
   * Off loopback it needs `tls` (or an `https:` `publicUrl`): the layer
   * fails with `ServeError` rather than send credentials in clear text.
   *
   * @since 0.3.0
   */
  readonly access?: WebAccess | undefined
  /**
   * Answers by signed, single-use token (a notification's action button):
   * `POST /act/<token>` needs no credential; the token's answer is checked
   * against its ask as a posted answer is (400 `bad-action` when its label
   * is not an option of that ask's one question), and the receipt names its
   * surface and answerer. A forged, used or expired token gets 403
   * `invalid-token`, and nothing is answered.
   *
   * @since 0.3.0
   */
  readonly actions?: WebActions | undefined
  /**
   * The address people reach the page at, behind a reverse proxy or tunnel
   * that terminates TLS (`https://inbox.example.org/`): the provider's `url`
   * uses its origin, and the Host and Origin checks accept it. The server
   * itself must then listen on loopback (the layer fails with `ServeError`
   * for any other `host`): only the proxy reaches it, never the network in
   * clear text. An `https:` public URL counts as TLS for secrets and cookies.
   *
   * @since 0.3.0
   */
  readonly publicUrl?: string | undefined
  /**
   * When an ask was first asked and when it stops waiting, for a keeper that
   * knows better than the provider (a durable inbox asks the page again,
   * days after the agent did): the page shows each ask's age and time left.
   * Undefined, or a time left out: the provider's own (the moment the ask
   * reached it, and its request's `timeout` from then).
   *
   * @since 0.3.0
   */
  readonly askTimes?:
    | ((request: AskUserQuestionRequest) => Effect.Effect<{ readonly askedAt?: Date; readonly expiresAt?: Date } | undefined>)
    | undefined
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

/** When an ask stops waiting by its own `timeout`, counted from `askedAt`; undefined without one. */
const expiryOf = (request: AskUserQuestionRequest, askedAt: Date): Date | undefined => {
  const millis = askTimeoutMillis(request, 0)
  return millis > 0 ? new Date(askedAt.getTime() + millis) : undefined
}

/** A PEM as Node's TLS takes it. */
const pem = (value: string | Uint8Array): string | Buffer => typeof value === "string" ? value : Buffer.from(value)

/** The gate of a page guarded by its token: a Bearer header or `?token=`, compared in constant time. */
const tokenGate = (token: string, answerer: AnswererOfRequest) => {
  const matches = makeTokenCheck(token)
  return {
    challenge: authenticateChallenge,
    admit: (request: HttpServerRequest.HttpServerRequest) => {
      // `//x` is a valid request target but a relative URL with an empty host: read it as a path.
      const target = URL.parse(request.url, "http://localhost") ?? URL.parse(`http://localhost${request.url}`)
      const queryToken = target?.searchParams.get("token") ?? null
      return matches(request.headers["authorization"], queryToken)
        ? Effect.map(answerer(request), (by) => ({ by }))
        : Effect.succeed(undefined)
    }
  }
}

/** The gate of a remote inbox: a paired device's cookie, `/pair` to get one. */
const deviceGate = (access: WebAccess, secure: boolean) => {
  const limiter = makeTryLimiter()
  return {
    admit: (request: HttpServerRequest.HttpServerRequest) => {
      const credential = credentialOf(request)
      if (credential === undefined) return Effect.succeed(undefined)
      return Effect.map(access.authenticate(credential), (device) =>
        device === undefined ? undefined : { by: deviceAnswerer(device), revoked: untilRevoked(access, credential) })
    },
    pairing: { pair: access.pair, takeTry: limiter.take, cookie: (credential: string) => deviceCookie(credential, secure) }
  }
}

/**
 * `publicUrl` read, or the `ServeError` that says why it cannot be served:
 * not an http(s) URL, or a server listening beyond loopback (the proxy in
 * front is the one client meant to reach it).
 */
const parsePublicUrl = (publicUrl: string | undefined, host: string): Effect.Effect<URL | undefined, ServeError> => {
  if (publicUrl === undefined) return Effect.succeed(undefined)
  const url = URL.parse(publicUrl)
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return Effect.fail(new ServeError({ cause: new Error(`The public URL ${JSON.stringify(publicUrl)} is not an http(s) URL.`) }))
  }
  if (!isLoopback(host)) {
    return Effect.fail(
      new ServeError({
        cause: new Error(
          `With a public URL the server listens on loopback only (the proxy in front reaches it there), not on ${host}.`
        )
      })
    )
  }
  return Effect.succeed(url)
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
  /**
   * The page's address with the token, e.g. `http://127.0.0.1:4123/?token=…`;
   * `https://` with `tls`; the public URL's origin with `publicUrl`; no token
   * with `access` (`https://HOST:PORT/`).
   */
  readonly url: string
  /** The address the server listens on, as given (`127.0.0.1` by default). */
  readonly host: string
  /** The port it listens on (the chosen one when asked for port 0). */
  readonly port: number
  /** The token every request must carry (none does with `access`: a paired device's cookie replaces it). */
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
      const publicUrl = yield* parsePublicUrl(options.publicUrl, host)
      const secure = options.tls !== undefined || publicUrl?.protocol === "https:"
      if (options.access !== undefined && !secure && !isLoopback(host)) {
        // A device's credential in a cookie sent in clear text across the network is as good as public.
        return yield* Effect.fail(
          new ServeError({
            cause: new Error(`Paired devices need TLS off loopback: give tls (or an https publicUrl) to serve on ${host}.`)
          })
        )
      }
      const scheme = secure ? "https:" : "http:"
      const access = options.access
      const token = options.token ?? randomToken()
      const table = makePendingTable()
      const nodeServer = options.tls === undefined
        ? createServer()
        : createHttpsServer({ cert: pem(options.tls.cert), key: pem(options.tls.key) })
      const connections = trackConnections(nodeServer)
      const server = yield* NodeHttpServer.make(() => nodeServer as Server, { port: options.port ?? 0, host })
      const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
      const served = makeHostCheck(host, port, options.tls === undefined ? 80 : 443)
      const publicHost = publicUrl?.host
      const app = yield* makeWebApp(table, {
        hostAllowed: (hostHeader) => served(hostHeader) || (publicHost !== undefined && hostHeader?.toLowerCase() === publicHost),
        // The server's own scheme for its own address; a proxy's page posts from the public origin.
        originAllowed: (origin, hostHeader) =>
          originAllowed(origin, hostHeader, options.tls === undefined ? "http:" : "https:") ||
          (publicUrl !== undefined && origin === publicUrl.origin),
        ...(access === undefined ? tokenGate(token, options.answerer ?? byTokenHolder) : deviceGate(access, secure)),
        headers: secure ? { "strict-transport-security": "max-age=31536000" } : undefined,
        actions: options.actions,
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

      const times = options.askTimes ?? (() => Effect.succeed(undefined))
      const ask: UserInteractionProvider["Service"]["ask"] = (request) => {
        // Before anything is shown: a secret typed into a page served in clear text would cross the network.
        const refused = secretRefusal(request, host, secure)
        if (refused !== undefined) return Effect.fail(refused)
        return Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(Effect.zip(Clock.currentTimeMillis, times(request)), ([now, known]) => {
            const askedAt = known?.askedAt ?? new Date(now)
            const expiresAt = known?.expiresAt ?? expiryOf(request, askedAt)
            const entry = table.register(request, askedAt, expiresAt)
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
          url: `${publicUrl === undefined ? `${scheme}//${displayHost(host)}:${port}` : publicUrl.origin}/${
            access === undefined ? `?token=${encodeURIComponent(token)}` : ""
          }`,
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
