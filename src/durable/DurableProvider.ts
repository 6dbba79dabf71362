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
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { UserInteractionProvider } from "../UserInteractionProvider.js"
import { answeredBy } from "../internal/answeredBy.js"
import { durableRequestProblem, outcomeResult, refuseOtherQuestions, settledOutcome } from "./asking.js"
import { DurableStore } from "./DurableStore.js"

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
        const ask = (request: AskUserQuestionRequest) =>
          Effect.gen(function*() {
            const problem = durableRequestProblem(request, options?.expiresIn)
            if (problem !== undefined) return yield* Effect.fail(problem)
            const id = request.id ?? randomUUID()
            // A settled id gives its outcome again without touching the engine.
            const known = yield* store.find(id)
            yield* refuseOtherQuestions(id, known, request)
            const settled = known === undefined ? undefined : settledOutcome(known)
            const { outcome, record } = settled !== undefined ? { outcome: settled, record: known } : yield* store.runRecorded({
              id,
              request,
              expiresIn: options?.expiresIn
            }).pipe(
              // Only the request's own signal withdraws the ask; an interrupted
              // caller or a closing provider just stops waiting here.
              Effect.onInterrupt(() =>
                request.signal?.aborted === true
                  ? Effect.ignore(store.settle(id, { status: "aborted" }))
                  : Effect.void
              )
            )
            // An asker that raced the first one to an id (neither saw a row) learns here that they differ.
            if (settled === undefined) yield* refuseOtherQuestions(id, record, request)
            // What an expiry means is fixed when the ask is created, as its expiry is: the stored request's.
            // Named as the store's receipt names who settled it, for the asker's own receipt and
            // Settled event; the surface stays "durable" (decision 102).
            return yield* answeredBy(record?.receipt?.by, outcomeResult(id, outcome, record?.request ?? request))
          })
        return UserInteractionProvider.of({ ask, name: "durable" })
      })
    )
}
