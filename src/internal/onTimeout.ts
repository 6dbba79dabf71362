/**
 * What the end of an ask's time means: the deadline that applies (the
 * smaller of the request's own `timeout` and the seam's), and the outcome
 * when it passes: `ASK_TIMEOUT`, saying nobody answered and nothing was
 * agreed to, or, when the request asked for it, the recommended options
 * taken and the answer marked `defaulted: true`. Shared by the seam and the
 * durable provider (whose expiry follows the same rule).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import {
  type AskUserQuestionAnswer,
  type AskUserQuestionAnswerItem,
  type AskUserQuestionRequest,
  isRecommended
} from "../AskUserQuestion.js"
import { AskTimeout } from "../UserInteractionError.js"
import { parseTimeout } from "./duration.js"

/**
 * The answer a request takes when its time runs out with `onTimeout:
 * "recommended"`: each question with a recommended option answered with it
 * (a multi-select question with every option it recommends), every other
 * question skipped, and `defaulted: true`.
 */
export const recommendedAnswer = (request: AskUserQuestionRequest): AskUserQuestionAnswer => ({
  answers: request.questions.map((question): AskUserQuestionAnswerItem => ({
    id: question.id,
    selected: question.secret === true ? [] : (question.options ?? []).filter(isRecommended).map((o) => o.label)
  })),
  defaulted: true
})

/**
 * The milliseconds an ask may wait: the smaller of the request's own
 * `timeout` and the seam's (`seamMillis`, 0 or less for none); 0 when
 * neither sets one. A `timeout` that does not parse (a request the seam
 * has not checked) counts as none; the seam refuses such a request first.
 */
export const askTimeoutMillis = (request: AskUserQuestionRequest, seamMillis: number): number => {
  const own = request.timeout === undefined ? Option.none() : parseTimeout(request.timeout)
  if (Option.isNone(own)) return seamMillis
  const millis = Duration.toMillis(own.value)
  return seamMillis > 0 && seamMillis < millis ? seamMillis : millis
}

/**
 * The `ASK_TIMEOUT` an ask that waited `millis` fails with: its message
 * reaches the model, which must not read the silence as consent.
 */
export const timeoutError = (millis: number, what = "No answer arrived"): AskTimeout =>
  new AskTimeout({
    message: `${what} within ${Duration.format(Duration.millis(millis))}: nobody answered, so nothing was agreed to.`
  })

/** The `note` the model reads beside a defaulted answer. */
export const defaultedNote = "The human did not answer in time: nothing here was chosen by them. " +
  "The recommended options were taken (a question without one is skipped)."
