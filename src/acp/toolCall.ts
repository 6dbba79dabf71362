/**
 * An ask as the ACP tool call a client shows: the `tool_call` update that
 * announces it (status `pending`, titled by the question) and the
 * `tool_call_update` that ends it (`completed` with the answer JSON, or
 * `failed` with the error's `{name, code, message}`). Pure data.
 *
 * @internal
 */
import type * as acp from "@agentclientprotocol/sdk"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { briefFailure } from "../internal/brief.js"
import { modelJson } from "../internal/secrets.js"
import type { HarnessError } from "../UserInteractionError.js"

/** The tool's name, as the model-facing tool is called. */
const toolName = "ask_user_question"

/** Clients show titles on one line; longer question text is cut. */
const maxTitle = 120

/** The first question's header, else its text; `(+N more)` when the request holds more. */
export const toolCallTitle = (request: AskUserQuestionRequest): string => {
  const first = request.questions[0]
  const headline = (first?.header?.trim() || first?.question.trim() || "Question").replace(/\s+/g, " ")
  const cut = headline.length > maxTitle ? `${headline.slice(0, maxTitle - 1)}…` : headline
  const more = request.questions.length - 1
  return more > 0 ? `${cut} (+${more} more)` : cut
}

/** The `tool_call` update announcing the ask, sent before its form. */
export const toolCallStarted = (request: AskUserQuestionRequest, toolCallId: string): acp.SessionUpdate => ({
  sessionUpdate: "tool_call",
  toolCallId,
  title: toolCallTitle(request),
  name: toolName,
  kind: "other",
  status: "pending",
  rawInput: request.agent === undefined ? { questions: request.questions } : { questions: request.questions, agent: request.agent }
})

const text = (value: unknown): Array<acp.ToolCallContent> => [
  { type: "content", content: { type: "text", text: JSON.stringify(value) } }
]

/** The `tool_call_update` ending the ask: `completed` with the answer, or `failed` with the error. */
export const toolCallFinished = (
  toolCallId: string,
  outcome: { readonly answer: AskUserQuestionAnswer } | { readonly error: HarnessError }
): acp.SessionUpdate => {
  if ("answer" in outcome) {
    // As a model reads it: a secret answer says "received", never its value (nor "<redacted>").
    const shown = modelJson(outcome.answer)
    return { sessionUpdate: "tool_call_update", toolCallId, status: "completed", content: text(shown), rawOutput: shown }
  }
  const failure = briefFailure(outcome.error)
  return { sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: text(failure), rawOutput: failure }
}
