/**
 * The request as JSON from outside the process: a model's tool arguments, an
 * `ask-user` input file, an ACP prompt, an MCP tool call. Outside names are
 * snake case (`multi_select`); `multiSelect` is accepted too.
 *
 * @since 0.1.0
 */
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import { AnswerablePattern } from "./Answerer.js"
import { Agent, AskUserQuestionOption, type AskUserQuestionItem, type AskUserQuestionRequest } from "./AskUserQuestion.js"
import { checkRequest } from "./AskValidation.js"
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
  multi_select: Schema.optionalKey(Schema.Boolean.annotate({ description: "Allow several options (default false)." }))
}

/**
 * The arguments a model sends: `{ questions }`. This is the schema the model
 * is shown (its JSON Schema is generated from it).
 *
 * @since 0.1.0
 */
export const AskUserQuestionArgs = Schema.Struct({
  questions: Schema.Array(Schema.Struct(questionFields)).annotate({ description: "The questions, asked together." })
})

/** @since 0.1.0 */
export type AskUserQuestionArgs = typeof AskUserQuestionArgs.Type

const LenientRequestJson = Schema.Struct({
  questions: Schema.Array(Schema.Struct({ ...questionFields, multiSelect: Schema.optionalKey(Schema.Boolean) })),
  agent: Schema.optionalKey(Agent),
  // Who may answer: set by whoever writes the request file or prompt, never by a model's tool
  // arguments (the tool takes only `questions` from them).
  answerableBy: Schema.optionalKey(Schema.Array(AnswerablePattern))
})
// Decoded for every tool call, ACP prompt and MCP call: compiled like the seam's schemas (AskValidation.ts).
SchemaJITCompiler.enable(LenientRequestJson.ast)
const decodeLenient = Schema.decodeUnknownExit(LenientRequestJson)

/**
 * Decodes a request from outside JSON (`{ questions, agent?, answerableBy? }`, either casing
 * of `multi_select`) and applies the seam's request checks: `InvalidRequest`
 * naming the path (also when `multi_select` and `multiSelect` disagree), or
 * `EmptyQuestions`.
 *
 * @since 0.1.0
 */
export const decodeRequestJson = (
  input: unknown
): Result.Result<AskUserQuestionRequest, InvalidRequest | EmptyQuestions> => {
  const exit = decodeLenient(input)
  if (Exit.isFailure(exit)) return Result.fail(invalidRequestFrom(exit))
  const clash = exit.value.questions.findIndex(({ multiSelect, multi_select }) =>
    multiSelect !== undefined && multi_select !== undefined && multiSelect !== multi_select
  )
  if (clash >= 0) {
    return Result.fail(new InvalidRequest({
      message: `Invalid request: questions[${clash}].multi_select: disagrees with multiSelect`
    }))
  }
  const questions = exit.value.questions.map(({ multiSelect, multi_select, ...rest }): AskUserQuestionItem => {
    const multi = multi_select ?? multiSelect
    return multi === undefined ? rest : { ...rest, multiSelect: multi }
  })
  const { agent, answerableBy } = exit.value
  return checkRequest({
    questions,
    ...(agent === undefined ? {} : { agent }),
    ...(answerableBy === undefined ? {} : { answerableBy })
  })
}
