/**
 * What asking durably means whichever way an ask is made (`DurableProvider`
 * waiting for it, `DurableInbox.submit` leaving it pending): the checks a
 * request must pass before anything is stored, the rule for joining an id
 * asked before, and how a recorded outcome reads as the ask's result.
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { canonicalJson } from "../internal/canonicalJson.js"
import { recommendedAnswer } from "../internal/onTimeout.js"
import { storeRefusal } from "../internal/secrets.js"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  AskTimeout,
  InvalidRequest,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"
import type { Outcome } from "./AskWorkflow.js"
import type { AskRecord } from "./DurableStore.js"
import { expiresInProblem } from "./expiry.js"

/**
 * Why a request cannot be asked durably, checked before anything is stored:
 * an expiry past what the store keeps (a deadline past the engine's dates
 * poisoned the store), or a secret question, which no store may keep.
 */
export const durableRequestProblem = (
  request: AskUserQuestionRequest,
  expiresIn: Duration.Input | undefined
): InvalidRequest | undefined => {
  const expiryProblem = expiresIn === undefined ? undefined : expiresInProblem(expiresIn)
  if (expiryProblem !== undefined) return new InvalidRequest({ message: `Cannot ask durably: ${expiryProblem}.` })
  return storeRefusal(request)
}

/**
 * The ask's result, from its recorded outcome. An expiry is `ASK_TIMEOUT`,
 * or, when the ask was created with `onTimeout: "recommended"` (`asked`, the
 * request as stored), the recommended options marked `defaulted: true`; the
 * store still says `expired`, since nobody answered.
 */
export const outcomeResult = (
  id: string,
  outcome: Outcome,
  asked?: AskUserQuestionRequest
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
  switch (outcome.status) {
    case "answered":
      return outcome.answer === undefined
        ? Effect.fail(new ProviderFailed({ message: `The ask "${id}" is answered but holds no answer.` }))
        : Effect.succeed(outcome.answer)
    case "cancelled":
      return Effect.fail(new AskCancelled())
    case "declined":
      return Effect.fail(new AskDeclined())
    case "expired":
      return asked?.onTimeout === "recommended"
        ? Effect.succeed(recommendedAnswer(asked))
        : Effect.fail(new AskTimeout({ message: `The ask "${id}" expired before an answer: nobody answered, so nothing was agreed to.` }))
    case "aborted":
      return Effect.fail(new AskAborted({ message: `The ask "${id}" was withdrawn.` }))
  }
}

/**
 * What questions mean, to compare two asks: their fields in any key order,
 * nothing else a caller's objects carry, and `multiSelect: false` the same as
 * leaving it out (its default).
 */
const meaningOf = (questions: ReadonlyArray<AskUserQuestionItem>): string =>
  canonicalJson(questions.map(({ header, id, multiSelect, options, question }) => ({
    id,
    question,
    header,
    options: options?.map(({ description, label }) => ({ label, description })),
    multiSelect: multiSelect === true
  })))

/** Who may answer, to compare two asks: the same patterns in any order are the same rule. */
const answerableMeaning = (answerableBy: ReadonlyArray<string> | undefined): string =>
  answerableBy === undefined ? "anyone" : canonicalJson([...new Set(answerableBy)].sort())

/**
 * An id asked before with other questions is refused: joining it would hand
 * this caller an answer to questions it did not ask. So is one asked with
 * another `answerableBy`: its answer would come from someone this caller did
 * not allow (or be refused by this caller's seam for ever). Only these
 * count; a restarted agent may come back under another `agent`.
 */
export const refuseOtherQuestions = (id: string, known: AskRecord | undefined, request: AskUserQuestionRequest) => {
  if (known === undefined) return Effect.void
  if (meaningOf(known.request.questions) !== meaningOf(request.questions)) {
    return Effect.fail(
      new InvalidRequest({
        message: `The ask "${id}" was asked with other questions; ask with another id, ` +
          "or with the questions it was asked with to join it."
      })
    )
  }
  const allowed = answerableMeaning(known.request.answerableBy)
  return allowed === answerableMeaning(request.answerableBy) ? Effect.void : Effect.fail(
    new InvalidRequest({
      message: `The ask "${id}" was asked with another answerableBy (${allowed}); ask with another id, ` +
        "or with the answerableBy it was asked with to join it."
    })
  )
}

export const settledOutcome = (record: AskRecord): Outcome | undefined =>
  record.status === "pending"
    ? undefined
    : record.answer === undefined
    ? { status: record.status }
    : { status: record.status, answer: record.answer }
