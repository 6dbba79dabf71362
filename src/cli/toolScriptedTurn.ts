/**
 * A scripted model turn for the demo agent: a stand-in language model calls
 * `ask_user_question` with a request, the tool asks the human through the
 * seam, and the tool result the model would read comes back, as an answer or
 * as the error class (so the caller keeps its exit codes).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { LanguageModel } from "effect/ai"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { AskingAgent, AskUserQuestionHandlers, AskUserQuestionTool, AskUserQuestionToolkit } from "../AskUserQuestionTool.js"
import type { UserInteraction } from "../UserInteraction.js"
import { isUserInteractionError, ProviderFailed, type UserInteractionError } from "../UserInteractionError.js"

/** The request as a model writes it: `multi_select`, `on_timeout`, no `agent` (that is the harness's). */
const toModelArgs = (request: AskUserQuestionRequest) => ({
  questions: request.questions.map(({ multiSelect, ...question }) =>
    multiSelect === undefined ? question : { ...question, multi_select: multiSelect }
  ),
  ...(request.timeout === undefined ? {} : { timeout: request.timeout }),
  ...(request.onTimeout === undefined ? {} : { on_timeout: request.onTimeout })
})

/** A model whose one response is a call of `ask_user_question` with `params`. */
const modelCalling = (params: unknown) =>
  LanguageModel.make({
    generateText: () =>
      Effect.succeed([{ type: "tool-call" as const, id: "demo_call_1", name: AskUserQuestionTool.name, params }]),
    streamText: () => Stream.die("the scripted demo model only answers generateText")
  })

/**
 * Runs one model turn that asks `request` through the tool and returns the
 * answer the model receives; a failure the model would read comes back as
 * its error class.
 */
export const askThroughModelTurn = (
  request: AskUserQuestionRequest
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError, UserInteraction> =>
  Effect.gen(function*() {
    const model = yield* modelCalling(toModelArgs(request))
    const response = yield* LanguageModel.generateText({ prompt: "Set up the new service", toolkit: AskUserQuestionToolkit }).pipe(
      Effect.provideService(LanguageModel.LanguageModel, model),
      Effect.provideService(AskingAgent, request.agent),
      Effect.provide(AskUserQuestionHandlers)
    )
    const result = response.toolResults[0]
    if (result === undefined) return yield* new ProviderFailed({ message: "The demo model's tool call got no result." })
    if (!result.isFailure) return result.result as AskUserQuestionAnswer
    if (isUserInteractionError(result.result)) return yield* result.result
    return yield* new ProviderFailed({ message: "The tool call failed.", cause: result.result })
  }).pipe(
    Effect.catchTag("AiError", (error) => Effect.fail(new ProviderFailed({ message: error.message, cause: error })))
  )
