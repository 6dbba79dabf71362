/**
 * The web provider's HTTP application: the page, the JSON API and the event
 * stream as `effect/http` routes, behind a gate that checks, in this order,
 * the Host lines' form (400), `Host` and `Origin` (403), the token (401), the
 * body's type (415) and size (413); a known path asked with another method
 * gets 405. Past the gate, each request is from an answerer (the token
 * holder, `web:token`, unless the provider was told otherwise): it is shown
 * only the asks it may settle, and its answer or cancel on any other ask is
 * refused with 403 `not-authorized`, the ask staying pending.
 *
 * @internal
 */
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as FindMyWay from "effect/http/FindMyWay"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Sse from "effect/encoding/Sse"
import { type Answerer, isAnswerableBy } from "../Answerer.js"
import { checkAnswer, checkAnswerer } from "../AskValidation.js"
import type { ClaimKeeper, ClaimOutcome } from "./claims.js"
import { AskCancelled } from "../UserInteractionError.js"
import { markAnswerer, type ProviderAnswer } from "../UserInteractionProvider.js"
import { webPage, type WebPageOptions } from "./page.js"
import { type Entry, type PendingTable, type Shows, wireClaim, type WebEvent } from "./pending.js"
import type { IncomingMessage } from "node:http"
import { authenticateChallenge, hostLinesProblem, maxBodyBytes, originAllowed } from "./security.js"

/** What the gate needs to know about the server it guards. */
export interface GateOptions {
  readonly hostAllowed: (host: string | undefined) => boolean
  readonly tokenMatches: (authorization: string | undefined, queryToken: string | null) => boolean
}

/** Who a request that passed the gate is from; `undefined` when nobody can say. */
export type AnswererOfRequest = (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Answerer | undefined>

/** The gate, who the requests it lets in are from, and the claims when the provider keeps them. */
export interface WebAppOptions extends GateOptions {
  readonly answerer: AnswererOfRequest
  readonly claims?: ClaimKeeper | undefined
}

/** Headers every response of the web surface carries. */
export const securityHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

const json = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status })

const notPending = json(404, { error: "not-pending" })

const noClaims = json(404, { error: "no-claims", message: "This page keeps no claims: the first valid answer wins." })

/**
 * The response to a claim or a release (`held`: what 200 carries), or, before
 * an answer or a cancel, the refusal (undefined: go on).
 */
const claimResponse = (outcome: ClaimOutcome, held: (outcome: ClaimOutcome) => object | undefined) => {
  switch (outcome._tag) {
    case "Held": {
      const body = held(outcome)
      return body === undefined ? undefined : json(200, body)
    }
    case "Claimed":
      return json(409, {
        error: "claimed",
        message: outcome.message,
        ...(outcome.claim === undefined ? {} : { claim: wireClaim(outcome.claim) })
      })
    case "NotAuthorized":
      return json(403, { error: "not-authorized", message: outcome.message })
    case "NotPending":
      return notPending
  }
}

const claimHeld = (outcome: ClaimOutcome) => ({ ok: true, ...(outcome._tag === "Held" && outcome.claim !== undefined ? { claim: wireClaim(outcome.claim) } : {}) })

/** The asks `by` is shown: those it may settle. */
const showsTo = (by: Answerer | undefined): Shows => (request) => isAnswerableBy(request.answerableBy, by)

/** 403 `not-authorized` when `by` may not settle `entry`'s ask; undefined when it may. */
const refusal = (entry: Entry, by: Answerer | undefined) => {
  const allowed = checkAnswerer(entry.request, by)
  return Result.isFailure(allowed) ? json(403, { error: "not-authorized", message: allowed.failure.message }) : undefined
}

const sse = (event: WebEvent) =>
  Sse.encoder.write({ _tag: "Event", event: event.event, id: undefined, data: JSON.stringify(event.data) })

/** Whether the request carries a body (declared length, or chunked). */
const hasBody = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0

/**
 * Whether a `Content-Type` is JSON (`application/json`, parameters such as
 * `charset` allowed). Defence in depth: a cross-site form can only send
 * `text/plain`, urlencoded or multipart bodies without a preflight.
 */
const isJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/** True when a body read failed because the body was over the limit. */
export const isTooLarge = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RequestParseError" &&
  error.reason.reason === "BodyTooLarge"

/** 413, naming the limit: an answer that big is refused whole, so the sender learns how big one may be. */
const tooLarge = () => json(413, { error: "too-large", message: `The body is over the limit of 64 KiB (${maxBodyBytes} bytes).` })

/** Reads the JSON body: 413 when over the limit, 422 `bad-response` when it is not JSON. */
const readJson = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  return yield* request.json.pipe(
    Effect.map((body) => Result.succeed(body)),
    Effect.catch((error) =>
      Effect.succeed(Result.fail(
        isTooLarge(error)
          ? tooLarge()
          : json(422, { error: "bad-response", message: "The body is not JSON." })
      ))
    ),
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))
  )
})

/** The routes, as one `effect/http` handler, and the `Allow` value of each path they take. */
const makeRoutes = (
  table: PendingTable,
  answererOf: AnswererOfRequest,
  claims: ClaimKeeper | undefined,
  pageOptions: WebPageOptions
) =>
  Effect.gen(function*() {
    const answerer = Effect.flatMap(HttpServerRequest.HttpServerRequest, answererOf)
    const router = yield* HttpRouter.make
    // Each route's method is also kept in a second router with the same
    // configuration, so a path form the routes take (a trailing slash, doubled
    // slashes, another letter case, a query) is known to the 405 rule as well.
    const methods = FindMyWay.make<string>(yield* HttpRouter.RouterConfig)
    const add = <E, R>(
      method: "GET" | "POST",
      path: FindMyWay.PathInput,
      handler: () => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) => {
      methods.on(method, path, method)
      return router.add(method, path, handler)
    }
    // Read now, so a package built without its page fails at start-up, not on the first visit.
    const page = yield* Effect.sync(() => webPage(pageOptions))

    yield* add("GET", "/", () =>
      Effect.succeed(HttpServerResponse.html(page.html).pipe(
        HttpServerResponse.setHeader("content-security-policy", page.contentSecurityPolicy)
      )))

    // With claims, the page learns how often to renew one, and who it is (to tell its own claims from others').
    yield* add("GET", "/api/questions", () =>
      Effect.map(answerer, (by) =>
        json(200, {
          pending: table.list(showsTo(by)),
          ...(claims === undefined ? {} : { claims: { ttlMillis: claims.ttlMillis, ...(by === undefined ? {} : { you: by }) } })
        })))

    yield* add("GET", "/api/events", () =>
      Effect.map(answerer, (by) =>
        HttpServerResponse.stream(
          // The opening comment makes the response start at once, so a client
          // knows it is connected even when nothing is pending.
          Stream.concat(Stream.succeed(": connected\n\n"), Stream.map(table.events(showsTo(by)), sse)).pipe(Stream.encodeText),
        // `connection: close`: when the provider closes and ends the stream, the
        // socket goes too, instead of idling until the keep-alive timeout
        // holds up the server's shutdown.
          { contentType: "text/event-stream", headers: { "x-accel-buffering": "no", connection: "close" } }
        )))

    /** With claims, an answer or cancel takes the claim first: 409 while someone else holds it. */
    const admitted = (entry: Entry, by: Answerer | undefined) =>
      claims === undefined ? Effect.succeed(undefined) : Effect.map(claims.admit(entry, by), (outcome) => claimResponse(outcome, () => undefined))

    /** `POST …/claim` and `…/release`: 404 without claims or once settled, 403 for whom the ask is not meant. */
    const claimRoute = (act: (keeper: ClaimKeeper) => (entry: Entry, by: Answerer | undefined) => Effect.Effect<ClaimOutcome>) => () =>
      Effect.gen(function*() {
        if (claims === undefined) return noClaims
        const { id } = yield* HttpRouter.params
        const entry = id === undefined ? undefined : table.lookup(id)
        if (entry === undefined) return notPending
        const by = yield* answerer
        const refused = refusal(entry, by)
        if (refused !== undefined) return refused
        return claimResponse(yield* act(claims)(entry, by), claimHeld)!
      })

    yield* add("POST", "/api/questions/:id/claim", claimRoute((keeper) => keeper.claim))
    yield* add("POST", "/api/questions/:id/release", claimRoute((keeper) => keeper.release))

    yield* add("POST", "/api/questions/:id/answer", () =>
      Effect.gen(function*() {
        const { id } = yield* HttpRouter.params
        const before = id === undefined ? undefined : table.lookup(id)
        if (before === undefined) return notPending
        const by = yield* answerer
        const refused = refusal(before, by) ?? (yield* admitted(before, by))
        if (refused !== undefined) return refused
        const body = yield* readJson
        if (Result.isFailure(body)) return body.failure
        // Another answer may have won while this body was arriving.
        const entry = table.lookup(before.view.id)
        if (entry === undefined) return notPending
        const checked = checkAnswer(entry.request, body.success)
        if (Result.isFailure(checked)) return json(422, { error: "bad-response", message: checked.failure.message })
        const answer: ProviderAnswer = by === undefined ? checked.success : { ...checked.success, by }
        return table.settle(entry, "answered", Exit.succeed(answer)) ? json(200, { ok: true }) : notPending
      }))

    yield* add("POST", "/api/questions/:id/cancel", () =>
      Effect.gen(function*() {
        const { id } = yield* HttpRouter.params
        const entry = id === undefined ? undefined : table.lookup(id)
        if (entry === undefined) return notPending
        const by = yield* answerer
        const refused = refusal(entry, by) ?? (yield* admitted(entry, by))
        if (refused !== undefined) return refused
        const cancelled = markAnswerer(new AskCancelled({ message: "The request was cancelled in the web page." }), by)
        return table.settle(entry, "cancelled", Exit.fail(cancelled)) ? json(200, { ok: true }) : notPending
      }))

    const allowFor = (url: string): string | undefined => {
      const allowed = ["GET", "POST"].filter((method) => methods.find(method, url) !== undefined)
      // HEAD is answered wherever GET is (the router falls back to GET).
      return allowed.length === 0 ? undefined : allowed.flatMap((m) => m === "GET" ? ["GET", "HEAD"] : [m]).join(", ")
    }
    return { handler: router.asHttpEffect(), allowFor }
  })

/**
 * The answer when no route took the request: 405 with `Allow` for a path the
 * routes know asked with another method (RFC 9110 §15.5.6: it is not "not
 * found"), else a JSON 404 (also a path the router could not decode, such as
 * a bad percent escape in an id).
 */
const unrouted = (allow: string | undefined, method: string) =>
  allow === undefined || allow.split(", ").includes(method)
    ? json(404, { error: "not-found" })
    : HttpServerResponse.setHeader(json(405, { error: "method-not-allowed" }), "allow", allow)

/**
 * The whole application: the gate, then the routes; every response carries
 * the security headers, and an unknown path is a JSON 404. `pageOptions`
 * change what the page does (its review before submit).
 */
export const makeWebApp = (table: PendingTable, options: WebAppOptions, pageOptions: WebPageOptions = {}) =>
  Effect.map(makeRoutes(table, options.answerer, options.claims, pageOptions), (routes) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const headers = request.headers
      const source = request.source as IncomingMessage
      const malformed = hostLinesProblem(source.rawHeaders, source.httpVersion)
      if (malformed !== undefined) return json(400, { error: "bad-request", message: malformed })
      const host = headers["host"]
      if (!options.hostAllowed(host)) return json(403, { error: "forbidden", message: "Unknown Host." })
      if (request.method !== "GET" && request.method !== "HEAD" && !originAllowed(headers["origin"], host)) {
        return json(403, { error: "forbidden", message: "Cross-origin request." })
      }
      // `//x` is a valid request target but a relative URL with an empty host: read it as a path.
      const target = URL.parse(request.url, "http://localhost") ?? URL.parse(`http://localhost${request.url}`)
      const queryToken = target?.searchParams.get("token") ?? null
      if (!options.tokenMatches(headers["authorization"], queryToken)) {
        return HttpServerResponse.setHeader(json(401, { error: "unauthorized" }), "www-authenticate", authenticateChallenge)
      }
      if (hasBody(headers) && !isJson(headers["content-type"])) {
        return json(415, { error: "unsupported-media-type", message: "Send the body as application/json." })
      }
      // A declared length over the limit is refused before anything is read.
      const length = Number(headers["content-length"] ?? 0)
      if (length > maxBodyBytes) return tooLarge()
      return yield* routes.handler.pipe(
        Effect.catch((error) =>
          Effect.succeed(
            HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"
              ? unrouted(routes.allowFor(request.url), request.method)
              : json(500, { error: "internal" })
          )
        )
      )
    }).pipe(
      Effect.map((response) =>
        HttpServerResponse.setHeaders(
          response,
          // While the provider shuts down, a kept-alive socket would hold the
          // server's close until its idle timeout: end it with this response.
          table.isClosed() ? { ...securityHeaders, connection: "close" } : securityHeaders
        )
      )
    ))
