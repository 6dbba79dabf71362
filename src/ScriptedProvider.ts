/**
 * A provider for tests, evals and CI: answers come from a function instead of
 * a human, and the requests it saw can be read back.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Answerer } from "./Answerer.js"
import type { AskUserQuestionRequest } from "./AskUserQuestion.js"
import { answeredBy } from "./internal/answeredBy.js"
import { type ProviderAnswer, UserInteractionProvider } from "./UserInteractionProvider.js"
import type { UserInteractionError } from "./UserInteractionError.js"

/** Who a scripted provider answers as, unless told otherwise. */
const scriptedAnswerer: Answerer = { id: "scripted:test" }

/**
 * The record of what a scripted provider was asked, in order.
 *
 * @since 0.1.0
 */
export class ScriptedProvider extends Context.Service<ScriptedProvider, {
  readonly requests: Effect.Effect<ReadonlyArray<AskUserQuestionRequest>>
}>()("effect-user-interaction/ScriptedProvider") {
  /**
   * A provider that answers every request with `answer(request)`, next to the
   * record of requests it saw. Its answers, cancels and declines come from
   * `options.by` (default `scripted:test`), so a test can play Ana or a
   * stranger; an answer that names its own `by` keeps it.
   *
   * @since 0.1.0
   */
  static layer(
    answer: (request: AskUserQuestionRequest) => Effect.Effect<ProviderAnswer, UserInteractionError>,
    options?: { readonly by?: Answerer | undefined }
  ): Layer.Layer<UserInteractionProvider | ScriptedProvider> {
    const by = options?.by ?? scriptedAnswerer
    return Layer.effectContext(Effect.sync(() => {
      const seen: Array<AskUserQuestionRequest> = []
      return Context.make(UserInteractionProvider, {
        ask: (request) => Effect.suspend(() => {
          seen.push(request)
          return answeredBy(by, answer(request))
        }),
        name: "scripted"
      }).pipe(Context.add(ScriptedProvider, { requests: Effect.sync(() => seen.slice()) }))
    }))
  }

  /**
   * The requests the scripted provider has seen so far.
   *
   * @since 0.1.0
   */
  static readonly requests: Effect.Effect<ReadonlyArray<AskUserQuestionRequest>, never, ScriptedProvider> =
    ScriptedProvider.use((scripted) => scripted.requests)
}
