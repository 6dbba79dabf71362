/**
 * Notification targets (`ntfy`, `webhook`, `desktop`) and their delivery,
 * for `DurableInbox.notify` and `ask-user inbox --notify`.
 *
 * @since 0.3.0
 */
export {
  type ActionButton,
  type ActionClaim,
  actionLabels,
  type ActionTokens,
  makeActionTokens,
  maxActionOptions,
  type RedeemedClaim,
  signAction,
  verifyAction
} from "./actions.js"
export { desktop } from "./desktop.js"
export {
  deliver,
  type DeliveryPolicy,
  type Notice,
  type NoticeAsk,
  type NoticeType,
  NotifyFailed,
  type NotifyTarget
} from "./NotifyTarget.js"
export { ntfy } from "./ntfy.js"
export { parseTarget } from "./parse.js"
export { isTarget, targetForms } from "./targetName.js"
export { webhook } from "./webhook.js"
