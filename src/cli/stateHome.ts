/**
 * The user's state directory, where `ask-user` keeps what it makes for
 * later runs (the default durable store, the remote inbox's certificate):
 * `$XDG_STATE_HOME`, else `~/.local/state`.
 *
 * @internal
 */
import { homedir } from "node:os"
import { join } from "node:path"

/** `$XDG_STATE_HOME`, else `~/.local/state` (an empty variable counts as unset, as the XDG spec says). */
export const stateHome = (): string => process.env.XDG_STATE_HOME || join(homedir(), ".local", "state")
