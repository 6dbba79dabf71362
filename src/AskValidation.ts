/**
 * The checks the seam applies around every ask: decoding the request (with the
 * contract's path-naming messages) and holding a provider's answer to the
 * answer rules. Pure functions, shared by the seam and by providers that must
 * judge an answer themselves (the web provider's 422, for example).
 *
 * @since 0.1.0
 */
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import {
  AskUserQuestionAnswer,
  type AskUserQuestionAnswerItem,
  AskUserQuestionRequest
} from "./AskUserQuestion.js"
import { type Answerer, answererTitle, isAnswerableBy } from "./Answerer.js"
import { recommendedAnswer } from "./internal/onTimeout.js"
import { firstError, formatIssue, invalidRequestFrom } from "./internal/schemaPath.js"
import { wrapSecrets } from "./internal/secrets.js"
import { EmptyQuestions, InvalidAnswer, InvalidRequest, NotAuthorized } from "./UserInteractionError.js"

// Every ask decodes a request and an answer: Effect's schema JIT turns these two into plain
// functions on first use (4–8× faster, the same results and issues; it keeps interpreting where
// `new Function` is not allowed). Enabled before the decoders below capture their parsers.
SchemaJITCompiler.enable(AskUserQuestionRequest.ast)
SchemaJITCompiler.enable(AskUserQuestionAnswer.ast)

const decodeRequestExit = Schema.decodeUnknownExit(AskUserQuestionRequest)
const decodeAnswerExit = Schema.decodeUnknownExit(AskUserQuestionAnswer)



/**
 * Decodes and checks a request: `InvalidRequest` (naming the path) when it does
 * not decode or repeats a question id or an option label, `EmptyQuestions`
 * when it has no questions.
 *
 * @since 0.1.0
 */
export const decodeRequest = (
  input: unknown
): Result.Result<AskUserQuestionRequest, InvalidRequest | EmptyQuestions> => {
  const exit = decodeRequestExit(input)
  if (Exit.isFailure(exit)) return Result.fail(invalidRequestFrom(exit))
  return checkRequest(exit.value)
}

/**
 * The checks a well-formed request must still pass: `EmptyQuestions` for no
 * questions, `InvalidRequest` for a question text that is empty or only white space,
 * a repeated question id or a repeated option label.
 *
 * @since 0.1.0
 */
export const checkRequest = (
  request: AskUserQuestionRequest
): Result.Result<AskUserQuestionRequest, InvalidRequest | EmptyQuestions> => {
  if (request.questions.length === 0) return Result.fail(new EmptyQuestions())
  const ids = new Set<string>()
  for (let q = 0; q < request.questions.length; q++) {
    const question = request.questions[q]!
    if (question.question.trim() === "") {
      return Result.fail(new InvalidRequest({
        message: `Invalid request: questions[${q}].question: ${question.question === "" ? "is empty" : "is only white space"}`
      }))
    }
    if (ids.has(question.id)) {
      return Result.fail(new InvalidRequest({
        message: `Invalid request: questions[${q}].id: repeats the question id "${question.id}"`
      }))
    }
    ids.add(question.id)
    const options = question.options
    if (options === undefined || options.length < 2) continue
    const labels = new Set<string>()
    for (let o = 0; o < options.length; o++) {
      const label = options[o]!.label
      if (labels.has(label)) {
        return Result.fail(new InvalidRequest({
          message: `Invalid request: questions[${q}].options[${o}].label: repeats the label "${label}"`
        }))
      }
      labels.add(label)
    }
  }
  return Result.succeed(request)
}

const isBlank = (s: string | undefined): s is undefined => s === undefined || s.trim() === ""

const broken = (reason: string) =>
  Result.fail(new InvalidAnswer({ message: `The answer breaks the answer rules: ${reason}.` }))

/** The first id answered that is no question's, if any. */
const unknownId = (
  questions: ReadonlyArray<{ readonly id: string }>,
  answered: ReadonlyMap<string, unknown>
): string | undefined => {
  const known = new Set(questions.map((q) => q.id))
  return [...answered.keys()].find((id) => !known.has(id))
}

/**
 * Holds an answer to the answer rules of its request and returns it
 * normalized: one item per question, in question order, blank `custom` and
 * empty `secret` dropped. A secret question's answer comes out as `secret`
 * only (given as a `Redacted`, or as a plain string from JSON, or as
 * `custom` text from a provider that knows nothing of secrets: each is
 * wrapped); `secret` on any other question breaks the rules. A `defaulted`
 * answer must be exactly the request's recommended options.
 * Anything else is `InvalidAnswer` saying which rule broke (never quoting a
 * secret).
 *
 * @since 0.1.0
 */
export const checkAnswer = (
  request: AskUserQuestionRequest,
  answer: unknown
): Result.Result<AskUserQuestionAnswer, InvalidAnswer> => {
  const exit = decodeAnswerExit(wrapSecrets(answer))
  if (Exit.isFailure(exit)) {
    const error = firstError(exit)
    return Result.fail(new InvalidAnswer({
      message: `The answer does not decode: ${error ? formatIssue(error.issue) : "unknown shape"}`,
      cause: error
    }))
  }
  const questions = request.questions
  const byId = new Map<string, AskUserQuestionAnswerItem>()
  for (const item of exit.value.answers) {
    if (byId.has(item.id)) return broken(`the question id "${item.id}" is answered twice`)
    byId.set(item.id, item)
  }
  if (byId.size > questions.length) return broken(`"${unknownId(questions, byId)}" is not a question of the request`)
  const answers: Array<AskUserQuestionAnswerItem> = []
  for (const question of questions) {
    const item = byId.get(question.id)
    if (item === undefined) {
      // An id that is no question's is named first: it is why this question has no answer.
      const unknown = unknownId(questions, byId)
      return broken(unknown === undefined ? `the question "${question.id}" has no answer` : `"${unknown}" is not a question of the request`)
    }
    let custom = isBlank(item.custom) ? undefined : item.custom
    const selected = item.selected
    let secret = item.secret === undefined || Redacted.value(item.secret) === "" ? undefined : item.secret
    if (question.secret === true) {
      if (custom !== undefined && secret !== undefined) return broken(`"${question.id}" has both a secret and custom text`)
      // Text a provider gave as custom (one that knows nothing of secrets) is the secret: it must
      // not reach the model as words.
      if (custom !== undefined) secret = Redacted.make(custom)
      custom = undefined
    } else if (item.secret !== undefined) {
      return broken(`"${question.id}" is not a secret question, but its answer holds a secret`)
    }
    if (custom !== undefined && selected.length > 0) {
      return broken(`"${question.id}" has both custom text and selected options`)
    }
    if (selected.length > 1 && question.multiSelect !== true) {
      return broken(`"${question.id}" is single-select but ${selected.length} options are selected`)
    }
    if (selected.length > 0) {
      const labels = question.options?.map((o) => o.label) ?? []
      const seen = new Set<string>()
      for (const label of selected) {
        if (!labels.includes(label)) return broken(`"${label}" is not an option of "${question.id}"`)
        if (seen.has(label)) return broken(`"${label}" is selected twice in "${question.id}"`)
        seen.add(label)
      }
    }
    answers.push(
      secret !== undefined
        ? { id: item.id, selected, secret }
        : custom === undefined
        ? { id: item.id, selected }
        : { id: item.id, selected, custom }
    )
  }
  if (exit.value.defaulted !== true) return Result.succeed({ answers })
  return isRecommendedAnswer(request, answers)
    ? Result.succeed({ answers, defaulted: true })
    : broken("a defaulted answer must take the recommended options and skip every other question")
}

/** Whether `answers` (normalized, in question order) are what a timeout takes: the recommended options. */
const isRecommendedAnswer = (request: AskUserQuestionRequest, answers: ReadonlyArray<AskUserQuestionAnswerItem>): boolean => {
  const expected = recommendedAnswer(request).answers
  return answers.every((item, i) =>
    item.custom === undefined && item.secret === undefined &&
    item.selected.length === expected[i]!.selected.length &&
    item.selected.every((label) => expected[i]!.selected.includes(label))
  )
}

/**
 * Whether `by` may answer, cancel or decline `request`: `NotAuthorized`
 * when the request's `answerableBy` does not match it (an unknown answerer
 * matches nothing). The seam and the durable store apply it to every
 * outcome; a surface applies it first, to refuse the answerer on the spot.
 *
 * @since 0.3.0
 */
export const checkAnswerer = (
  request: { readonly answerableBy?: ReadonlyArray<string> | undefined },
  by: Answerer | undefined
): Result.Result<void, NotAuthorized> =>
  isAnswerableBy(request.answerableBy, by)
    ? Result.void
    : Result.fail(new NotAuthorized({
      message: `Only ${request.answerableBy!.join(", ")} may settle this ask; ` + (by === undefined
        ? "this surface cannot say who is answering."
        : by.name === undefined
        ? `${by.id} may not.`
        : `${answererTitle(by)} (${by.id}) may not.`)
    }))
