/**
 * The durable provider: each ask starts (or joins) the ask's workflow in the
 * durable store and waits for its outcome, which may come from another
 * process, hours later. Aborting the request's signal withdraws the ask;
 * any other end of the local wait leaves it pending for a rerun to join.
 *
 * @since 0.2.0
 */
import { randomUUID } from "node:crypto"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  AskTimeout,
  InvalidRequest,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"
import { markAnswerer, type ProviderAnswer, UserInteractionProvider } from "../UserInteractionProvider.js"
import type { Outcome } from "./AskWorkflow.js"
import { type AskRecord, DurableStore } from "./DurableStore.js"
import { canonicalJson } from "../internal/canonicalJson.js"
import { recommendedAnswer } from "../internal/onTimeout.js"
import { storeRefusal } from "../internal/secrets.js"
import { expiresInProblem } from "./expiry.js"

/**
 * Options of `DurableProvider.layer`: `expiresIn` is fixed when the ask is
 * created and passes even while no process runs (the ask then settles
 * `ASK_TIMEOUT`, or, for a request with `onTimeout: "recommended"`, with
 * its recommended options, `defaulted`); a joining ask's own `expiresIn` is
 * ignored. It must be
 * positive and at most 3650 days, else every ask fails `INVALID_REQUEST`.
 *
 * @since 0.2.0
 */
export interface DurableProviderOptions {
  readonly expiresIn?: Duration.Input | undefined
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
const refuseOtherQuestions = (id: string, known: AskRecord | undefined, request: AskUserQuestionRequest) => {
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

/**
 * The outcome as the asker gets it, naming who settled it as the store's
 * receipt does: the seam puts them in the asker's own receipt and `Settled`
 * event. The surface stays `"durable"` (decision 102).
 */
const withAnswerer = (
  result: Effect.Effect<AskUserQuestionAnswer, UserInteractionError>,
  record: AskRecord | undefined
): Effect.Effect<ProviderAnswer, UserInteractionError> => {
  const by = record?.receipt?.by
  return by === undefined
    ? result
    : Effect.mapBoth(result, { onSuccess: (answer) => ({ ...answer, by }), onFailure: (error) => markAnswerer(error, by) })
}

const settledOutcome = (record: AskRecord): Outcome | undefined =>
  record.status === "pending"
    ? undefined
    : record.answer === undefined
    ? { status: record.status }
    : { status: record.status, answer: record.answer }

/**
 * `DurableProvider.layer(options?)`: the `"durable"` provider over the
 * `DurableStore`.
 *
 * @since 0.2.0
 */
export const DurableProvider = {
  layer: (options?: DurableProviderOptions): Layer.Layer<UserInteractionProvider, never, DurableStore> =>
    Layer.effect(
      UserInteractionProvider,
      Effect.gen(function*() {
        const store = yield* DurableStore
        const expiryProblem = options?.expiresIn === undefined ? undefined : expiresInProblem(options.expiresIn)
        const ask = (request: AskUserQuestionRequest) =>
          Effect.gen(function*() {
            // Checked before anything is stored: a deadline past the engine's dates poisoned the store.
            if (expiryProblem !== undefined) {
              return yield* Effect.fail(new InvalidRequest({ message: `Cannot ask durably: ${expiryProblem}.` }))
            }
            const secret = storeRefusal(request)
            if (secret !== undefined) return yield* Effect.fail(secret)
            const id = request.id ?? randomUUID()
            // A settled id gives its outcome again without touching the engine.
            const known = yield* store.find(id)
            yield* refuseOtherQuestions(id, known, request)
            const settled = known === undefined ? undefined : settledOutcome(known)
            const outcome = settled ?? (yield* store.run({ id, request, expiresIn: options?.expiresIn }).pipe(
              // Only the request's own signal withdraws the ask; an interrupted
              // caller or a closing provider just stops waiting here.
              Effect.onInterrupt(() =>
                request.signal?.aborted === true
                  ? Effect.ignore(store.settle(id, { status: "aborted" }))
                  : Effect.void
              )
            ))
            // An asker that raced the first one to an id (neither saw a row) learns here that they differ.
            const record = settled === undefined ? yield* store.find(id) : known
            if (settled === undefined) yield* refuseOtherQuestions(id, record, request)
            // What an expiry means is fixed when the ask is created, as its expiry is: the stored request's.
            return yield* withAnswerer(outcomeResult(id, outcome, record?.request ?? request), record)
          })
        return UserInteractionProvider.of({ ask, name: "durable" })
      })
    )
}
