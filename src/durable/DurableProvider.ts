/**
 * The durable provider: each ask starts (or joins) the ask's workflow in the
 * durable store and waits for its outcome, which may come from another
 * process, hours later. Aborting the request's signal withdraws the ask;
 * any other end of the local wait leaves it pending for a rerun to join.
 *
 * @since 0.2.0
 */
import { randomUUID } from "node:crypto"
import { type Duration, Effect, Layer } from "effect"
import type { AskUserQuestionAnswer } from "../AskUserQuestion.js"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  AskTimeout,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"
import { UserInteractionProvider } from "../UserInteractionProvider.js"
import type { Outcome } from "./AskWorkflow.js"
import { type AskRecord, DurableStore } from "./DurableStore.js"

/**
 * Options of `DurableProvider.layer`: `expiresIn` is fixed when the ask is
 * created and passes even while no process runs (the ask then settles
 * `ASK_TIMEOUT`); a joining ask's own `expiresIn` is ignored.
 *
 * @since 0.2.0
 */
export interface DurableProviderOptions {
  readonly expiresIn?: Duration.Input | undefined
}

/** The ask's result, from its recorded outcome. */
export const outcomeResult = (
  id: string,
  outcome: Outcome
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
      return Effect.fail(new AskTimeout({ message: `The ask "${id}" expired before an answer.` }))
    case "aborted":
      return Effect.fail(new AskAborted({ message: `The ask "${id}" was withdrawn.` }))
  }
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
        const ask = (request: Parameters<UserInteractionProvider["Service"]["ask"]>[0]) =>
          Effect.gen(function*() {
            const id = request.id ?? randomUUID()
            // A settled id gives its outcome again without touching the engine.
            const known = yield* store.find(id)
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
            return yield* outcomeResult(id, outcome)
          })
        return UserInteractionProvider.of({ ask, name: "durable" })
      })
    )
}
