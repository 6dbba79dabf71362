/**
 * The web provider's HTTP application: the page, the JSON API and the event
 * stream as `effect/http` routes, behind a gate that checks, in this order,
 * the Host lines' form (400), `Host` and `Origin` (403), the credential (401:
 * the token, or on a remote inbox a paired device's cookie), the body's type
 * (415) and size (413); a known path asked with another method gets 405.
 * Past the gate, each request is from an answerer (the token holder,
 * `web:token`, unless the provider was told otherwise; a device,
 * `device:<id>`): it is shown only the asks it may settle, and its answer or
 * cancel on any other ask is refused with 403 `not-authorized`, the ask
 * staying pending. A remote inbox also serves, without a credential, the
 * pairing page (`GET /pair`, `POST /api/pair`) and, given actions, answers by
 * signed token (`POST /act/<token>`).
 *
 * @internal
 */
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
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
import { markAnswerer, markSurface, type ProviderAnswer } from "../UserInteractionProvider.js"
import { clientAddress } from "./deviceAccess.js"
import type { WebAccess } from "./WebAccess.js"
import type { WebActions } from "./WebActions.js"
import { webPage, type WebPageOptions } from "./page.js"
import { type Entry, type PendingTable, type Shows, wireClaim, type WebEvent } from "./pending.js"
import type { IncomingMessage } from "node:http"
import { hostLinesProblem, maxBodyBytes } from "./security.js"

/**
 * Who a request the gate let in is from, and, for a paired device, the wait
 * that ends its event stream once it is revoked.
 */
export interface Admission {
  readonly by: Answerer | undefined
  readonly revoked?: Effect.Effect<void> | undefined
}

/** What the gate needs to know about the server it guards. */
export interface GateOptions {
  readonly hostAllowed: (host: string | undefined) => boolean
  /** Whether a POST's `Origin` is this server as its `Host` header names it (or its public URL). */
  readonly originAllowed: (origin: string | undefined, host: string | undefined) => boolean
  /** Who the request is from; undefined for a request that proves nothing (401). */
  readonly admit: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Admission | undefined>
  /** The 401's `WWW-Authenticate` challenge (the token's; none for a device cookie). */
  readonly challenge?: string | undefined
  /** Headers every response adds to `securityHeaders` (HSTS, on TLS). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** Who a request that passed the token is from; `undefined` when nobody can say. */
export type AnswererOfRequest = (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Answerer | undefined>

/** Pairing on `/pair` (a remote inbox): the keeper's hook, the tries per address, the cookie to set. */
export interface PairingOptions {
  readonly pair: WebAccess["pair"]
  readonly takeTry: (address: string) => Effect.Effect<number | undefined>
  readonly cookie: (credential: string) => string
}

/** The gate, the claims when the provider keeps them, pairing, and answers by token. */
export interface WebAppOptions extends GateOptions {
  readonly claims?: ClaimKeeper | undefined
  readonly pairing?: PairingOptions | undefined
  readonly actions?: WebActions | undefined
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

/** The body `POST /api/pair` takes (the keeper judges the name and the code). */
const isPairBody = Schema.is(Schema.Struct({ name: Schema.String, code: Schema.String }))

/**
 * `POST /api/pair {name, code}`: 429 past the tries an address may make, 403
 * for a code the keeper refuses (wrong, expired, used or void alike), 422 for
 * a bad name or body; success sets the device's cookie.
 */
const pairRoute = (pairing: PairingOptions) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const wait = yield* pairing.takeTry(clientAddress(request))
    if (wait !== undefined) {
      return HttpServerResponse.setHeader(
        json(429, { error: "too-many-tries", message: "Too many pairing tries from this address: wait a minute." }),
        "retry-after",
        String(wait)
      )
    }
    const body = yield* readJson
    if (Result.isFailure(body)) return body.failure
    if (!isPairBody(body.success)) return json(422, { error: "bad-request", message: "Send {\"name\", \"code\"} as strings." })
    const { code, name } = body.success
    return yield* pairing.pair(code, name).pipe(
      Effect.map(({ credential, device }) =>
        HttpServerResponse.setHeader(json(200, { device: { id: device.id, name: device.name } }), "set-cookie", pairing.cookie(credential))
      ),
      Effect.catchTag("PairingRefused", (refused) =>
        Effect.succeed(
          refused.reason === "name"
            ? json(422, { error: "bad-name", message: refused.message })
            : json(403, { error: "pairing-refused", message: refused.message })
        ))
    )
  })

/** The admission the gate gave each request, by its Node request (the router hands routes a copy of the request). */
type Admissions = WeakMap<object, Admission>

/** The routes, as one `effect/http` handler, and the `Allow` value of each path they take. */
const makeRoutes = (
  table: PendingTable,
  options: WebAppOptions,
  admissions: Admissions,
  pageOptions: WebPageOptions
) =>
  Effect.gen(function*() {
    const { claims, pairing, actions } = options
    const admission = Effect.map(HttpServerRequest.HttpServerRequest, (request) => admissions.get(request.source))
    const answerer = Effect.map(admission, (admitted) => admitted?.by)
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
    const pageResponse = (status: number) =>
      HttpServerResponse.html(page.html).pipe(
        HttpServerResponse.setStatus(status),
        HttpServerResponse.setHeader("content-security-policy", page.contentSecurityPolicy)
      )

    yield* add("GET", "/", () => Effect.succeed(pageResponse(200)))

    // With claims, the page learns how often to renew one, and who it is (to tell its own claims from others').
    yield* add("GET", "/api/questions", () =>
      Effect.map(answerer, (by) =>
        json(200, {
          pending: table.list(showsTo(by)),
          ...(claims === undefined ? {} : { claims: { ttlMillis: claims.ttlMillis, ...(by === undefined ? {} : { you: by }) } })
        })))

    yield* add("GET", "/api/events", () =>
      Effect.map(admission, (admitted) => {
        // The opening comment makes the response start at once, so a client
        // knows it is connected even when nothing is pending.
        const events = Stream.concat(Stream.succeed(": connected\n\n"), Stream.map(table.events(showsTo(admitted?.by)), sse))
        // A device revoked meanwhile: its stream ends (SPEC: within a second), and its reconnect gets 401.
        const revoked = admitted?.revoked
        return HttpServerResponse.stream(
          (revoked === undefined ? events : Stream.interruptWhen(events, revoked)).pipe(Stream.encodeText),
        // `connection: close`: when the provider closes and ends the stream, the
        // socket goes too, instead of idling until the keep-alive timeout
        // holds up the server's shutdown.
          { contentType: "text/event-stream", headers: { "x-accel-buffering": "no", connection: "close" } }
        )
      }))

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

    if (pairing !== undefined) {
      // The same page: its script shows the pairing form on /pair, and wherever the API says 401.
      yield* add("GET", "/pair", () => Effect.succeed(pageResponse(200)))
      yield* add("POST", "/api/pair", () => pairRoute(pairing))
    }

    // The token is the credential: no cookie. It answers the ask's one question with the
    // token's label, checked as a posted answer is, and the receipt names its surface.
    if (actions !== undefined) {
      yield* add("POST", "/act/:token", () =>
        Effect.gen(function*() {
          const { token } = yield* HttpRouter.params
          const redeemed = token === undefined ? undefined : yield* actions.redeem(token)
          if (redeemed === undefined) return json(403, { error: "invalid-token", message: "This action is forged, used or expired." })
          const entry = table.entries().find((pendingEntry) => pendingEntry.request.id === redeemed.askId)
          if (entry === undefined) return notPending
          const refused = refusal(entry, redeemed.by) ?? (yield* admitted(entry, redeemed.by))
          if (refused !== undefined) return refused
          const question = entry.request.questions[0]
          const checked = entry.request.questions.length === 1 && question !== undefined
            ? checkAnswer(entry.request, { answers: [{ id: question.id, selected: [redeemed.label] }] })
            : undefined
          if (checked === undefined || Result.isFailure(checked)) {
            return json(400, { error: "bad-action", message: "The action's answer is not an option of this ask." })
          }
          const answer = markSurface<ProviderAnswer>({ ...checked.success, by: redeemed.by }, redeemed.surface)
          return table.settle(entry, "answered", Exit.succeed(answer)) ? json(200, { ok: true }) : notPending
        }))
    }

    const allowFor = (url: string): string | undefined => {
      const allowed = ["GET", "POST"].filter((method) => methods.find(method, url) !== undefined)
      // HEAD is answered wherever GET is (the router falls back to GET).
      return allowed.length === 0 ? undefined : allowed.flatMap((m) => m === "GET" ? ["GET", "HEAD"] : [m]).join(", ")
    }
    return { handler: router.asHttpEffect(), allowFor, pageResponse }
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

/** Whether a request is an answer by token (`POST /act/<token>`), on a provider that takes them. */
const isAction = (options: WebAppOptions, method: string, path: string): boolean =>
  options.actions !== undefined && method === "POST" && /^\/act\/[^/]+$/.test(path)

/**
 * The paths a remote inbox serves to a client that has not paired: the
 * pairing page and its POST, and an action's token (itself the credential).
 * Compared with the target as sent: a spelling the router would also take
 * (`/PAIR`, `/pair/`) is not public, and gets 401.
 */
const isPublic = (options: WebAppOptions, method: string, path: string): boolean =>
  (options.pairing !== undefined &&
    (((method === "GET" || method === "HEAD") && path === "/pair") || (method === "POST" && path === "/api/pair"))) ||
  isAction(options, method, path)

/**
 * The whole application: the gate, then the routes; every response carries
 * the security headers, and an unknown path is a JSON 404. `pageOptions`
 * change what the page does (its review before submit).
 */
export const makeWebApp = (table: PendingTable, options: WebAppOptions, pageOptions: WebPageOptions = {}) => {
  const admissions: Admissions = new WeakMap()
  const headersOfAll = { ...securityHeaders, ...options.headers }
  return Effect.map(makeRoutes(table, options, admissions, pageOptions), (routes) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const headers = request.headers
      const source = request.source as IncomingMessage
      const malformed = hostLinesProblem(source.rawHeaders, source.httpVersion)
      if (malformed !== undefined) return json(400, { error: "bad-request", message: malformed })
      const host = headers["host"]
      if (!options.hostAllowed(host)) return json(403, { error: "forbidden", message: "Unknown Host." })
      const path = request.url.split("?")[0]!
      // An action's token is its own credential, with no cookie for another site to ride on: it may
      // come from anywhere (ntfy's web app presses its buttons from its own origin).
      if (
        request.method !== "GET" && request.method !== "HEAD" && !isAction(options, request.method, path) &&
        !options.originAllowed(headers["origin"], host)
      ) {
        return json(403, { error: "forbidden", message: "Cross-origin request." })
      }
      if (!isPublic(options, request.method, path)) {
        const admitted = yield* options.admit(request)
        if (admitted === undefined) {
          // A remote inbox's page itself, unpaired: its script shows the pairing form.
          if (options.pairing !== undefined && request.method === "GET" && path === "/") {
            return routes.pageResponse(401)
          }
          const unauthorized = json(401, { error: "unauthorized" })
          return options.challenge === undefined
            ? unauthorized
            : HttpServerResponse.setHeader(unauthorized, "www-authenticate", options.challenge)
        }
        admissions.set(source, admitted)
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
          table.isClosed() ? { ...headersOfAll, connection: "close" } : headersOfAll
        )
      )
    ))
}
