/** Provider layers with observable behaviour, for the seam's tests. */
import { Deferred, Effect, Layer } from "effect"
import {
  type AskUserQuestionAnswer,
  type AskUserQuestionRequest,
  UserInteractionProvider
} from "effect-user-interaction"

/** What a provider under test saw happen to it. */
export interface Probe {
  readonly started: Array<AskUserQuestionRequest>
  readonly finalized: Array<string>
  readonly asked: Deferred.Deferred<void>
}

export const makeProbe = Effect.gen(function*() {
  const probe: Probe = { started: [], finalized: [], asked: yield* Deferred.make<void>() }
  return probe
})

/** A provider that answers `answer`, or never answers when `answer` is undefined. */
export const probeProvider = (
  probe: Probe,
  name: string,
  answer?: (request: AskUserQuestionRequest) => AskUserQuestionAnswer
): Layer.Layer<UserInteractionProvider> =>
  Layer.effect(
    UserInteractionProvider,
    Effect.acquireRelease(
      Effect.succeed(UserInteractionProvider.of({
        ask: (request) =>
          Effect.gen(function*() {
            probe.started.push(request)
            yield* Deferred.succeed(probe.asked, undefined)
            if (answer === undefined) return yield* Effect.never
            return answer(request)
          }).pipe(Effect.onInterrupt(() => Effect.sync(() => probe.finalized.push(`${name}: prompt taken down`))))
      })),
      () => Effect.sync(() => probe.finalized.push(`${name}: provider closed`))
    )
  )
