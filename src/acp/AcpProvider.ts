/**
 * Asks the human behind an ACP client (Zed, or any editor speaking the Agent
 * Client Protocol) through form elicitation: one `elicitation/create` form per
 * request, built by `ElicitationForm`, on the `@agentclientprotocol/sdk` 2.x
 * app API.
 *
 * ```ts
 * const app = acp.agent()
 *   .onRequest(acp.methods.agent.initialize, ({ params, client }) => … AcpProvider.layer({
 *     client, clientCapabilities: params.clientCapabilities }) …)
 *   .onNotification(acp.methods.agent.session.cancel, ({ params }) =>
 *     … AcpProvider.use((p) => p.cancelSession(params.sessionId)) …)
 * // inside session/prompt, around the tool call that asks:
 * UserInteraction.ask(request).pipe(AcpProvider.withSession({ sessionId, toolCallId }))
 * ```
 *
 * Each ask goes to one ACP session: the `AcpSession` reference when it is set
 * around the ask (it also carries the `toolCallId`), else the request's
 * `agent.id` as the `sessionId`. Without either, or when the client did not
 * advertise `clientCapabilities.elicitation.form`, the ask fails
 * `ProviderFailed` and nothing is sent.
 *
 * @since 0.1.0
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Context, Effect, Layer } from "effect"
import {
  type CancelElicitation,
  elicitationParams,
  outcomeOf,
  sendElicitation,
  type SessionScope
} from "./elicit.js"
import { UserInteractionProvider } from "../UserInteractionProvider.js"
import { AskCancelled, ProviderClosed, ProviderFailed } from "../UserInteractionError.js"

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
 * SDK's `AgentContext`, e.g. `connection.client` or a handler's `client`) and
 * the client's capabilities from its `initialize` request.
 *
 * @since 0.1.0
 */
export interface AcpProviderOptions {
  readonly client: acp.AgentContext
  readonly clientCapabilities: acp.ClientCapabilities | null | undefined
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
   * Ends every pending ask of the session with `AskCancelled`, sending
   * `$/cancel_request` for its elicitation. Call it from the agent's
   * `session/cancel` handler. Returns how many asks it ended.
   */
  readonly cancelSession: (sessionId: string) => Effect.Effect<number>
}>()("effect-user-interaction/AcpProvider") {
  /**
   * A provider bound to one ACP connection. Asks while the client lacks form
   * elicitation fail `ProviderFailed` before anything is sent. When the
   * layer's scope closes, forms still open are cancelled on the wire and their
   * asks fail `ProviderClosed`, as do later asks.
   *
   * @since 0.1.0
   */
  static layer(options: AcpProviderOptions): Layer.Layer<UserInteractionProvider | AcpProvider> {
    return Layer.effectContext(Effect.gen(function*() {
      const { client } = options
      let closed = false
      const supportsForm = options.clientCapabilities?.elicitation?.form != null
      // The cancellers of each session's pending elicitations, for `cancelSession`.
      const pending = new Map<string, Set<CancelElicitation>>()
      const cancellersOf = (sessionId: string) => {
        const existing = pending.get(sessionId)
        if (existing !== undefined) return existing
        const created = new Set<CancelElicitation>()
        pending.set(sessionId, created)
        return created
      }
      const forget = (sessionId: string) =>
        Effect.sync(() => {
          if (pending.get(sessionId)?.size === 0) pending.delete(sessionId)
        })

      const ask: UserInteractionProvider["Service"]["ask"] = (request) =>
        Effect.gen(function*() {
          if (closed) return yield* new ProviderClosed({ message: "The ACP provider is closed." })
          if (!supportsForm) {
            return yield* new ProviderFailed({
              message: "The ACP client does not support form elicitation (clientCapabilities.elicitation.form)."
            })
          }
          const scope: SessionScope | undefined = (yield* AcpSession) ??
            (request.agent === undefined ? undefined : { sessionId: request.agent.id })
          if (scope === undefined || scope.sessionId === "") {
            return yield* new ProviderFailed({
              message: "No ACP session for this ask: set AcpProvider.withSession around it or request.agent.id."
            })
          }
          const response = yield* sendElicitation(client, elicitationParams(request, scope), cancellersOf(scope.sessionId))
            .pipe(Effect.ensuring(forget(scope.sessionId)))
          return yield* outcomeOf(request, response)
        })

      const cancelSession = (sessionId: string) =>
        Effect.sync(() => {
          const cancellers = Array.from(pending.get(sessionId) ?? [])
          const error = new AskCancelled({ message: `The ACP client cancelled session ${sessionId}.` })
          for (const cancel of cancellers) cancel(error)
          pending.delete(sessionId)
          return cancellers.length
        })

      // The seam interrupts its pending asks before this runs; this covers direct use of the provider.
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          closed = true
          const error = new ProviderClosed({ message: "The ACP provider closed while the form was open." })
          for (const cancellers of Array.from(pending.values())) for (const cancel of Array.from(cancellers)) cancel(error)
          pending.clear()
        })
      )

      return Context.make(UserInteractionProvider, UserInteractionProvider.of({ ask, name: "acp" })).pipe(
        Context.add(AcpProvider, AcpProvider.of({ cancelSession }))
      )
    }))
  }

  /**
   * Runs `self` with its asks routed to this ACP session (and tool call).
   *
   * @since 0.1.0
   */
  static withSession(session: AcpSession): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> {
    return (self) => Effect.provideService(self, AcpSession, session)
  }
}
