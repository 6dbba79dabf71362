/**
 * The target a command line's `--notify` names (checked by `isTarget`).
 *
 * @internal
 */
import type { ActionTokens } from "./actions.js"
import { desktop } from "./desktop.js"
import type { NotifyTarget } from "./NotifyTarget.js"
import { ntfy } from "./ntfy.js"
import { webhook } from "./webhook.js"

/**
 * The target `text` names (check it with `isTarget` first): `desktop`,
 * `ntfy:URL` (with `actions`' buttons when given), else `webhook:URL`.
 */
export const parseTarget = (text: string, actions?: ActionTokens): NotifyTarget =>
  text === "desktop" ? desktop() : text.startsWith("ntfy:") ? ntfy(text.slice(5), { actions }) : webhook(text.slice(8))
