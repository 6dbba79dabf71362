/**
 * One ACP form elicitation as an Effect: the request on the wire, its
 * cancellation when the asking fiber is interrupted, and the client's
 * response turned into the seam's outcomes.
 *
 * @internal
 */
import * as acp from "@agentclientprotocol/sdk"
import { Effect, Result } from "effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { fromElicitationContent, toElicitationForm } from "../ElicitationForm.js"
import {
  AskCancelled,
  AskDeclined,
  type InvalidAnswer,
  type ProviderClosed,
  ProviderFailed
} from "../UserInteractionError.js"

/** Where an elicitation goes: a session, and the tool call inside it when there is one. */
export interface SessionScope {
  readonly sessionId: string
  readonly toolCallId?: string | undefined
}

/** The `elicitation/create` params for a request: its form, scoped to the session (and tool call). */
export const elicitationParams = (
  request: AskUserQuestionRequest,
  scope: SessionScope
): acp.CreateElicitationRequest => {
  const form = toElicitationForm(request)
  return {
    sessionId: scope.sessionId,
    ...(scope.toolCallId === undefined ? {} : { toolCallId: scope.toolCallId }),
    mode: "form",
    message: form.message,
    requestedSchema: form.requestedSchema
  }
}

const failed = (cause: unknown): ProviderFailed =>
  cause instanceof acp.RequestError
    ? new ProviderFailed({
      message: `The ACP client answered the elicitation with JSON-RPC error ${cause.code}: ${cause.message}`,
      cause
    })
    : new ProviderFailed({
      message: `The ACP connection failed before the client answered: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })

/** Ends a pending elicitation from outside (a `session/cancel`, the provider closing) with this error. */
export type CancelElicitation = (error: AskCancelled | ProviderClosed) => void

/**
 * Sends the elicitation. Interrupting the fiber, or calling the canceller it
 * adds to `cancellers` while pending, aborts the request's
 * `cancellationSignal`, so `$/cancel_request` goes on the wire, and stops
 * waiting for the client's reply at once (`stopWaitingOnCancel`): a client
 * that never answers the cancellation cannot hold the ask.
 */
export const sendElicitation = (
  client: acp.AgentContext,
  params: acp.CreateElicitationRequest,
  cancellers: Set<CancelElicitation>
): Effect.Effect<acp.CreateElicitationResponse, ProviderFailed | AskCancelled | ProviderClosed> =>
  Effect.callback((resume) => {
    const controller = new AbortController()
    const settle = (
      outcome: Effect.Effect<acp.CreateElicitationResponse, ProviderFailed | AskCancelled | ProviderClosed>
    ) => {
      cancellers.delete(cancel)
      resume(outcome)
    }
    const cancel: CancelElicitation = (error) => {
      settle(Effect.fail(error))
      controller.abort(error)
    }
    cancellers.add(cancel)
    client.request(acp.methods.client.elicitation.create, params, {
      cancellationSignal: controller.signal,
      stopWaitingOnCancel: true
    }).then((response) => settle(Effect.succeed(response)), (cause) => settle(Effect.fail(failed(cause))))
    return Effect.sync(() => {
      cancellers.delete(cancel)
      controller.abort()
    })
  })

/**
 * The client's response as the seam sees it: accept → the answer read from
 * the form (validated); decline → `AskDeclined`; cancel or any other action →
 * `AskCancelled`; a result that is not a response at all → `ProviderFailed`.
 */
export const outcomeOf = (
  request: AskUserQuestionRequest,
  response: unknown
): Effect.Effect<AskUserQuestionAnswer, InvalidAnswer | AskDeclined | AskCancelled | ProviderFailed> => {
  if (typeof response !== "object" || response === null) {
    return Effect.fail(new ProviderFailed({ message: "The ACP client's elicitation result is not an object.", cause: response }))
  }
  const { action, content } = response as { readonly action?: unknown; readonly content?: unknown }
  switch (action) {
    case "accept": {
      const answer = fromElicitationContent(request, content)
      return Result.isSuccess(answer) ? Effect.succeed(answer.success) : Effect.fail(answer.failure)
    }
    case "decline":
      return Effect.fail(new AskDeclined({ message: "The human declined the ACP form." }))
    case "cancel":
      return Effect.fail(new AskCancelled({ message: "The human cancelled the ACP form." }))
    default:
      return Effect.fail(new AskCancelled({
        message: `The ACP client ended the form with the unknown action ${JSON.stringify(action) ?? "undefined"}.`
      }))
  }
}
