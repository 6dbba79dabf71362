/**
 * The web surface's `SecretPage`: a one-time page per secret question,
 * served on loopback (or, on another address, only over TLS), where the
 * human types the secret that an MCP or ACP client must never see. The
 * provider sends the client a URL-mode elicitation with the page's address;
 * the value goes from the page's form to the asker.
 *
 * ```ts
 * const secretPage = yield* WebSecretPage.make()
 * const layer = UserInteraction.layerWith(McpProvider.layer(server, { secretPage }))
 * ```
 *
 * Each page's address is `/secret/<token>`, the token 256 random bits, kept
 * only as its SHA-256 digest. The page is a form with a password field
 * (`autocomplete="off"`) and no script; it takes one POST (the secret, or
 * Skip), after which its address answers 410 Gone, as it does once its ask
 * has ended or was interrupted. Every request passes the web surface's gate:
 * the Host lines' form (400), `Host` naming this server (403), a POST's
 * `Origin` being this server (403), the body's type (415, urlencoded form
 * only) and size (413, 64 KiB). Responses carry the web page's security
 * headers, a policy allowing no script, and `Connection: close`; over TLS,
 * `Strict-Transport-Security` too.
 *
 * The server starts with the first page opened, and stops when the scope of
 * `make` (or the layer) closes; pages still open then fail `ProviderClosed`.
 *
 * @since 0.3.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as ByteSize from "effect/ByteSize"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as UrlParams from "effect/http/UrlParams"
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import { createServer as createSecureServer } from "node:https"
import type { AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { SecretPage } from "../SecretPage.js"
import { ProviderClosed, ProviderFailed } from "../UserInteractionError.js"
import { trackConnections } from "./drain.js"
import { closedPage, formPage, notFoundPage, receivedPage, type SecretPageHtml } from "./secretPageHtml.js"
import {
  displayHost,
  hostLinesProblem,
  isLoopback,
  makeHostCheck,
  maxBodyBytes,
  originAllowed,
  randomToken
} from "./security.js"
import { isTooLarge, securityHeaders } from "./server.js"

/**
 * Options of `WebSecretPage.make` and `.layer`: `host` defaults to
 * `127.0.0.1`; any address that is not loopback needs `tls` (a certificate
 * and its key, PEM), since a secret must not cross a network in clear.
 * `port` 0 (the default) takes any free port.
 *
 * @since 0.3.0
 */
export interface WebSecretPageOptions {
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer } | undefined
}

/** One open page: the question it takes the answer to, and where the answer goes. */
interface OpenPage {
  readonly question: AskUserQuestionItem
  readonly request: AskUserQuestionRequest
  readonly value: Deferred.Deferred<Redacted.Redacted<string>, ProviderClosed>
}

/** How many closed pages are remembered (to answer 410, not 404); older ones are forgotten. */
const rememberedClosed = 10_000

const digest = (token: string): string => createHash("sha256").update(token).digest("base64url")

/** A page's path: `/secret/` and a 32-byte token in base64url. */
const pagePath = /^\/secret\/([A-Za-z0-9_-]{43})$/

const isUrlEncodedForm = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded"

const htmlResponse = (status: number, page: SecretPageHtml) =>
  HttpServerResponse.setHeader(
    HttpServerResponse.text(page.html, { status, contentType: "text/html; charset=utf-8" }),
    "content-security-policy",
    page.contentSecurityPolicy
  )

const plain = (status: number, text: string) => HttpServerResponse.text(text, { status })

/** The pages a server holds, and the ones it held. */
const makePageTable = () => {
  /** Open pages by their token's digest. */
  const open = new Map<string, OpenPage>()
  /** Digests of pages that were used or ended, oldest first. */
  const closed = new Set<string>()
  const close = (key: string): void => {
    if (!open.delete(key)) return
    closed.add(key)
    if (closed.size > rememberedClosed) closed.delete(closed.values().next().value!)
  }
  return { open, closed, close }
}

type PageTable = ReturnType<typeof makePageTable>

/** Reads the posted form: its fields, or the response refusing it (413 over the limit, 400 unreadable). */
const readForm = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  return yield* request.urlParamsBody.pipe(
    Effect.map((fields) => Result.succeed(fields)),
    Effect.catch((error) =>
      Effect.succeed(Result.fail(isTooLarge(error) ? plain(413, "Too large.") : plain(400, "The form could not be read.")))
    ),
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))
  )
})

/** The post that answers a page: the secret, or Skip; an empty secret without Skip is refused, the page stays open. */
const answer = (table: PageTable, key: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!isUrlEncodedForm(request.headers["content-type"])) return plain(415, "Send the page's form.")
    if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return plain(413, "Too large.")
    const fields = yield* readForm
    if (Result.isFailure(fields)) return fields.failure
    // Another post may have answered the page, or its ask ended, while this body was arriving.
    const page = table.open.get(key)
    if (page === undefined) return htmlResponse(410, closedPage)
    const skipped = Option.isSome(UrlParams.getFirst(fields.success, "skip"))
    const secret = skipped ? "" : Option.getOrElse(UrlParams.getFirst(fields.success, "secret"), () => "")
    if (!skipped && secret === "") {
      return htmlResponse(422, formPage(page.question, page.request, "Type the secret, or choose Skip."))
    }
    table.close(key)
    Deferred.doneUnsafe(page.value, Effect.succeed(Redacted.make(secret)))
    return htmlResponse(200, receivedPage(skipped))
  })

/** The server's one handler: the gate, then a page by its token. */
const makeApp = (table: PageTable, hostAllowed: (host: string | undefined) => boolean, tls: boolean) => {
  const headers = tls
    ? { ...securityHeaders, "strict-transport-security": "max-age=31536000", connection: "close" }
    : { ...securityHeaders, connection: "close" }
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const source = request.source as IncomingMessage
    const malformed = hostLinesProblem(source.rawHeaders, source.httpVersion)
    if (malformed !== undefined) return plain(400, malformed)
    const host = request.headers["host"]
    if (!hostAllowed(host)) return plain(403, "Unknown Host.")
    if (request.method === "POST" && !originAllowed(request.headers["origin"], host, tls ? "https:" : "http:")) {
      return plain(403, "Cross-origin request.")
    }
    const path = URL.parse(request.url, "http://localhost")?.pathname ?? ""
    const token = pagePath.exec(path)?.[1]
    if (token === undefined) return htmlResponse(404, notFoundPage)
    const key = digest(token)
    const page = table.open.get(key)
    if (page === undefined) return htmlResponse(table.closed.has(key) ? 410 : 404, table.closed.has(key) ? closedPage : notFoundPage)
    if (request.method === "GET" || request.method === "HEAD") return htmlResponse(200, formPage(page.question, page.request))
    if (request.method === "POST") return yield* answer(table, key)
    return HttpServerResponse.setHeader(plain(405, "Method not allowed."), "allow", "GET, HEAD, POST")
  }).pipe(
    // The page's address is its key: no referrer ever carries it off (a form post to the page itself
    // still sends its true Origin under `same-origin`, where `no-referrer` would send `null`).
    Effect.map((response) => HttpServerResponse.setHeaders(response, { ...headers, "referrer-policy": "same-origin" }))
  )
}

/**
 * Starts the server in `scope`: its address (scheme, host and port) once it
 * listens. Connections still open when the scope closes are ended.
 */
const serve = (table: PageTable, options: WebSecretPageOptions, host: string, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const tls = options.tls
    const nodeServer = tls === undefined ? createServer() : createSecureServer({ cert: tls.cert, key: tls.key })
    const server = yield* NodeHttpServer.make(() => nodeServer, { port: options.port ?? 0, host })
    const connections = trackConnections(nodeServer)
    // Runs before the server's own close, which waits for every connection.
    yield* Effect.addFinalizer(() => connections.release)
    const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
    yield* server.serve(makeApp(table, makeHostCheck(host, port), tls !== undefined))
    return `${tls === undefined ? "http" : "https"}://${displayHost(host)}:${port}`
  }).pipe(
    Scope.provide(scope),
    Effect.mapError((error) => new ProviderFailed({ message: `The secret page could not start: ${error.message}`, cause: error }))
  )

/**
 * A `SecretPage` served by this process for the lifetime of the current
 * scope. Fails `ProviderFailed` at once for a `host` that is not loopback
 * without `tls`; a server that will not start (a port in use) fails the
 * `open` that tried to start it, and the next `open` tries again.
 *
 * @since 0.3.0
 */
const make = (options: WebSecretPageOptions = {}): Effect.Effect<SecretPage["Service"], ProviderFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    if (!isLoopback(host) && options.tls === undefined) {
      return yield* new ProviderFailed({
        message: `A secret page is served on loopback or over TLS only: ${host} is not a loopback address, and no certificate was given.`
      })
    }
    const scope = yield* Effect.scope
    const table = makePageTable()
    let ended = false
    // Added first, so it runs last: once the server is closed, pages still open fail.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        ended = true
        for (const [key, page] of Array.from(table.open)) {
          table.close(key)
          Deferred.doneUnsafe(page.value, Effect.fail(new ProviderClosed({ message: "The secret page closed before it was answered." })))
        }
      })
    )
    const starting = yield* Semaphore.make(1)
    let origin: string | undefined
    const started = starting.withPermits(1)(Effect.suspend(() =>
      origin !== undefined
        ? Effect.succeed(origin)
        // Not cut short halfway: a server listening in `scope` that no page knows of would leak its port.
        : Effect.uninterruptible(Effect.map(serve(table, options, host, scope), (listening) => (origin = listening)))
    ))

    const open: SecretPage["Service"]["open"] = (question, request) =>
      Effect.gen(function*() {
        if (ended) return yield* new ProviderFailed({ message: "The secret page's server has shut down." })
        const base = yield* started
        const token = randomToken()
        const key = digest(token)
        const value = yield* Deferred.make<Redacted.Redacted<string>, ProviderClosed>()
        yield* Effect.acquireRelease(
          Effect.sync(() => table.open.set(key, { question, request, value })),
          () => Effect.sync(() => table.close(key))
        )
        return { url: `${base}/secret/${token}`, value: Deferred.await(value) }
      })

    return SecretPage.of({ open })
  })

/**
 * `make` as a layer of the `SecretPage` service.
 *
 * @since 0.3.0
 */
const layer = (options: WebSecretPageOptions = {}): Layer.Layer<SecretPage, ProviderFailed> =>
  Layer.effect(SecretPage, make(options))

/**
 * The web surface's secret pages.
 *
 * @since 0.3.0
 */
export const WebSecretPage = {
  make,
  layer
} as const
