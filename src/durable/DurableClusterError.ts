/**
 * Why a process could not join its store's cluster as a runner: a setting
 * of the cluster's address that is not one, or an address it cannot listen
 * on (another agent holds the same fixed port). Said before anything runs,
 * so that the agent ends with the reason instead of a defect.
 *
 * @since 0.3.0
 */
import * as Data from "effect/Data"

/**
 * A runner that cannot join its store's cluster. `InvalidSetting`:
 * `ASK_USER_CLUSTER_HOST` or `ASK_USER_CLUSTER_PORT` is not an address;
 * `CannotListen`: the address is in use or not this machine's.
 *
 * @since 0.3.0
 */
export class DurableClusterError extends Data.TaggedError("DurableClusterError")<{
  readonly reason: "InvalidSetting" | "CannotListen"
  /** The address it was to listen on (`host:port`), when it had one. */
  readonly address?: string | undefined
  readonly message: string
}> {}
