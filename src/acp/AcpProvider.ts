/**
 * Asks the human behind an ACP client (Zed, or any editor speaking the Agent
 * Client Protocol) through form elicitation: one `elicitation/create` form per
 * request, built by `ElicitationForm`, on the `@agentclientprotocol/sdk` 2.x
 * app API.
 *
 * ```ts
 * const app = acp.agent()
 *   .onRequest(acp.methods.agent.initialize, ({ params, client }) => … AcpProvider.layer({
 *     client, clientCapabilities: params.clientCapabilities, clientInfo: params.clientInfo }) …)
 *   .onNotification(acp.methods.agent.session.cancel, ({ params }) =>
 *     … AcpProvider.use((p) => p.cancelSession(params.sessionId)) …)
 * // inside session/prompt, around the tool call that asks:
 * UserInteraction.ask(request).pipe(AcpProvider.withSession({ sessionId, toolCallId }))
 * ```
 *
 * Each ask goes to one ACP session: the `AcpSession` reference when it is set
 * around the ask (it also carries the `toolCallId`), else the request's
 * `agent.id` as the `sessionId`. Without either the ask fails
 * `ProviderFailed` and nothing is sent; when the client did not advertise
 * `clientCapabilities.elicitation.form` (for questions that are not
 * secret), or a question is secret and the provider has no `secretPage` or
 * the client no `clientCapabilities.elicitation.url`, it fails
 * `ProviderFailed` with nothing sent, shown in its session as a tool call
 * that failed. Answers, cancels and declines are the client's,
 * `acp:<clientInfo.name>`; an ask whose `answerableBy` does not allow it
 * fails `NotAuthorized` before any tool call or form.
 *
 * A secret question never goes in a form: the other questions are asked in
 * one form, then each secret question on its own one-time page (see
 * `SecretPage`), through a URL-mode elicitation pointing at it; the client
 * only says whether the human went there, and is told `elicitation/complete`
 * once the page has the answer.
 *
 * @since 0.1.0
 */
import * as acp from "@agentclientprotocol/sdk"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { formRefusal } from "../ElicitationForm.js"
import { askWithSecretPages, hasSecrets } from "../internal/secretAsk.js"
import type { SecretPage } from "../SecretPage.js"
import {
  awaitInSession,
  elicitationParams,
  outcomeOf,
  type PendingForm,
  sendElicitation,
  SessionCancelled,
  type SessionScope,
  urlElicitationParams,
  urlOutcomeOf
} from "./elicit.js"
import { toolCallFinished, toolCallStarted } from "./toolCall.js"
import { askAs, clientAnswerer } from "../internal/answeredBy.js"
import { interruptionReason, UserInteractionProvider } from "../UserInteractionProvider.js"
import {
  AskAborted,
  AskCancelled,
  AskTimeout,
  type HarnessError,
  ProviderClosed,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"

/** How an elicitation (or a wait for a secret page) of a session can end other than with its result. */
type SessionFailure = ProviderFailed | AskCancelled | ProviderClosed | SessionCancelled

/**
 * The ACP session (and tool call) an ask belongs to, set around the ask with
 * `AcpProvider.withSession`. It takes precedence over the request's
 * `agent.id`.
 *
 * @since 0.1.0
 */
export interface AcpSession {
  readonly sessionId: string
  readonly toolCallId?: string | undefined
}

/**
 * The current `AcpSession`, if any; read by `AcpProvider` when it asks.
 *
 * @since 0.1.0
 */
export const AcpSession = Context.Reference<AcpSession | undefined>("effect-user-interaction/AcpSession", {
  defaultValue: () => undefined
})

/**
 * What `AcpProvider.layer` is given: the agent side of the connection (the
 * SDK's `AgentContext`, e.g. `connection.client` or a handler's `client`),
 * and the client's capabilities and `clientInfo` from its `initialize` request.
 *
 * @since 0.1.0
 */
export interface AcpProviderOptions {
  readonly client: acp.AgentContext
  readonly clientCapabilities: acp.ClientCapabilities | null | undefined
  /**
   * The client's `clientInfo` from its `initialize` request: who answers its
   * forms, `acp:<name>` (its `title` as the name people know it by). A client
   * that declared none is an unknown answerer, which cannot settle an ask
   * with `answerableBy`.
   *
   * @since 0.3.0
   */
  readonly clientInfo?: acp.Implementation | null | undefined
  /**
   * How long `cancelSession` lets the client answer its open forms itself
   * (ACP asks clients to settle their pending requests after
   * `session/cancel`) before it cancels them on the wire. Default 500 ms.
   */
  readonly cancelGrace?: Duration.Input | undefined
  /**
   * Where secret questions are answered (for example `WebSecretPage`);
   * without one, a request with a secret question fails `PROVIDER_FAILED`
   * before anything is sent (since 0.3.0).
   */
  readonly secretPage?: SecretPage["Service"] | undefined
}

/**
 * Options of `AcpProvider.cancelSession`.
 *
 * @since 0.2.0
 */
export interface CancelSessionOptions {
  /** How long the client may answer its open forms itself; default the layer's `cancelGrace`. */
  readonly grace?: Duration.Input | undefined
}

/**
 * The ACP provider's own handle, next to the `UserInteractionProvider` it
 * registers: forwards the client's `session/cancel` to the asks of that
 * session.
 *
 * @since 0.1.0
 */
export class AcpProvider extends Context.Service<AcpProvider, {
  /**
   * Ends every pending ask of the session with `AskCancelled`: the client's
   * own answer to an open form (within `cancelGrace`) settles it as a cancel
   * too, keeping the client's reason; a form still open after that is
   * cancelled on the wire (`$/cancel_request`). No `tool_call_update` follows,
   * whatever ends such an ask afterwards (the timeout, an interruption): the
   * client marks the cancelled turn's tool calls itself. Call it from the
   * agent's `session/cancel` handler (or with `grace: 0` when the agent itself
   * ends the turn, e.g. for a newer prompt); it returns, once every such ask
   * has settled, how many there were.
   */
  readonly cancelSession: (sessionId: string, options?: CancelSessionOptions) => Effect.Effect<number>
}>()("effect-user-interaction/AcpProvider") {
  /**
   * A provider bound to one ACP connection. Each ask is a tool call the
   * client can show (unless the ask runs inside the caller's own tool call,
   * `AcpProvider.withSession({ toolCallId })`, which the caller reports):
   * `tool_call` `pending` before the form, then `tool_call_update`
   * `completed` with the answer or `failed` with the error. Asks while the
   * client lacks form elicitation fail `ProviderFailed` with no form sent;
   * their tool call is announced and reported `failed` at once. When the
   * layer's scope closes, forms still open are cancelled on the wire and
   * their asks fail `ProviderClosed`, as do later asks.
   *
   * @since 0.1.0
   */
  static layer(options: AcpProviderOptions): Layer.Layer<UserInteractionProvider | AcpProvider> {
    return Layer.effectContext(Effect.gen(function*() {
      const { client } = options
      const grace = Duration.fromInputUnsafe(options.cancelGrace ?? Duration.millis(500))
      let closed = false
      let toolCalls = 0
      const supportsForm = options.clientCapabilities?.elicitation?.form != null
      const supportsUrl = options.clientCapabilities?.elicitation?.url != null
      const { secretPage } = options
      const withoutForm = () =>
        new ProviderFailed({ message: "The ACP client does not support form elicitation (clientCapabilities.elicitation.form)." })
      /** Why a request cannot be asked of this client, if it cannot: forms for what is not secret, a page and URL mode for what is. */
      const refusalOf = (request: AskUserQuestionRequest): ProviderFailed | undefined => {
        if (!supportsForm && request.questions.some((question) => question.secret !== true)) return withoutForm()
        if (secretPage === undefined) return formRefusal(request, "ACP")
        const secret = request.questions.find((question) => question.secret === true)
        if (secret === undefined || supportsUrl) return undefined
        return new ProviderFailed({
          message: `The question "${secret.id}" is secret and needs a secret page, but the ACP client cannot open one: ` +
            "it did not advertise clientCapabilities.elicitation.url; nothing was sent."
        })
      }
      // Each session's pending elicitations, for `cancelSession`.
      const pending = new Map<string, Set<PendingForm>>()
      const formsOf = (sessionId: string) => {
        const existing = pending.get(sessionId)
        if (existing !== undefined) return existing
        const created = new Set<PendingForm>()
        pending.set(sessionId, created)
        return created
      }
      const forget = (sessionId: string) => {
        if (pending.get(sessionId)?.size === 0) pending.delete(sessionId)
      }
      // Queued on the SDK's ordered write queue at once; a failed write closes the connection, which the form sees.
      const update = (sessionId: string, update: acp.SessionUpdate) =>
        void client.notify(acp.methods.client.session.update, { sessionId, update }).catch(() => undefined)

      /**
       * Runs one ask of the session, whose elicitations (and waits for a secret page) go out
       * through `send` and `hold`: its own tool call is announced before the first of them and
       * reported once when the ask ends.
       */
      const inSession = <E extends UserInteractionError | SessionCancelled>(
        request: AskUserQuestionRequest,
        scope: SessionScope,
        own: boolean,
        body: (
          send: (params: acp.CreateElicitationRequest) => Effect.Effect<acp.CreateElicitationResponse, SessionFailure>,
          hold: <A>(wait: Effect.Effect<A, ProviderClosed>) => Effect.Effect<A, SessionFailure>
        ) => Effect.Effect<AskUserQuestionAnswer, E>
      ) => {
        // Each entry once it is in its session's set (the first one announces an own tool call).
        const sent: Array<PendingForm> = []
        const track = (form: PendingForm) => {
          if (own && sent.length === 0) update(scope.sessionId, toolCallStarted(request, scope.toolCallId))
          sent.push(form)
        }
        return body(
          (params) => sendElicitation(client, params, formsOf(scope.sessionId), track),
          (wait) => awaitInSession(wait, formsOf(scope.sessionId), track)
        ).pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              forget(scope.sessionId)
              // Not announced, or the client cancelled the session (it marks the turn's tool calls itself,
              // whatever ended the ask after that): nothing to report.
              if (!own || sent.length === 0 || sent.some((form) => form.cancelledByClient !== undefined)) return
              update(scope.sessionId, toolCallFinished(scope.toolCallId, finalOutcome(exit)))
            })
          ),
          // A session's cancel, for the seam, is the client's cancel of the ask.
          Effect.mapError((error): UserInteractionError => error instanceof SessionCancelled ? error.error : error as UserInteractionError)
        )
      }

      const askOnForm = (request: AskUserQuestionRequest, scope: SessionScope, own: boolean) =>
        inSession(request, scope, own, (send) =>
          Effect.flatMap(send(elicitationParams(request, scope)), (response) => outcomeOf(request, response)))

      /** The questions that are not secret in one form, then each secret one on its own page. */
      const askWithPages = (request: AskUserQuestionRequest, scope: SessionScope, own: boolean, page: SecretPage["Service"]) =>
        inSession(request, scope, own, (send, hold) =>
          askWithSecretPages(request, page, {
            form: (asked) => Effect.flatMap(send(elicitationParams(asked, scope)), (response) => outcomeOf(asked, response)),
            url: (elicitation) => Effect.flatMap(send(urlElicitationParams(elicitation, scope)), urlOutcomeOf),
            completed: (elicitation) =>
              Effect.sync(() =>
                void client.notify(acp.methods.client.elicitation.complete, { elicitationId: elicitation.elicitationId })
                  .catch(() => undefined)
              ),
            awaitValue: hold
          }))

      /**
       * An ask no form can carry (the client has no forms, or a question is secret) still shows in
       * its session: a tool call that failed, saying why. No form is sent.
       */
      const refuse = (request: AskUserQuestionRequest, scope: SessionScope | undefined, own: boolean, error: ProviderFailed) =>
        Effect.suspend(() => {
          if (scope !== undefined && own) {
            update(scope.sessionId, toolCallStarted(request, scope.toolCallId))
            update(scope.sessionId, toolCallFinished(scope.toolCallId, { error }))
          }
          return Effect.fail(error)
        })

      const by = clientAnswerer("acp", options.clientInfo)
      const askInSession = (request: AskUserQuestionRequest) =>
        Effect.flatMap(AcpSession, (session) => {
          if (closed) return Effect.fail(new ProviderClosed({ message: "The ACP provider is closed." }))
          const sessionId = session?.sessionId ?? request.agent?.id
          const callerToolCall = session?.toolCallId
          const own = callerToolCall === undefined
          const scope = sessionId === undefined || sessionId === ""
            ? undefined
            : { sessionId, toolCallId: callerToolCall ?? `ask_user_question_${++toolCalls}` }
          const refused = refusalOf(request)
          if (refused !== undefined) return refuse(request, scope, own, refused)
          if (scope === undefined) {
            return Effect.fail(
              new ProviderFailed({
                message: "No ACP session for this ask: set AcpProvider.withSession around it or request.agent.id."
              })
            )
          }
          return secretPage !== undefined && hasSecrets(request)
            ? askWithPages(request, scope, own, secretPage)
            : askOnForm(request, scope, own)
        })
      // An ask the client may not settle is refused before any tool call or form.
      const ask: UserInteractionProvider["Service"]["ask"] = (request) => askAs(by, request, askInSession(request))

      const cancelSession = (sessionId: string, cancelOptions?: CancelSessionOptions) =>
        Effect.suspend(() => {
          const forms = Array.from(pending.get(sessionId) ?? [])
          const error = new AskCancelled({ message: `The ACP client cancelled session ${sessionId}.` })
          for (const form of forms) form.cancelledByClient = error
          if (forms.length === 0) return Effect.succeed(0)
          const cancelRest = Effect.sync(() => {
            for (const form of forms) form.cancel(error)
            return forms.length
          })
          const wait = cancelOptions?.grace === undefined ? grace : Duration.fromInputUnsafe(cancelOptions.grace)
          if (Duration.isZero(wait)) return cancelRest
          return Effect.promise(() => Promise.all(forms.map((form) => form.settled))).pipe(
            Effect.timeoutOption(wait),
            Effect.andThen(cancelRest)
          )
        })

      // The seam interrupts its pending asks before this runs; this covers direct use of the provider.
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          closed = true
          const error = new ProviderClosed({ message: "The ACP provider closed while the form was open." })
          for (const forms of Array.from(pending.values())) for (const form of Array.from(forms)) form.cancel(error)
          pending.clear()
        })
      )

      return Context.make(UserInteractionProvider, UserInteractionProvider.of({ ask, name: "acp" })).pipe(
        Context.add(AcpProvider, AcpProvider.of({ cancelSession }))
      )
    }))
  }

  /**
   * Runs `self` with its asks routed to this ACP session (and inside the
   * caller's tool call, when `toolCallId` is given).
   *
   * @since 0.1.0
   */
  static withSession(session: AcpSession): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> {
    return (self) => Effect.provideService(self, AcpSession, session)
  }
}

/**
 * How a provider-owned tool call ends, from the ask's exit: the answer, the
 * failure, or, when the ask was taken down, the error the seam's reason
 * stands for.
 */
const finalOutcome = (
  exit: Exit.Exit<AskUserQuestionAnswer, HarnessError | SessionCancelled>
): { readonly answer: AskUserQuestionAnswer } | { readonly error: HarnessError } => {
  if (Exit.isSuccess(exit)) return { answer: exit.value }
  const error = Cause.findErrorOption(exit.cause)
  if (error._tag === "Some") return { error: error.value instanceof SessionCancelled ? error.value.error : error.value }
  switch (interruptionReason(exit.cause)) {
    case "timeout":
      return { error: new AskTimeout() }
    case "closed":
      return { error: new ProviderClosed() }
    default:
      return { error: new AskAborted() }
  }
}
