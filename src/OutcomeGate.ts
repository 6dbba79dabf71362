/**
 * The last step of a surface's answer: before a provider's ask ends with the
 * human's answer (or cancel, or decline), the outcome passes the gate of
 * whatever runs the ask, which makes it the ask's outcome or says who settled
 * the ask first. A fan-out's gate lets its first member through; the durable
 * inbox's records the outcome in the store. A surface whose outcome lost ends
 * its ask interrupted with `SettledElsewhere` naming the winner, as if it had
 * been taken down before its human answered, so it tells its human the same
 * way ("Answered by Ana in Slack."): the one way every surface learns it lost,
 * even when its human's answer was already in hand (decision 160).
 *
 * ```ts
 * // In a provider: the reply arrived; it counts only once through the gate.
 * Deferred.await(reply).pipe(settleFirst("email"), Effect.onExit(tellTheHuman))
 * ```
 *
 * @since 0.3.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import type { Answerer } from "./Answerer.js"
import type { AskUserQuestionAnswer } from "./AskUserQuestion.js"
import { AskCancelled, AskDeclined } from "./UserInteractionError.js"
import { answererOf, type ProviderAnswer, SettledElsewhere } from "./UserInteractionProvider.js"

/**
 * A human's outcome on one surface, on its way to becoming the ask's: an
 * answer, or a cancel or decline; where, and by whom when the surface knows.
 *
 * @since 0.3.0
 */
export interface Settling {
  readonly outcome: Result.Result<AskUserQuestionAnswer, AskCancelled | AskDeclined>
  readonly surface: string
  readonly by?: Answerer | undefined
}

/**
 * The gate an ask's outcome passes: `pass` gives `undefined` when the outcome
 * may stand (made final, or left to the seam's usual checks), or how the ask
 * was settled first when it may not.
 *
 * @since 0.3.0
 */
export interface Gate {
  readonly pass: (settling: Settling) => Effect.Effect<SettledElsewhere["Service"] | undefined>
}

/** Outside a fan-out or an inbox nothing else can settle the ask: every outcome stands. */
const open: Gate = { pass: () => Effect.succeed(undefined) }

/**
 * The gate of the ask being run, provided to a provider's `ask` by whatever
 * runs it (`FanoutProvider`, `DurableInbox.serve`); open by default.
 *
 * @since 0.3.0
 */
export const OutcomeGate = Context.Reference<Gate>("effect-user-interaction/OutcomeGate", { defaultValue: () => open })

/** The human's outcome an ask's exit holds, if any: its answer, or a cancel or decline. */
const settlingOf = (exit: Exit.Exit<ProviderAnswer, unknown>, surface: string): Settling | undefined => {
  if (Exit.isSuccess(exit)) {
    const { by, ...answer } = exit.value
    return { outcome: Result.succeed(answer), surface, by }
  }
  const failure = exit.cause.reasons.find(Cause.isFailReason)?.error
  return failure instanceof AskCancelled || failure instanceof AskDeclined
    ? { outcome: Result.fail(failure), surface, by: answererOf(failure) }
    : undefined
}

/**
 * Passes the human's outcome of `self` (a provider's wait for its human)
 * through the ask's gate: it stands, or `self` ends interrupted with the
 * `SettledElsewhere` of whoever settled the ask first, for the provider's
 * exit handler to tell its human. Anything else `self` ends with passes as it
 * is.
 *
 * @since 0.3.0
 */
export const settleFirst = (surface: string) =>
<E>(self: Effect.Effect<ProviderAnswer, E>): Effect.Effect<ProviderAnswer, E> =>
  Effect.flatMap(Effect.exit(self), (exit) => {
    const settling = settlingOf(exit, surface)
    if (settling === undefined) return exit
    return Effect.flatMap(OutcomeGate, (gate) =>
      Effect.flatMap(gate.pass(settling), (first) =>
        first === undefined
          ? exit
          : Effect.failCause(Cause.annotate(Cause.interrupt(), Context.make(SettledElsewhere, first)))))
  })
