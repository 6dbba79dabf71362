/**
 * One MCP form elicitation for one request: the wire call on the SDK's
 * `Server` and the mapping of its outcomes to the seam's answer or errors.
 *
 * @internal
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ErrorCode, type ElicitResult, McpError, type RequestId } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Result } from "effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { fromElicitationContent, toElicitationForm } from "../ElicitationForm.js"
import {
  AskCancelled,
  AskDeclined,
  InvalidAnswer,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"

/**
 * The SDK arms a timer on every request (60 s by default). A human may take
 * longer, and only the seam's `timeout` may end an ask, so the SDK gets the
 * largest delay a Node.js timer accepts (about 24.8 days): a larger value
 * would overflow to 1 ms.
 */
export const sdkRequestTimeoutMillis = 2_147_483_647

/** True when the client advertised form elicitation (`{}` is the older spelling of `{ form: {} }`). */
export const supportsFormElicitation = (server: Server): boolean => {
  const elicitation = server.getClientCapabilities()?.elicitation
  if (elicitation === undefined || elicitation === null) return false
  return elicitation.form !== undefined || Object.keys(elicitation).length === 0
}

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * The SDK checks accepted content against the form's schema itself and
 * rejects with `InvalidParams` (-32602); that is the human's answer breaking
 * the form, not the transport failing.
 */
const elicitationFailure = (error: unknown): UserInteractionError =>
  error instanceof McpError && error.code === ErrorCode.InvalidParams
    ? new InvalidAnswer({ message: `The MCP client's answer does not fit the form: ${error.message}`, cause: error })
    : new ProviderFailed({ message: `The MCP elicitation failed: ${messageOf(error)}`, cause: error })

/** Maps the client's reply to the answer, or to the seam's error for decline and cancel. */
export const fromElicitResult = (
  request: AskUserQuestionRequest,
  result: ElicitResult
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
  switch (result.action) {
    case "accept": {
      const answer = fromElicitationContent(request, result.content ?? {})
      return Result.isSuccess(answer) ? Effect.succeed(answer.success) : Effect.fail(answer.failure)
    }
    case "decline":
      return Effect.fail(new AskDeclined({ message: "The human declined to answer in the MCP client." }))
    default:
      return Effect.fail(new AskCancelled({ message: "The human cancelled the MCP client's form." }))
  }
}

/**
 * Sends the request's form and waits for the human. Interruption aborts the
 * SDK request, which puts `notifications/cancelled` on the wire.
 * `relatedRequestId` ties the elicitation to the request it serves (the
 * `tools/call`), for transports that route by it.
 */
export const elicit = (
  server: Server,
  request: AskUserQuestionRequest,
  relatedRequestId: RequestId | undefined
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> =>
  Effect.tryPromise({
    try: (signal) =>
      server.elicitInput(
        { mode: "form", ...toElicitationForm(request) },
        relatedRequestId === undefined
          ? { signal, timeout: sdkRequestTimeoutMillis }
          : { signal, timeout: sdkRequestTimeoutMillis, relatedRequestId }
      ),
    catch: elicitationFailure
  }).pipe(Effect.flatMap((result) => fromElicitResult(request, result)))

/**
 * Sends a ping and waits for its reply. Sent once before the first
 * elicitation: SDK 1.32.2 ignores `notifications/cancelled` for request id 0
 * (a falsy check), and a server's first request gets id 0; the ping takes
 * that id, so every elicitation can be cancelled. The SDK numbers a request
 * synchronously when it is sent, so the id is taken when this function is
 * called, not when the returned effect runs.
 */
export const pingNow = (server: Server): Effect.Effect<void, ProviderFailed> => {
  const reply = server.ping()
  // Observed below; this only keeps an interruption before then from leaving an unhandled rejection.
  reply.catch(() => undefined)
  return Effect.tryPromise({
    try: () => reply,
    catch: (error) => new ProviderFailed({ message: `The MCP client did not answer a ping: ${messageOf(error)}`, cause: error })
  }).pipe(Effect.asVoid)
}
