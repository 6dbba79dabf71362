/**
 * How a surface that knows who is answering puts it on what its ask ends
 * with: the answer gets `by`, a cancel or decline is marked with it
 * (`markAnswerer`); how a surface with a single answerer (the terminal,
 * an MCP or ACP client) refuses an ask that answerer may not settle before
 * showing anything (SPEC, "Answerers": a surface shows an ask only to
 * answerers it may allow); and the answerer a protocol client is.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { Answerer } from "../Answerer.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { checkAnswerer } from "../AskValidation.js"
import { AskCancelled, AskDeclined, type NotAuthorized } from "../UserInteractionError.js"
import { markAnswerer, type ProviderAnswer } from "../UserInteractionProvider.js"

/**
 * `ask`, its answer given `by` (unless it names its own) and its cancel or
 * decline marked with it. An unknown answerer (`undefined`) leaves the
 * outcome as it is. The one way every provider that knows who answers
 * says so: the terminal, MCP, ACP, scripts, the durable asker.
 */
export const answeredBy = <E, R>(
  by: Answerer | undefined,
  ask: Effect.Effect<ProviderAnswer, E, R>
): Effect.Effect<ProviderAnswer, E, R> =>
  by === undefined ? ask : Effect.mapBoth(ask, {
    // Copied, not marked: the answer object may be shared (a script's one answer for every ask, a
    // checked answer the seam caches). An error passes through as it is (callers may compare it),
    // marked again on each ask.
    onSuccess: (answer): ProviderAnswer => answer.by === undefined ? { ...answer, by } : answer,
    onFailure: (error) => error instanceof AskCancelled || error instanceof AskDeclined ? markAnswerer(error, by) : error
  })

/**
 * `ask` on a surface whose one answerer is `by`: refused at once with
 * `NotAuthorized` (nothing shown, nothing sent) when the request's
 * `answerableBy` does not allow `by`, since nobody on that surface could
 * ever settle it; otherwise `answeredBy(by, ask)`.
 */
export const askAs = <E, R>(
  by: Answerer | undefined,
  request: AskUserQuestionRequest,
  ask: Effect.Effect<ProviderAnswer, E, R>
): Effect.Effect<ProviderAnswer, E | NotAuthorized, R> => {
  const allowed = checkAnswerer(request, by)
  return Result.isFailure(allowed) ? Effect.fail(allowed.failure) : answeredBy(by, ask)
}

/**
 * A protocol client as an answerer, from the `clientInfo` it declared at
 * `initialize`: `mcp:<name>` or `acp:<name>`, with its `title` as the name
 * people know it by. Undefined when it declared no name (an empty one is
 * none): such a client cannot be told apart, so it is an unknown answerer.
 */
export const clientAnswerer = (
  kind: "mcp" | "acp",
  clientInfo: { readonly name?: unknown; readonly title?: unknown } | null | undefined
): Answerer | undefined => {
  const name = clientInfo?.name
  if (typeof name !== "string" || name === "") return undefined
  const title = clientInfo?.title
  return typeof title === "string" && title !== "" ? { id: `${kind}:${name}`, name: title } : { id: `${kind}:${name}` }
}
