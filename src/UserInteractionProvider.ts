/**
 * The one thing a UI surface implements: answer a request. A provider is
 * supplied by a scoped Layer and registered with `UserInteraction`; the seam
 * does the checking, timing and cleanup around it.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "./AskUserQuestion.js"
import type { UserInteractionError } from "./UserInteractionError.js"

/**
 * A UI surface that can put a request in front of a human. Its `ask` runs as
 * an interruptible child of the caller: interruption means "take the prompt
 * down", and its finalizers must do exactly that.
 *
 * @since 0.1.0
 */
export class UserInteractionProvider extends Context.Service<UserInteractionProvider, {
  readonly ask: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>
}>()("effect-user-interaction/UserInteractionProvider") {}
