/**
 * One ACP form elicitation as an Effect: the request on the wire, its
 * cancellation when the asking fiber is interrupted, and the client's
 * response turned into the seam's outcomes.
 *
 * @internal
 */
import * as acp from "@agentclientprotocol/sdk"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { fromElicitationContent, toElicitationForm } from "../ElicitationForm.js"
import type { UrlElicitation } from "../internal/secretAsk.js"
import { markChecked } from "../internal/wellFormed.js"
import {
  AskCancelled,
  AskDeclined,
  type InvalidAnswer,
  type ProviderClosed,
  ProviderFailed
} from "../UserInteractionError.js"

/** Where an elicitation goes: a session, and the tool call inside it. */
export interface SessionScope {
  readonly sessionId: string
  readonly toolCallId: string
}

/** The URL-mode `elicitation/create` params pointing at a secret page, scoped to the session and tool call. */
export const urlElicitationParams = (elicitation: UrlElicitation, scope: SessionScope): acp.CreateElicitationRequest => ({
  sessionId: scope.sessionId,
  toolCallId: scope.toolCallId,
  mode: "url",
  elicitationId: elicitation.elicitationId,
  url: elicitation.url,
  message: elicitation.message
})

/** The `elicitation/create` params for a request: its form, scoped to the session and tool call. */
export const elicitationParams = (
  request: AskUserQuestionRequest,
  scope: SessionScope
): acp.CreateElicitationRequest => {
  const form = toElicitationForm(request)
  return {
    sessionId: scope.sessionId,
    toolCallId: scope.toolCallId,
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

/**
 * A pending elicitation as its session sees it: `cancel` ends it from
 * outside (the provider closing, a `session/cancel` whose grace ran out);
 * `cancelledByClient` is set by `session/cancel`, so that a response racing
 * the cancel still ends the ask as the client's cancel; `settled` resolves
 * once the elicitation is over, however it ended.
 */
export interface PendingForm {
  readonly cancel: (error: AskCancelled | ProviderClosed) => void
  cancelledByClient: AskCancelled | undefined
  readonly settled: Promise<void>
}

type Failure = ProviderFailed | AskCancelled | ProviderClosed

/**
 * The form ended because the client cancelled its session (`session/cancel`):
 * the ask fails with `error`, and nothing more is reported to the client,
 * which has already marked the turn's tool calls cancelled.
 */
export class SessionCancelled extends Data.TaggedError("SessionCancelled")<{ readonly error: AskCancelled }> {}

/**
 * A pending entry for `forms` (not added yet): its `cancel` takes it out of
 * the set and hands `stop` the failure (the session's cancel when
 * `session/cancel` marked it, else `error`), and `markSettled` resolves its
 * `settled`.
 */
const pendingEntry = (
  forms: Set<PendingForm>,
  stop: (failure: Failure | SessionCancelled, error: AskCancelled | ProviderClosed) => void
): { readonly form: PendingForm; readonly markSettled: () => void } => {
  let markSettled!: () => void
  const form: PendingForm = {
    cancel: (error) => {
      if (!forms.delete(form)) return
      markSettled()
      const cancelled = form.cancelledByClient
      stop(cancelled === undefined ? error : new SessionCancelled({ error: cancelled }), error)
    },
    cancelledByClient: undefined,
    settled: new Promise<void>((resolve) => {
      markSettled = resolve
    })
  }
  return { form, markSettled: () => markSettled() }
}

/**
 * Sends the elicitation. `onSent` runs just before the request is queued,
 * with the form already in its session's set: what it queues (the tool
 * call's announcement) goes on the wire before the form, and an ask
 * interrupted before that point has sent nothing. Interrupting the fiber, or
 * calling the form's `cancel` while it is pending, aborts the request's
 * `cancellationSignal`, so `$/cancel_request` goes on the wire, and stops
 * waiting for the client's reply at once (`stopWaitingOnCancel`): a client
 * that never answers the cancellation cannot hold the ask. Once the SDK has
 * matched the client's response, aborting sends nothing (the SDK drops its
 * abort listener then), so a form already answered is never cancelled on the
 * wire.
 *
 * Every response settles one macrotask later: every message already read
 * from the client (a `session/cancel` or `$/cancel_request` sent in the same
 * breath as the form's answer, in either order) has been dispatched by then,
 * and a form whose session was cancelled fails as that cancel, even when the
 * client accepted it.
 *
 * The client's result is untrusted JSON (`null` when an SDK client's handler
 * returned nothing): nothing here assumes its shape, and the promise's
 * callbacks settle the ask whatever happens, so nothing escapes unobserved.
 */
export const sendElicitation = (
  client: acp.AgentContext,
  params: acp.CreateElicitationRequest,
  forms: Set<PendingForm>,
  onSent: (form: PendingForm) => void
): Effect.Effect<acp.CreateElicitationResponse, Failure | SessionCancelled> =>
  Effect.callback((resume) => {
    const controller = new AbortController()
    const { form, markSettled } = pendingEntry(forms, (failure, error) => {
      resume(Effect.fail(failure))
      controller.abort(error)
    })
    const finish = (outcome: Result.Result<acp.CreateElicitationResponse, Failure>) => {
      if (!forms.delete(form)) return
      markSettled()
      const cancelled = form.cancelledByClient
      if (cancelled === undefined) return resume(Result.isSuccess(outcome) ? Effect.succeed(outcome.success) : Effect.fail(outcome.failure))
      // The client's own words for its form's cancel beat the generic session cancel.
      const reason = Result.isSuccess(outcome) ? clientReason(outcome.success) : undefined
      resume(Effect.fail(
        new SessionCancelled({
          error: reason === undefined ? cancelled : new AskCancelled({ message: `The ACP client cancelled the form: ${reason}` })
        })
      ))
    }
    // The SDK matches a response at once but dispatches a notification after a chain of awaits.
    const settleAfterInput = (outcome: Result.Result<acp.CreateElicitationResponse, Failure>) => void setImmediate(finish, outcome)
    forms.add(form)
    onSent(form)
    client.request(acp.methods.client.elicitation.create, params, {
      cancellationSignal: controller.signal,
      stopWaitingOnCancel: true
    }).then(
      (response) => settleAfterInput(Result.succeed(response)),
      (cause) => settleAfterInput(Result.fail(failed(cause)))
    ).catch((defect) =>
      // Not expected: settles the ask rather than leaving a rejection nobody observes.
      resume(Effect.fail(new ProviderFailed({ message: `The ACP elicitation failed unexpectedly: ${String(defect)}`, cause: defect })))
    )
    return Effect.sync(() => {
      if (forms.delete(form)) markSettled()
      controller.abort()
    })
  })

/**
 * Waits for `value` (a secret page's answer, which the client never sees) as
 * a pending entry of its session, as a form would be: `cancelSession` and
 * the provider closing end it through the entry's `cancel`, and a value that
 * arrives once `session/cancel` has marked the entry fails as that cancel.
 * `onAdded` runs once the entry is in the set.
 */
export const awaitInSession = <A>(
  value: Effect.Effect<A, ProviderClosed>,
  forms: Set<PendingForm>,
  onAdded: (form: PendingForm) => void
): Effect.Effect<A, Failure | SessionCancelled> =>
  Effect.suspend(() => {
    const stopped = Deferred.makeUnsafe<never, Failure | SessionCancelled>()
    const { form, markSettled } = pendingEntry(forms, (failure) => Deferred.doneUnsafe(stopped, Effect.fail(failure)))
    forms.add(form)
    onAdded(form)
    return Effect.raceFirst(
      Effect.flatMap(value, (taken) => {
        const cancelled = form.cancelledByClient
        return cancelled === undefined ? Effect.succeed(taken) : Effect.fail(new SessionCancelled({ error: cancelled }))
      }),
      Deferred.await(stopped)
    ).pipe(Effect.ensuring(Effect.sync(() => {
      if (forms.delete(form)) markSettled()
    })))
  })

/** The `action` of a client's result, or `undefined` when the result is not a JSON object. */
const actionOf = (response: unknown): unknown =>
  typeof response === "object" && response !== null && !Array.isArray(response)
    ? (response as { readonly action?: unknown }).action
    : undefined

/** The client's own words for ending a form (`_meta.message`), when it gave any. */
export const clientReason = (response: unknown): string | undefined => {
  const meta = typeof response === "object" && response !== null ? (response as { readonly _meta?: unknown })._meta : undefined
  const message = typeof meta === "object" && meta !== null ? (meta as { readonly message?: unknown }).message : undefined
  return typeof message === "string" && message.trim() !== "" ? message : undefined
}

/**
 * The client's response as the seam sees it: accept → the answer read from
 * the form (validated); decline → `AskDeclined`; cancel or any other action →
 * `AskCancelled`; a result that is not a response at all (not a JSON object,
 * or no action named) → `ProviderFailed`. The client's reason
 * (`_meta.message`) is kept in the error's message.
 */
export const outcomeOf = (
  request: AskUserQuestionRequest,
  response: unknown
): Effect.Effect<AskUserQuestionAnswer, InvalidAnswer | AskDeclined | AskCancelled | ProviderFailed> =>
  byAction(response, "form", (content) => {
    const answer = fromElicitationContent(request, content)
    return Result.isSuccess(answer) ? Effect.succeed(markChecked(answer.success, request)) : Effect.fail(answer.failure)
  })

/**
 * The client's response to a URL-mode elicitation: accept says the human
 * went to the secret page (the value comes from the page, so any content is
 * ignored); the other actions end the ask as they do for a form.
 */
export const urlOutcomeOf = (response: unknown): Effect.Effect<void, AskDeclined | AskCancelled | ProviderFailed> =>
  byAction(response, "secret page link", () => Effect.void)

/** A response by its action: `accept` with its content, the others to the seam's errors, naming `what` was answered. */
const byAction = <A, E>(
  response: unknown,
  what: string,
  accept: (content: unknown) => Effect.Effect<A, E>
): Effect.Effect<A, E | AskDeclined | AskCancelled | ProviderFailed> => {
  const action = actionOf(response)
  if (typeof action !== "string") {
    return Effect.fail(new ProviderFailed({
      message: `The ACP client's elicitation result is not a response with an action: ${describeResult(response)}.`,
      cause: response
    }))
  }
  const { content } = response as { readonly content?: unknown }
  const reason = clientReason(response)
  const because = reason === undefined ? "" : `: ${reason}`
  switch (action) {
    case "accept":
      return accept(content)
    case "decline":
      return Effect.fail(new AskDeclined({
        message: reason === undefined ? `The human declined the ACP ${what}.` : `The ACP client declined the ${what}: ${reason}`
      }))
    case "cancel":
      return Effect.fail(new AskCancelled({
        message: reason === undefined ? `The human cancelled the ACP ${what}.` : `The ACP client cancelled the ${what}: ${reason}`
      }))
    default:
      return Effect.fail(new AskCancelled({
        message: `The ACP client ended the ${what} with the unknown action ${JSON.stringify(action)}${because}.`
      }))
  }
}

/** What a malformed result was, in a few words (the result itself stays in the error's `cause`). */
const describeResult = (response: unknown): string =>
  response === null ? "null" : Array.isArray(response) ? "an array" : typeof response === "object" ? "an object without a string action" : typeof response
