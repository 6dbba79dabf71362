/**
 * effect-user-interaction: the "ask the human" seam for agent harnesses.
 *
 * @since 0.1.0
 */
export * from "./AskUserQuestion.js"
export * from "./AskValidation.js"
export * from "./UserInteractionError.js"
export { UserInteractionProvider } from "./UserInteractionProvider.js"
export { UserInteraction, type UserInteractionOptions } from "./UserInteraction.js"
export { ScriptedProvider } from "./ScriptedProvider.js"
export {
  makeUserInteractionClient,
  type PromiseProvider,
  type UserInteractionClient
} from "./UserInteractionClient.js"
export { AskUserQuestionArgs, decodeRequestJson } from "./AskUserQuestionArgs.js"
