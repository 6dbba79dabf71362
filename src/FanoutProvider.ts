/**
 * One provider made of several: each ask goes to every surface at once (say
 * the terminal and the web page), and the human answers on whichever is at
 * hand. The first answer wins and the other surfaces are interrupted, so their
 * prompts come down before the ask returns; they learn where the ask was
 * settled (`SettledElsewhere`), and the seam reports that member's `name` as
 * the ask's `surface`. A member whose human answered at the same moment
 * learns it lost through the ask's `OutcomeGate` (see `settleFirst`); when
 * the whole ask is taken down, every member learns why (`SettledElsewhere`,
 * `AskInterruption`).
 *
 * ```ts
 * const both = FanoutProvider.layer(TerminalProvider.layer(), WebProvider.layer())
 * program.pipe(Effect.provide(UserInteraction.layerWith(both)))
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type { Answerer } from "./Answerer.js"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "./AskUserQuestion.js"
import { checkAnswer, checkAnswerer } from "./AskValidation.js"
import { type Gate, OutcomeGate, type Settling } from "./OutcomeGate.js"
import {
  answererOf,
  markAnswerer,
  markSurface,
  SettledElsewhere,
  surfaceOf,
  UserInteractionProvider
} from "./UserInteractionProvider.js"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  type ErrorCode,
  HarnessError,
  ProviderFailed,
  type UserInteractionError
} from "./UserInteractionError.js"

type Provider = UserInteractionProvider["Service"]

/** Any layer that provides a `UserInteractionProvider`; what else it outputs passes through the fanout. */
type AnyProviderLayer = Layer.Layer<UserInteractionProvider, any, any>

/**
 * A human's decision on one surface that ends the whole ask at once: cancel
 * (Esc, a Cancel button), decline, or abort (Ctrl+C at the terminal).
 */
const endsTheAsk = (error: UserInteractionError) =>
  error instanceof AskCancelled || error instanceof AskDeclined || error instanceof AskAborted

/** One surface's verdict: its answer or its decision to stop, the surface that gave it, and who. */
interface Verdict {
  readonly result: Result.Result<AskUserQuestionAnswer, UserInteractionError>
  readonly surface: string | undefined
  readonly by: Answerer | undefined
}

/**
 * One surface's part of the race. It "wins" with an answer that keeps the
 * answer rules, or with a human's decision to stop; anything else (an invalid
 * answer, a surface that failed or closed) drops that surface out of the race
 * and the others go on. A nested fan-out's mark names the innermost surface.
 * An answer, cancel or decline from someone the request's `answerableBy`
 * does not allow wins nothing: that surface is asked again, and the others
 * keep their prompts up.
 */
const entrant = (
  provider: Provider,
  request: AskUserQuestionRequest,
  gate: Gate
): Effect.Effect<Verdict, UserInteractionError> =>
  provider.ask(request).pipe(
    Effect.provideService(OutcomeGate, gate),
    Effect.flatMap((answer) =>
      Effect.map(
        Effect.fromResult(checkAnswer(request, answer)),
        (checked): Verdict => ({
          result: Result.succeed(checked),
          surface: surfaceOf(answer) ?? provider.name,
          by: answererOf(answer)
        })
      )
    ),
    Effect.catchIf(endsTheAsk, (error) =>
      Effect.succeed<Verdict>({ result: Result.fail(error), surface: surfaceOf(error) ?? provider.name, by: answererOf(error) })),
    Effect.flatMap((verdict) => {
      const allowed = checkAnswerer(request, verdict.by)
      return Result.isSuccess(allowed) || (Result.isFailure(verdict.result) && verdict.result.failure._tag === "AskAborted")
        ? Effect.succeed(verdict)
        : Effect.logWarning(`Refused on ${verdict.surface ?? "a surface"}: ${allowed.failure.message}`).pipe(
          Effect.andThen(Effect.yieldNow),
          Effect.andThen(Effect.suspend(() => entrant(provider, request, gate)))
        )
    })
  )

/** Whether an outcome would win the race: it keeps the answer rules, from an answerer `answerableBy` allows. */
const wins = (request: AskUserQuestionRequest, { by, outcome }: Settling): boolean =>
  Result.isSuccess(checkAnswerer(request, by)) &&
  (Result.isFailure(outcome) || Result.isSuccess(checkAnswer(request, outcome.success)))

/**
 * The gate of one ask's members: an outcome the gate outside lets through
 * (the durable inbox's record, say) and that would win is the first, and
 * every later one is told it lost to it, even one whose human had already
 * answered when the first went through (decision 160).
 */
const raceGate = (outer: Gate, request: AskUserQuestionRequest): Gate => {
  let first: SettledElsewhere["Service"] | undefined
  return {
    pass: (settling) =>
      Effect.map(outer.pass(settling), (settledFirst) => {
        if (settledFirst !== undefined || first !== undefined) return settledFirst ?? first
        if (wins(request, settling)) {
          first = {
            surface: settling.surface,
            outcome: Result.isSuccess(settling.outcome) ? "answered" : settling.outcome.failure.code,
            by: settling.by
          }
        }
        return undefined
      })
  }
}

/** When every surface dropped out: the first failure, as a contract error. */
const allFailed = (cause: Cause.Cause<UserInteractionError>): Effect.Effect<never, UserInteractionError> => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some" && error.value instanceof HarnessError) return Effect.fail(error.value)
  return Effect.fail(new ProviderFailed({ message: "Every surface of the fanout failed.", cause: Cause.squash(cause) }))
}

/** The winner's outcome, marked with its surface so the seam can report it. */
const fromVerdict = ({ by, result, surface }: Verdict): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> =>
  Result.isSuccess(result)
    ? Effect.succeed(markAnswerer(markSurface(result.success, surface), by))
    : Effect.fail(markAnswerer(markSurface(result.failure, surface), by))

/**
 * Races one request across all surfaces. The surfaces that lose are
 * interrupted with a `SettledElsewhere` annotation naming the winner, so each
 * can tell its human where the ask went ("Answered in the web page.").
 */
const fanout = (providers: ReadonlyArray<Provider>): Provider => ({
  ask: (request) =>
    Effect.flatMap(OutcomeGate, (outer) => {
      const gate = raceGate(outer, request)
      const entrants: Array<Fiber.Fiber<unknown, unknown>> = []
      let decided = false
      // The first verdict tells the other entrants before the race ends (the race
      // itself would interrupt them without saying why).
      const decide = (self: Fiber.Fiber<unknown, unknown>, { by, result, surface }: Verdict) => {
        if (decided || surface === undefined) return
        decided = true
        const elsewhere = Context.make(SettledElsewhere, {
          surface,
          outcome: Result.isSuccess(result) ? "answered" : result.failure.code as ErrorCode,
          by
        })
        for (const other of entrants) if (other !== self) other.interruptUnsafe(undefined, elsewhere)
      }
      const race = Effect.raceAll(providers.map((provider) =>
        Effect.withFiber((self) => {
          entrants.push(self)
          return Effect.tap(entrant(provider, request, gate), (verdict) => Effect.sync(() => decide(self, verdict)))
        })
      ))
      // The race runs in a fiber of its own, so that when this ask is taken down (settled in another
      // process, timed out, closed) each surface is told why before it comes down: interrupted
      // with the reason this ask was given, not the bare interruption the race would pass on.
      return Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Effect.forkChild(race, { startImmediately: true }), (racing) =>
          restore(Fiber.join(racing)).pipe(
            Effect.onExit((exit) => {
              if (Exit.isSuccess(exit) || !Cause.hasInterrupts(exit.cause)) return Effect.void
              const reason = exit.cause.reasons.find(Cause.isInterruptReason)
              const annotations = reason === undefined ? undefined : Context.makeUnsafe<never>(reason.annotations)
              for (const member of entrants) member.interruptUnsafe(undefined, annotations)
              return Effect.asVoid(Fiber.await(racing))
            })
          ))
      ).pipe(
        Effect.catchCause(allFailed),
        Effect.flatMap(fromVerdict)
      )
    })
})

/**
 * Namespace of the fanout provider.
 *
 * @since 0.1.0
 */
export const FanoutProvider = {
  /**
   * One provider built from several provider layers. Each ask goes to all of
   * them at once; the first answer wins and the others are interrupted; a
   * cancel, decline or abort on any surface ends the ask; a surface that fails
   * otherwise drops out, and the ask fails only when every surface has.
   * Services the layers output besides the provider (`WebProvider`, say) pass
   * through. The layers are built in order and closed in reverse.
   *
   * @since 0.1.0
   */
  layer: <const Layers extends readonly [AnyProviderLayer, ...Array<AnyProviderLayer>]>(
    ...layers: Layers
  ): Layer.Layer<
    UserInteractionProvider | Exclude<Layer.Success<Layers[number]>, UserInteractionProvider>,
    Layer.Error<Layers[number]>,
    Layer.Services<Layers[number]>
  > =>
    Layer.effectContext(Effect.gen(function*() {
      // Only an untyped caller gets here with no layer, or one that provides no provider: a
      // fanout of nothing would leave every ask waiting forever.
      if (layers.length === 0) return yield* Effect.die(new TypeError("FanoutProvider.layer needs at least one provider layer."))
      let merged = Context.empty() as Context.Context<any>
      const providers: Array<Provider> = []
      for (const [index, layer] of layers.entries()) {
        const context: Context.Context<any> = yield* Layer.build(layer)
        const provider = Context.getOption(context as Context.Context<UserInteractionProvider>, UserInteractionProvider)
        if (provider._tag === "None") {
          return yield* Effect.die(new TypeError(`FanoutProvider.layer: layer ${index + 1} provides no UserInteractionProvider.`))
        }
        providers.push(provider.value)
        merged = Context.merge(merged, context)
      }
      return Context.add(merged, UserInteractionProvider, fanout(providers))
    }))
}
