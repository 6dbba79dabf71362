/**
 * The one thing a UI surface implements: answer a request. A provider is
 * supplied by a scoped Layer and registered with `UserInteraction`; the seam
 * does the checking, timing and cleanup around it.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Answerer } from "./Answerer.js"
import type { AskOutcome } from "./AskEvent.js"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "./AskUserQuestion.js"
import type { UserInteractionError } from "./UserInteractionError.js"

/**
 * What a provider's `ask` returns: the answer and, when the surface can say
 * who gave it, `by`. The seam moves `by` into the ask's receipt, so callers
 * of `ask` get `{ answers }` alone.
 *
 * @since 0.3.0
 */
export type ProviderAnswer = AskUserQuestionAnswer & { readonly by?: Answerer | undefined }

/**
 * A UI surface that can put a request in front of a human. Its `ask` runs as
 * an interruptible child of the caller: interruption means "take the prompt
 * down", and its finalizers must do exactly that. `name` says which surface
 * it is (`"terminal"`, `"web"`, `"acp"`, `"mcp"`, `"durable"`, `"scripted"`),
 * for events and spans. An answer may carry `by` (who answered); a cancel
 * or decline names who did it with `markAnswerer`.
 *
 * @since 0.1.0
 */
export class UserInteractionProvider extends Context.Service<UserInteractionProvider, {
  readonly ask: (request: AskUserQuestionRequest) => Effect.Effect<ProviderAnswer, UserInteractionError>
  readonly name?: string | undefined
}>()("effect-user-interaction/UserInteractionProvider") {}

/**
 * Why the seam took a provider's ask down: the caller gave up (`"aborted"`:
 * its signal or its interruption), the seam's `timeout` passed
 * (`"timeout"`), or the provider's registration is ending (`"closed"`).
 *
 * @since 0.1.0
 */
export type InterruptionReason = "aborted" | "timeout" | "closed"

/**
 * The annotation the seam puts on the interruption of a provider's ask.
 * Providers read it with `interruptionReason`.
 *
 * @since 0.1.0
 */
export class AskInterruption extends Context.Service<AskInterruption, InterruptionReason>()(
  "effect-user-interaction/AskInterruption"
) {}

/**
 * The reason the seam gave when it interrupted a provider's ask, read from
 * the ask's exit cause (for example in `Effect.onExit`); `undefined` when the
 * cause holds no interruption by the seam.
 *
 * @since 0.1.0
 */
export const interruptionReason = (cause: Cause.Cause<unknown>): InterruptionReason | undefined => {
  for (const reason of cause.reasons) {
    if (reason._tag !== "Interrupt") continue
    const annotated = reason.annotations.get(AskInterruption.key) as InterruptionReason | undefined
    if (annotated !== undefined) return annotated
  }
  return undefined
}

// Outcomes (answers and errors) are objects a provider just made, so a weak
// map marks them without copying or changing them.
const surfaces = new WeakMap<object, string>()

/**
 * Marks an answer or error as settled on `surface`, and returns it. A
 * provider that stands for several surfaces (a fan-out) marks what it returns
 * with the member that settled it; the seam reports that as `surface` in
 * events and spans, and falls back to the provider's own `name` for an
 * unmarked outcome.
 *
 * @since 0.2.0
 */
export const markSurface = <A extends object>(outcome: A, surface: string | undefined): A => {
  if (surface !== undefined) surfaces.set(outcome, surface)
  return outcome
}

/**
 * The surface an answer or error was marked with by `markSurface`.
 *
 * @since 0.2.0
 */
export const surfaceOf = (outcome: unknown): string | undefined =>
  typeof outcome === "object" && outcome !== null ? surfaces.get(outcome) : undefined

const answerers = new WeakMap<object, Answerer>()

/**
 * Marks an answer or error (a cancel, a decline) as given by `by`, and
 * returns it: how a surface names who settled an ask when the outcome has
 * no `by` field of its own (an error), or passes on a member's answerer (a
 * fan-out, whose checked answer is a new object).
 *
 * @since 0.3.0
 */
export const markAnswerer = <A extends object>(outcome: A, by: Answerer | undefined): A => {
  if (by !== undefined) answerers.set(outcome, by)
  return outcome
}

/**
 * Who gave an answer or error: its `by` field, else what `markAnswerer`
 * marked it with; undefined when the surface did not say.
 *
 * @since 0.3.0
 */
export const answererOf = (outcome: unknown): Answerer | undefined => {
  if (typeof outcome !== "object" || outcome === null) return undefined
  const by = (outcome as { readonly by?: unknown }).by
  return by === undefined ? answerers.get(outcome) : by as Answerer
}

/**
 * Where and how an ask was settled when a surface's part of it is
 * interrupted because another surface settled it first: a fan-out puts this
 * on the interruption of the surfaces that lost, so each can say so ("Answered
 * in the terminal."). `by` is who settled it, when that surface said
 * (since 0.3.0), so a surface can name them ("Answered by Ana in the web page.").
 *
 * @since 0.2.0
 */
export class SettledElsewhere extends Context.Service<SettledElsewhere, {
  readonly surface: string
  readonly outcome: AskOutcome
  readonly by?: Answerer | undefined
}>()("effect-user-interaction/SettledElsewhere") {}

/**
 * The `SettledElsewhere` annotation on an ask's interruption, read from its
 * exit cause; `undefined` when another surface did not settle it.
 *
 * @since 0.2.0
 */
export const settledElsewhere = (cause: Cause.Cause<unknown>): SettledElsewhere["Service"] | undefined => {
  for (const reason of cause.reasons) {
    if (reason._tag !== "Interrupt") continue
    const annotated = reason.annotations.get(SettledElsewhere.key) as SettledElsewhere["Service"] | undefined
    if (annotated !== undefined) return annotated
  }
  return undefined
}

/**
 * How people read a surface's name: `"the terminal"`, `"the web page"`, …;
 * an unknown name as itself.
 *
 * @since 0.2.0
 */
export const describeSurface = (surface: string): string => surfaceTitles.get(surface) ?? surface

const surfaceTitles: ReadonlyMap<string, string> = new Map([
  ["terminal", "the terminal"],
  ["web", "the web page"],
  ["acp", "the ACP client"],
  ["mcp", "the MCP client"],
  ["durable", "another process"],
  ["slack", "Slack"],
  ["scripted", "a script"]
])
