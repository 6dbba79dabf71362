/**
 * One MCP form elicitation for one request: which form a client gets (by the
 * protocol revision it speaks), the 2025-era push call on the SDK's `Server`,
 * and the mapping of the client's reply to the seam's answer or errors, with
 * failure messages short enough for a model to read.
 *
 * @internal
 */
import {
  type ClientCapabilities,
  type ElicitRequestFormParams,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
  type StandardSchemaV1
} from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { fromElicitationContent, toElicitationForm } from "../ElicitationForm.js"
import { brief } from "../internal/brief.js"
import type { UrlElicitation } from "../internal/secretAsk.js"
import { markChecked } from "../internal/wellFormed.js"
import {
  AskCancelled,
  AskDeclined,
  InvalidAnswer,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"
import { fromContent20250618, toForm20250618 } from "./form20250618.js"
import type { ElicitReply } from "./McpToolCall.js"

/**
 * The SDK arms a timer on every request (60 s by default). A human may take
 * longer, and only the seam's `timeout` may end an ask, so the SDK gets the
 * largest delay a Node.js timer accepts (about 24.8 days): a larger value
 * would overflow to 1 ms.
 */
export const sdkRequestTimeoutMillis = 2_147_483_647

/**
 * What a client's or the SDK's error message says, without the validator
 * dump it may carry (zod issues as multi-kilobyte JSON): the text before the
 * dump, then the first issue's message and where it points. The model needs
 * the cause, not the dump.
 */
export const causeOf = (text: string): string => {
  const dump = text.search(/[[{]\s*[[{"]/)
  if (dump < 0) return text
  const head = text.slice(0, dump).trim().replace(/:$/, "")
  const issue = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text.slice(dump))?.[1]
  const path = /"path"\s*:\s*\[([^\]]*)\]/.exec(text.slice(dump))?.[1]?.replace(/[\s"]/g, "").replace(/,/g, ".")
  if (issue === undefined) return head
  const where = path === undefined || path === "" ? "" : ` at ${path}`
  return head === "" ? `${issue}${where}` : `${head}: ${issue}${where}`
}

/**
 * Why a client with these capabilities cannot be shown a form, or
 * `undefined` when it can: `form` present, or a bare `{}` (MCP's spelling
 * before modes existed) is form support; URL mode alone is not.
 */
export const missingFormSupport = (capabilities: ClientCapabilities | undefined): ProviderFailed | undefined => {
  const elicitation = capabilities?.elicitation
  if (elicitation === undefined || elicitation === null) {
    return new ProviderFailed({
      message: "The MCP client cannot show forms: it did not advertise capabilities.elicitation."
    })
  }
  if (elicitation.form !== undefined || Object.keys(elicitation).length === 0) return undefined
  return new ProviderFailed({
    message: elicitation.url !== undefined
      ? "The MCP client supports only URL-mode elicitation, not the form elicitation this question needs."
      : "The MCP client cannot show forms: its capabilities.elicitation does not include form."
  })
}

/**
 * Why a client with these capabilities, speaking `protocolVersion` (when
 * known), cannot be sent a URL-mode elicitation for a secret question, or
 * `undefined` when it can: URL mode came in 2025-11-25, and the client must
 * declare `capabilities.elicitation.url`.
 */
export const missingUrlSupport = (
  capabilities: ClientCapabilities | undefined,
  protocolVersion: string | undefined,
  request: AskUserQuestionRequest
): ProviderFailed | undefined => {
  const secret = request.questions.find((question) => question.secret === true)
  if (secret === undefined) return undefined
  const why = protocolVersion !== undefined && protocolVersion < "2025-11-25"
    ? `it speaks MCP ${protocolVersion}, which has no URL-mode elicitation`
    : capabilities?.elicitation?.url === undefined || capabilities.elicitation.url === null
    ? "it did not advertise capabilities.elicitation.url"
    : undefined
  return why === undefined ? undefined : new ProviderFailed({
    message: `The question "${secret.id}" is secret and needs a secret page, but the MCP client cannot open one: ${why}; nothing was sent.`
  })
}

/**
 * Why `request` cannot be asked of a client with these capabilities, or
 * `undefined` when it can: its questions that are not secret need form
 * elicitation, its secret questions URL mode.
 */
export const missingSupport = (
  capabilities: ClientCapabilities | undefined,
  protocolVersion: string | undefined,
  request: AskUserQuestionRequest
): ProviderFailed | undefined =>
  (request.questions.some((question) => question.secret !== true) ? missingFormSupport(capabilities) : undefined) ??
    missingUrlSupport(capabilities, protocolVersion, request)

/** A form as it goes on the wire, with the way back from its content to an answer. */
export interface WireForm {
  readonly params: ElicitRequestFormParams
  readonly read: (request: AskUserQuestionRequest, content: unknown) => Result.Result<AskUserQuestionAnswer, InvalidAnswer>
}

/** The shared form (2025-11-25 and 2026-07-28: titled `oneOf`, `items.anyOf`, `mode: "form"`). */
export const currentForm = (request: AskUserQuestionRequest): WireForm => ({
  params: { mode: "form", ...toElicitationForm(request) },
  read: fromElicitationContent
})

/** The 2025-06-18 form (`enum` + `enumNames`, one checkbox per option, no `mode`). */
export const form20250618 = (request: AskUserQuestionRequest): WireForm => ({
  params: toForm20250618(request) as ElicitRequestFormParams,
  read: fromContent20250618
})

/**
 * The form a client speaking `protocolVersion` understands: revisions before
 * 2025-11-25 (elicitation came in 2025-06-18) get that revision's schema.
 * Revision names are ISO dates, so they compare as strings.
 */
export const formFor = (request: AskUserQuestionRequest, protocolVersion: string | undefined): WireForm =>
  protocolVersion !== undefined && protocolVersion < "2025-11-25" ? form20250618(request) : currentForm(request)

/**
 * Whether `server`'s client speaks the 2026-07-28 revision or a later one,
 * where servers send no requests and so never wait for a reply. Revision
 * names are ISO dates.
 */
export const servesModernEra = (server: Server): boolean => (server.getNegotiatedProtocolVersion() ?? "") >= "2026-07-28"

/** Maps the client's reply to the answer, or to the seam's error for decline and cancel. */
export const fromElicitResult = (
  request: AskUserQuestionRequest,
  form: WireForm,
  result: ElicitReply
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
  switch (result.action) {
    case "accept": {
      const answer = form.read(request, result.content ?? {})
      return Result.isSuccess(answer) ? Effect.succeed(markChecked(answer.success, request)) : Effect.fail(answer.failure)
    }
    case "decline":
      return Effect.fail(new AskDeclined({ message: "The human declined to answer in the MCP client." }))
    default:
      return Effect.fail(new AskCancelled({ message: "The human cancelled the MCP client's form." }))
  }
}

/**
 * Maps the client's reply to a URL-mode elicitation: accept says the human
 * went to the secret page (the value comes from the page, so any content is
 * ignored); decline and cancel end the ask as they do for a form.
 */
export const fromUrlReply = (result: ElicitReply): Effect.Effect<void, AskDeclined | AskCancelled> => {
  switch (result.action) {
    case "accept":
      return Effect.void
    case "decline":
      return Effect.fail(new AskDeclined({ message: "The human declined to give the secret in the MCP client." }))
    default:
      return Effect.fail(new AskCancelled({ message: "The human dismissed the MCP client's link to the secret page." }))
  }
}

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * A client SDK's own check of the reply its form produced (the official
 * TypeScript SDK's "Invalid elicitation result"), as opposed to a refusal of
 * the form we sent: the human's accepted content broke the form. Other
 * clients' wording is not known, and their -32602 stays a refused form.
 */
const refusesItsOwnResult = (error: ProtocolError): boolean => /elicitation result/i.test(error.message)

/**
 * A failed elicitation in words: the connection going away, the client
 * refusing the form, or its form failing, each with at most a short excerpt
 * of what the client said (`cause` keeps all of it); or, when the client's
 * own SDK refused the content its form produced, `InvalidAnswer`.
 */
export const elicitationFailure = (error: unknown): ProviderFailed | InvalidAnswer => {
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return new ProviderFailed({ message: "The MCP client went away before answering the form.", cause: error })
  }
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams && refusesItsOwnResult(error)) {
    return new InvalidAnswer({
      message: brief(`The MCP client refused the answer given in its form: ${causeOf(messageOf(error))}`, 160),
      cause: error
    })
  }
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
    return new ProviderFailed({
      message: brief(`The MCP client rejected the form as invalid: ${causeOf(messageOf(error))}`, 160),
      cause: error
    })
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    return new ProviderFailed({
      message: brief(`The MCP client's reply to the form is malformed: ${causeOf(messageOf(error))}`, 160),
      cause: error
    })
  }
  return new ProviderFailed({
    message: brief(`The MCP client's form failed: ${causeOf(messageOf(error))}`, 160),
    cause: error
  })
}

const ElicitReplyFields = Schema.Struct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optionalKey(Schema.Unknown)
})
// Checked for every 2025-era reply: compiled to a plain function, like the seam's schemas.
SchemaJITCompiler.enable(ElicitReplyFields.ast)
const decodeElicitReply = Schema.decodeUnknownExit(ElicitReplyFields)
const standardIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * The reply to `elicitation/create` as the server takes it: a known action,
 * and content of any shape. The SDK's own result schema would refuse content
 * of the wrong shape as a failed request (`PROVIDER_FAILED`, with a zod
 * dump); the form's reader refuses it as `InvalidAnswer`, naming the field,
 * as on 2026-07-28 where the reply arrives in a retry.
 *
 * A Standard Schema of our own around the compiled decoder, with the issues
 * `Schema.toStandardSchemaV1` reports: that one runs a fiber on a scheduler
 * of its own for every value.
 */
const ElicitReplySchema: StandardSchemaV1<unknown, ElicitReply> = {
  "~standard": {
    version: 1,
    // Ours, not Effect's: it has none of the JSON Schema extras a vendor check might expect.
    vendor: "effect-user-interaction",
    validate: (value) => {
      const exit = decodeElicitReply(value, { errors: "all" })
      if (Exit.isSuccess(exit)) return { value: exit.value }
      const error = Cause.findErrorOption(exit.cause)
      if (error._tag === "Some") return standardIssues(error.value.issue)
      throw Cause.squash(exit.cause)
    }
  }
}

/**
 * Sends the request's form as an `elicitation/create` request (the 2025-era
 * push path) and waits for the human. Interruption aborts the SDK request,
 * which puts `notifications/cancelled` on the wire. `relatedRequestId` ties
 * the elicitation to the request it serves (the `tools/call`), for
 * transports that route by it.
 *
 * The request goes through `Server.request` rather than `elicitInput`:
 * `elicitInput` refuses a bare `capabilities.elicitation: {}` (which MCP
 * reads as form support) and checks accepted content against the schema
 * itself, refusing an empty choice whose "Other" field is filled in before
 * the answer rules see it.
 */
export const pushElicitation = (
  server: Server,
  request: AskUserQuestionRequest,
  relatedRequestId: RequestId | undefined
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
  const form = formFor(request, server.getNegotiatedProtocolVersion())
  return Effect.tryPromise({
    try: (signal) =>
      server.request(
        { method: "elicitation/create", params: form.params },
        ElicitReplySchema,
        relatedRequestId === undefined
          ? { signal, timeout: sdkRequestTimeoutMillis }
          : { signal, timeout: sdkRequestTimeoutMillis, relatedRequestId }
      ),
    catch: elicitationFailure
  }).pipe(Effect.flatMap((result) => fromElicitResult(request, form, result)))
}

/**
 * Sends a URL-mode `elicitation/create` pointing at a secret page (the
 * 2025-11-25 push path) and waits for the client's reply: accept, or the
 * failure a form would end with. Interruption aborts the request, which
 * puts `notifications/cancelled` on the wire.
 */
export const pushUrlElicitation = (
  server: Server,
  elicitation: UrlElicitation,
  relatedRequestId: RequestId | undefined
): Effect.Effect<void, UserInteractionError> =>
  Effect.tryPromise({
    try: (signal) =>
      server.request(
        { method: "elicitation/create", params: { mode: "url", ...elicitation } },
        ElicitReplySchema,
        relatedRequestId === undefined
          ? { signal, timeout: sdkRequestTimeoutMillis }
          : { signal, timeout: sdkRequestTimeoutMillis, relatedRequestId }
      ),
    catch: elicitationFailure
  }).pipe(Effect.flatMap(fromUrlReply))

/**
 * Tells a 2025-11-25 client that the secret page of `elicitation` has its
 * answer (`notifications/elicitation/complete`), so it can stop waiting on
 * the human. Not awaited for anything: a notification that cannot be sent
 * changes nothing about the answer.
 */
export const notifyCompleted = (
  server: Server,
  elicitation: UrlElicitation,
  relatedRequestId: RequestId | undefined
): Effect.Effect<void> =>
  Effect.sync(() => {
    server.notification(
      { method: "notifications/elicitation/complete", params: { elicitationId: elicitation.elicitationId } },
      relatedRequestId === undefined ? undefined : { relatedRequestId }
    ).catch(() => undefined)
  })

/**
 * Sends a ping, once before the first 2025-era elicitation, and does not
 * wait for it: SDK 1.32.2 clients ignore `notifications/cancelled` for
 * request id 0 (a falsy check), and a server's first request gets id 0. The
 * SDK numbers a request synchronously when it is sent, so the ping has taken
 * that id when this returns. Its reply does not matter: a client that
 * answers it with an error, or not at all, can still answer forms, and the
 * ask must not wait for it (`signal` ends it with the provider).
 */
export const sendPing = (server: Server, signal: AbortSignal): void => {
  server.request({ method: "ping" }, { signal }).catch(() => undefined)
}
