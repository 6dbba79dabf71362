/**
 * effect-user-interaction: the "ask the human" seam for agent harnesses.
 *
 * @since 0.1.0
 */
export * from "./AskUserQuestion.js"
export * from "./AskValidation.js"
export * from "./UserInteractionError.js"
export {
  AskInterruption,
  type InterruptionReason,
  interruptionReason,
  UserInteractionProvider
} from "./UserInteractionProvider.js"
export { UserInteraction, type UserInteractionOptions } from "./UserInteraction.js"
export { ScriptedProvider } from "./ScriptedProvider.js"
export {
  makeUserInteractionClient,
  type PromiseProvider,
  type UserInteractionClient
} from "./UserInteractionClient.js"
export { AskUserQuestionArgs, decodeRequestJson } from "./AskUserQuestionArgs.js"
export * from "./ElicitationForm.js"
export { AskingAgent, AskUserQuestionHandlers, AskUserQuestionTool, AskUserQuestionToolkit, UserInteractionErrorJson } from "./AskUserQuestionTool.js"
export { McpProvider, McpToolCall } from "./McpProvider.js"
export { AcpProvider, AcpSession, type AcpProviderOptions } from "./AcpProvider.js"
export { WebProvider, type WebPendingAsk, type WebProviderOptions } from "./WebProvider.js"
export * as TerminalProvider from "./TerminalProvider.js"
export { FanoutProvider } from "./FanoutProvider.js"
