/**
 * The one thing a UI surface implements: answer a request. A provider is
 * supplied by a scoped Layer and registered with `UserInteraction`; the seam
 * does the checking, timing and cleanup around it.
 *
 * @since 0.1.0
 */
import { type Cause, Context, type Effect } from "effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "./AskUserQuestion.js"
import type { UserInteractionError } from "./UserInteractionError.js"

/**
 * A UI surface that can put a request in front of a human. Its `ask` runs as
 * an interruptible child of the caller: interruption means "take the prompt
 * down", and its finalizers must do exactly that. `name` says which surface
 * it is (`"terminal"`, `"web"`, `"acp"`, `"mcp"`, `"durable"`, `"scripted"`),
 * for events and spans.
 *
 * @since 0.1.0
 */
export class UserInteractionProvider extends Context.Service<UserInteractionProvider, {
  readonly ask: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>
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
