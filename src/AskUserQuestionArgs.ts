/**
 * The request as JSON from outside the process: a model's tool arguments, an
 * `ask-user` input file, an ACP prompt, an MCP tool call. Outside names are
 * snake case (`multi_select`, `on_timeout`); `multiSelect` and `onTimeout`
 * are accepted too.
 *
 * @since 0.1.0
 */
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import { AnswerablePattern } from "./Answerer.js"
import {
  Agent,
  type AskUserQuestionItem,
  AskUserQuestionOption,
  type AskUserQuestionRequest,
  OnTimeout
} from "./AskUserQuestion.js"
import { checkRequest } from "./AskValidation.js"
import { isQuestionConsistent, isTimeoutText } from "./internal/requestRules.js"
import { invalidRequestFrom } from "./internal/schemaPath.js"
import { type EmptyQuestions, InvalidRequest } from "./UserInteractionError.js"

const questionFields = {
  id: Schema.NonEmptyString.annotate({ description: "Stable snake_case id; the answer for this question carries it." }),
  question: Schema.NonEmptyString.annotate({ description: "The question, short and self-contained." }),
  header: Schema.optionalKey(Schema.String.annotate({ description: "A very short tag shown above the question." })),
  options: Schema.optionalKey(
    Schema.Array(AskUserQuestionOption).annotate({
      description: "Choices; omit for a free-text question. The UI always offers free text too."
    })
  ),
  multi_select: Schema.optionalKey(Schema.Boolean.annotate({ description: "Allow several options (default false)." })),
  secret: Schema.optionalKey(Schema.Boolean.annotate({
    description: "A free-text question whose answer you must not see (a password, a token): the human types it " +
      "masked, and you get \"received\" instead of the text. Only for questions without options."
  }))
}

const requestFields = {
  // Described before it is checked: a description given after the check would be the check's, not the field's.
  timeout: Schema.optionalKey(Schema.String.annotate({
    description: "How long to wait for the answer (\"30s\", \"5m\", \"1h\"); the harness may allow less."
  }).check(isTimeoutText)),
  on_timeout: Schema.optionalKey(OnTimeout.annotate({
    description: "When the time runs out: \"fail\" (default; nothing is agreed to) or \"recommended\" (take each " +
      "question's recommended option, skip the rest; the result then says \"defaulted\": true)."
  }))
}

/**
 * The arguments a model sends: `{ questions, timeout?, on_timeout? }`. This
 * is the schema the model is shown (its JSON Schema is generated from it).
 *
 * @since 0.1.0
 */
export const AskUserQuestionArgs = Schema.Struct({
  questions: Schema.Array(Schema.Struct(questionFields).check(isQuestionConsistent)).annotate({
    description: "The questions, asked together."
  }),
  ...requestFields
})

/** @since 0.1.0 */
export type AskUserQuestionArgs = typeof AskUserQuestionArgs.Type

const LenientRequestJson = Schema.Struct({
  questions: Schema.Array(
    Schema.Struct({ ...questionFields, multiSelect: Schema.optionalKey(Schema.Boolean) }).check(isQuestionConsistent)
  ),
  agent: Schema.optionalKey(Agent),
  ...requestFields,
  onTimeout: Schema.optionalKey(OnTimeout),
  // Who may answer: set by whoever writes the request file or prompt, never by a model's tool
  // arguments (the tool takes only what a model may set from them).
  answerableBy: Schema.optionalKey(Schema.Array(AnswerablePattern))
})
// Decoded for every tool call, ACP prompt and MCP call: compiled like the seam's schemas (AskValidation.ts).
SchemaJITCompiler.enable(LenientRequestJson.ast)
const decodeLenient = Schema.decodeUnknownExit(LenientRequestJson)

const disagree = (path: string, other: string) =>
  Result.fail(new InvalidRequest({ message: `Invalid request: ${path}: disagrees with ${other}` }))

/**
 * Decodes a request from outside JSON (`{ questions, agent?, timeout?,
 * on_timeout?, answerableBy? }`, either casing of `multi_select` and
 * `on_timeout`) and applies the seam's request checks: `InvalidRequest`
 * naming the path (also when the two casings of a field disagree), or
 * `EmptyQuestions`.
 *
 * @since 0.1.0
 */
export const decodeRequestJson = (
  input: unknown
): Result.Result<AskUserQuestionRequest, InvalidRequest | EmptyQuestions> => {
  const exit = decodeLenient(input)
  if (Exit.isFailure(exit)) return Result.fail(invalidRequestFrom(exit))
  const { agent, answerableBy, on_timeout, onTimeout, timeout } = exit.value
  const clash = exit.value.questions.findIndex(({ multiSelect, multi_select }) =>
    multiSelect !== undefined && multi_select !== undefined && multiSelect !== multi_select
  )
  if (clash >= 0) return disagree(`questions[${clash}].multi_select`, "multiSelect")
  if (on_timeout !== undefined && onTimeout !== undefined && on_timeout !== onTimeout) {
    return disagree("on_timeout", "onTimeout")
  }
  const questions = exit.value.questions.map(({ multiSelect, multi_select, ...rest }): AskUserQuestionItem => {
    const multi = multi_select ?? multiSelect
    return multi === undefined ? rest : { ...rest, multiSelect: multi }
  })
  const whenOut = on_timeout ?? onTimeout
  // Optional keys are left out rather than set to undefined: the request reads as the caller wrote it.
  const request: { -readonly [K in keyof AskUserQuestionRequest]: AskUserQuestionRequest[K] } = { questions }
  if (agent !== undefined) request.agent = agent
  if (timeout !== undefined) request.timeout = timeout
  if (whenOut !== undefined) request.onTimeout = whenOut
  if (answerableBy !== undefined) request.answerableBy = answerableBy
  return checkRequest(request)
}
