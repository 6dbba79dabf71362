/**
 * The target a command line's `--notify` names (checked by `isTarget`).
 *
 * @internal
 */
import { desktop } from "./desktop.js"
import type { NotifyTarget } from "./NotifyTarget.js"
import { ntfy } from "./ntfy.js"
import { webhook } from "./webhook.js"

/** The target `text` names (check it with `isTarget` first): `desktop`, `ntfy:URL`, else `webhook:URL`. */
export const parseTarget = (text: string): NotifyTarget =>
  text === "desktop" ? desktop() : text.startsWith("ntfy:") ? ntfy(text.slice(5)) : webhook(text.slice(8))
