/**
 * `ask-user inbox --web --remote`: the durable inbox's web page served over
 * HTTPS on the machine's network addresses to paired devices. This module
 * is where the two surfaces meet, as neither may import the other: the
 * store's devices and pairing codes become the web provider's `access`, the
 * ntfy buttons' tokens its `actions`, and the running inbox's address is
 * recorded in the store (for `ask-user pair`) and used by notifications'
 * links (decision 143).
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { DurableInbox, PendingAsk } from "../durable/DurableInbox.js"
import type { DurableStore } from "../durable/DurableStore.js"
import { type ActionTokens, makeActionTokens } from "../notify/actions.js"
import { ProviderFailed } from "../UserInteractionError.js"
import { inboxAskTimes } from "./inboxClaims.js"
import type { UserInteractionProvider } from "../UserInteractionProvider.js"
import { PairingRefused as WebPairingRefused, type WebAccess } from "../web/WebAccess.js"
import type { WebActions } from "../web/WebActions.js"
import type { WebClaims } from "../web/WebClaims.js"
import { ownCertificate, selfSignedCertificate, type ServedCertificate } from "./certificate.js"
import { pairingBlock, pairUrl } from "./pairingOutput.js"
import { defaultRemotePort, type RemoteFlags } from "./remoteFlags.js"

/** The flags the remote inbox reads. */
export interface RemoteInboxFlags extends RemoteFlags {
  readonly host: Option.Option<string>
  readonly port: Option.Option<number>
  readonly review?: boolean | undefined
}

/**
 * A running remote inbox: its web provider (built, to be served), its
 * address, the link of an ask on it, and the tokens of its ntfy buttons.
 */
export interface RemoteInbox {
  readonly surface: Layer.Layer<UserInteractionProvider>
  readonly base: string
  readonly link: (ask: PendingAsk) => string
  readonly actions: ActionTokens
}

/** The store's devices as the web provider's access hook; the store's refusal as the web's. */
export const deviceAccess = (devices: DurableInbox["Service"]["devices"]): WebAccess => ({
  authenticate: (credential) =>
    Effect.map(devices.authenticate(credential), (device) => device === undefined ? undefined : { id: device.id, name: device.name }),
  pair: (code, name) =>
    devices.pair(code, name).pipe(
      Effect.map(({ credential, device }) => ({ device: { id: device.id, name: device.name }, credential })),
      Effect.mapError((refused) => new WebPairingRefused({ reason: refused.reason, message: refused.message }))
    )
})

/** What a press needs once the server listens: the run's tokens, and the asks on the page. */
interface ServedTokens {
  readonly tokens: ActionTokens
  readonly onPage: Effect.Effect<ReadonlyArray<{ readonly askId?: string | undefined }>>
}

/**
 * The tokens as the web provider's actions hook: a token redeems while its
 * ask is pending in the store and on the page (which takes the answer; an
 * ask the page has not got yet leaves the token unused). `served` is read
 * when a button is pressed: the tokens and the page's pending list exist
 * once the server listens, as the buttons' URLs need its port.
 */
const tokenActions = (served: () => ServedTokens | undefined, store: DurableStore["Service"]): WebActions => ({
  redeem: (token) => {
    const running = served()
    if (running === undefined) return Effect.succeed(undefined)
    return running.tokens.redeem(token, (askId) =>
      Effect.zipWith(
        Effect.map(store.find(askId), (record) => record?.status === "pending"),
        Effect.map(running.onPage, (pending) => pending.some((ask) => ask.askId === askId)),
        (inStore, onPage) => inStore && onPage
      ))
  }
})

/** The certificate to serve: none behind a proxy, the person's own, or the kept self-signed one. */
const certificateFor = (flags: RemoteFlags): Effect.Effect<ServedCertificate | undefined, ProviderFailed> => {
  if (Option.isSome(flags.publicUrl)) return Effect.succeed(undefined)
  if (Option.isSome(flags.tlsCert) && Option.isSome(flags.tlsKey)) return ownCertificate(flags.tlsCert.value, flags.tlsKey.value)
  return selfSignedCertificate()
}

/**
 * Starts the remote inbox in the current scope: the certificate, the
 * server (on every address unless `--host`; loopback only behind
 * `--public-url`), its address recorded in the store while it runs, and
 * the first line on stderr, `Inbox at https://HOST:PORT/ (SHA-256
 * fingerprint …)`; on a terminal, a fresh pairing code's QR code and the code.
 */
export const startRemoteInbox = (
  flags: RemoteInboxFlags,
  inbox: DurableInbox["Service"],
  store: DurableStore["Service"],
  claims: WebClaims | undefined
): Effect.Effect<RemoteInbox, ProviderFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const certificate = yield* certificateFor(flags)
    const publicUrl = Option.getOrUndefined(flags.publicUrl)
    const host = Option.getOrElse(flags.host, () => publicUrl === undefined ? "0.0.0.0" : "127.0.0.1")
    const port = Option.getOrElse(flags.port, () => defaultRemotePort)
    let served: ServedTokens | undefined
    const { WebProvider } = yield* Effect.promise(() => import("../web/WebProvider.js"))
    const context = yield* Layer.build(WebProvider.layer({
      host,
      port,
      review: flags.review,
      claims,
      access: deviceAccess(inbox.devices),
      actions: tokenActions(() => served, store),
      askTimes: inboxAskTimes(store),
      ...(certificate === undefined ? {} : { tls: { cert: certificate.cert, key: certificate.key } }),
      ...(publicUrl === undefined ? {} : { publicUrl })
    })).pipe(
      Effect.mapError((error) =>
        new ProviderFailed({
          message: `Cannot serve the remote inbox on ${host}:${port}: ${
            String((error.cause as { message?: unknown } | undefined)?.message ?? error.message)
          }`,
          cause: error
        })
      )
    )
    const web = Context.get(context, WebProvider)
    const base = web.url
    // A key of this run's own, in memory only: a button outlives neither the run nor its address (decision 142).
    const tokens = makeActionTokens(base)
    served = { tokens, onPage: web.pending }
    yield* inbox.devices.announce(base)
    // The first line on stderr: scripts wait for it to learn the address, people to check the certificate.
    process.stderr.write(
      certificate === undefined
        ? `Inbox at ${base} (through your proxy; served on http://${host}:${web.port}/)\n`
        : `Inbox at ${base} (SHA-256 fingerprint ${certificate.fingerprint})\n`
    )
    if (process.stderr.isTTY === true) {
      const { code, expiresAt } = yield* inbox.devices.newCode
      process.stderr.write(pairingBlock(code, expiresAt, pairUrl(base, code)))
    }
    return {
      surface: Layer.succeedContext(Context.omit(WebProvider)(context)),
      base,
      link: (ask) => new URL(`#ask=${encodeURIComponent(ask.id)}`, base).href,
      actions: tokens
    }
  })
