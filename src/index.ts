/**
 * effect-user-interaction: the "ask the human" seam for agent harnesses.
 *
 * This root entry is the core: the vocabulary, the errors, the seam, the
 * scripted and fan-out providers, the `ask_user_question` tool, the Promise
 * client and the elicitation form. It loads no protocol SDK, no HTTP server
 * and no terminal code; each surface is an entry point of its own
 * (`effect-user-interaction/terminal`, `/web`, `/acp`, `/mcp`).
 *
 * @since 0.1.0
 */
export * from "./AskUserQuestion.js"
export * from "./Answerer.js"
export * from "./AskValidation.js"
export * from "./UserInteractionError.js"
export * from "./AskEvent.js"
export {
  answererOf,
  AskInterruption,
  describeSurface,
  type InterruptionReason,
  interruptionReason,
  markAnswerer,
  markSurface,
  type ProviderAnswer,
  SettledElsewhere,
  settledElsewhere,
  surfaceOf,
  UserInteractionProvider
} from "./UserInteractionProvider.js"
export { type AnswerWithReceipt, UserInteraction, type UserInteractionOptions } from "./UserInteraction.js"
export { ScriptedProvider } from "./ScriptedProvider.js"
export {
  makeUserInteractionClient,
  type PromiseProvider,
  type UserInteractionClient
} from "./UserInteractionClient.js"
export { AskUserQuestionArgs, decodeRequestJson } from "./AskUserQuestionArgs.js"
export * from "./ElicitationForm.js"
export {
  AskingAgent,
  askUserQuestionHandlers,
  AskUserQuestionHandlers,
  type AskUserQuestionHandlersOptions,
  AskUserQuestionResultJson,
  AskUserQuestionTool,
  AskUserQuestionToolkit,
  UserInteractionErrorJson
} from "./AskUserQuestionTool.js"
export { FanoutProvider } from "./FanoutProvider.js"
export { type Gate, OutcomeGate, settleFirst, type Settling } from "./OutcomeGate.js"
export { type OpenSecretPage, SecretPage } from "./SecretPage.js"
