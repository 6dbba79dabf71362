/**
 * The vocabulary of the seam: what an agent asks and what the human answers.
 *
 * Each shape is an Effect `Schema` and a type of the same name. These are pure
 * data; the rules that relate an answer to its request live in `AnswerRules`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * One choice offered for a question. The label is shown to the human and is
 * what comes back to the model when chosen.
 *
 * @since 0.1.0
 */
export const AskUserQuestionOption = Schema.Struct({
  label: Schema.NonEmptyString,
  description: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AskUserQuestionOption" })

/** @since 0.1.0 */
export type AskUserQuestionOption = typeof AskUserQuestionOption.Type

/**
 * One question. Without `options` it is answered with free text; with
 * `multiSelect` several options may be chosen.
 *
 * @since 0.1.0
 */
export const AskUserQuestionItem = Schema.Struct({
  id: Schema.NonEmptyString,
  question: Schema.NonEmptyString,
  header: Schema.optionalKey(Schema.String),
  options: Schema.optionalKey(Schema.Array(AskUserQuestionOption)),
  multiSelect: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "AskUserQuestionItem" })

/** @since 0.1.0 */
export type AskUserQuestionItem = typeof AskUserQuestionItem.Type

/**
 * Who is asking. Providers may show the name; multi-session providers (ACP)
 * route by the id.
 *
 * @since 0.1.0
 */
export const Agent = Schema.Struct({
  id: Schema.String,
  name: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Agent" })

/** @since 0.1.0 */
export type Agent = typeof Agent.Type

/**
 * A batch of questions asked together. `signal` lets a Promise-world caller
 * abort the ask; it is never serialized. `id` is the ask's identity (at most
 * 200 characters): the durable provider joins a pending ask of the same id and
 * events report it; every other provider ignores it.
 *
 * @since 0.1.0
 */
export const AskUserQuestionRequest = Schema.Struct({
  questions: Schema.Array(AskUserQuestionItem),
  agent: Schema.optionalKey(Agent),
  signal: Schema.optionalKey(Schema.instanceOf(AbortSignal)),
  id: Schema.optionalKey(Schema.NonEmptyString.check(Schema.isMaxLength(200)))
}).annotate({ identifier: "AskUserQuestionRequest" })

/** @since 0.1.0 */
export type AskUserQuestionRequest = typeof AskUserQuestionRequest.Type

/**
 * The answer to one question: chosen labels, or free text in `custom`.
 * `selected: []` without `custom` is an explicit skip.
 *
 * @since 0.1.0
 */
export const AskUserQuestionAnswerItem = Schema.Struct({
  id: Schema.String,
  selected: Schema.Array(Schema.String),
  custom: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AskUserQuestionAnswerItem" })

/** @since 0.1.0 */
export type AskUserQuestionAnswerItem = typeof AskUserQuestionAnswerItem.Type

/**
 * The answers to a request, one item per question, in question order.
 *
 * @since 0.1.0
 */
export const AskUserQuestionAnswer = Schema.Struct({
  answers: Schema.Array(AskUserQuestionAnswerItem)
}).annotate({ identifier: "AskUserQuestionAnswer" })

/** @since 0.1.0 */
export type AskUserQuestionAnswer = typeof AskUserQuestionAnswer.Type
