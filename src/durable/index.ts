/**
 * effect-user-interaction/durable: asks that outlive the process that asked
 * them, on Effect's workflow engine over SQLite or PostgreSQL.
 *
 * @since 0.2.0
 */
export { type Outcome, SettledStatus } from "./AskWorkflow.js"
export { type AskStatusReport, DurableInbox, type InboxChange, type PendingAsk } from "./DurableInbox.js"
export { DurableProvider, type DurableProviderOptions } from "./DurableProvider.js"
export {
  type AskRecord,
  type AskStatus,
  DurableStore,
  DurableStoreUrlError,
  type PendingScan,
  type UnreadableAsk
} from "./DurableStore.js"
export { expiresInProblem, maxExpiresIn } from "./expiry.js"
