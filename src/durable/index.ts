/**
 * effect-user-interaction/durable: asks that outlive the process that asked
 * them, on Effect's workflow engine over SQLite or PostgreSQL.
 *
 * @since 0.2.0
 */
export { type Outcome, SettledStatus } from "./AskWorkflow.js"
export {
  type AskStatusReport,
  type ClaimOptions,
  DurableInbox,
  type InboxChange,
  type PendingAsk,
  type SettledAsk,
  type SubmitOptions
} from "./DurableInbox.js"
export { DurableClusterError } from "./DurableClusterError.js"
export { DurableProvider, type DurableProviderOptions } from "./DurableProvider.js"
export {
  type AskRecord,
  type AskStatus,
  DurableStore,
  DurableStoreUrlError,
  type PendingScan,
  type UnreadableAsk
} from "./DurableStore.js"
export type { NotifyOptions } from "./notify.js"
export { type Device, deviceNameProblem, maxDeviceNameLength, type NewDevice, type PairedDevices } from "./devices.js"
export { codeAlphabet, codeLength, codeTtlMillis, maxWrongTries, type PairingCode, PairingRefused } from "./pairing.js"
export { expiresInProblem, maxExpiresIn } from "./expiry.js"
export type { HistoryOptions, HistoryScan } from "./history.js"
export {
  deliver,
  type DeliveryPolicy,
  desktop,
  type Notice,
  type NoticeAsk,
  type NoticeType,
  NotifyFailed,
  type NotifyTarget,
  ntfy,
  webhook
} from "../notify/index.js"
export type { AskClaim, DurableReceipt, SettleOptions } from "./receipts.js"
