/**
 * The `ntfy:URL` target: a publish as JSON to the ntfy server's root
 * (`https://ntfy.sh/mytopic` publishes `{"topic":"mytopic",…}` to
 * `https://ntfy.sh/`), with the token from `NTFY_TOKEN` as a bearer token.
 * The message is plain text (no `markdown: true`), so markdown the model
 * wrote shows as typed. Settled asks are not published: a push says a
 * question waits. Given `actions` (a remote inbox's tokens), an ask that
 * can be answered from the lock screen gets one `http` button per option
 * (`actions.ts`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { inertLine } from "../internal/desktopNotification.js"
import type { ActionButton, ActionTokens } from "./actions.js"
import { post } from "./http.js"
import type { Notice, NotifyTarget } from "./NotifyTarget.js"
import { NotifyFailed } from "./NotifyTarget.js"
import { ntfyTopic, shownUrl } from "./targetName.js"
import { noticeMessage, noticeTitle } from "./text.js"

/** The JSON published for `notice` on `topic`, with an action button for each of `buttons`. */
export const ntfyMessage = (topic: string, notice: Notice, buttons: ReadonlyArray<ActionButton> = []) => ({
  topic,
  title: noticeTitle(notice.ask.request, notice.type),
  message: noticeMessage(notice.ask.request),
  tags: ["question"],
  priority: 4,
  ...(notice.link === undefined ? {} : { click: notice.link }),
  ...(buttons.length === 0 ? {} : {
    actions: buttons.map(({ label, url }) => ({
      action: "http",
      // Model text, shown on a lock screen: inert as every other line of the notification.
      label: inertLine(label, 80),
      url,
      method: "POST",
      clear: true
    }))
  })
})

/**
 * A target publishing to the ntfy topic at `url`, with `token` (default
 * `NTFY_TOKEN`) when there is one, and with `actions` the buttons that
 * answer an ask from the notification.
 *
 * @since 0.3.0
 */
export const ntfy = (
  url: string,
  options?: { readonly token?: string | undefined; readonly actions?: ActionTokens | undefined }
): NotifyTarget => {
  const at = ntfyTopic(url)
  const token = options?.token ?? process.env["NTFY_TOKEN"]
  return {
    name: `ntfy:${shownUrl(url)}`,
    accepts: (type) => type !== "ask.settled",
    send: (notice) =>
      at === undefined
        ? Effect.fail(new NotifyFailed({ message: "not an ntfy topic URL (https://HOST/TOPIC)" }))
        : post(at.root, {
          "content-type": "application/json",
          ...(token === undefined || token === "" ? {} : { authorization: `Bearer ${token}` })
        }, JSON.stringify(ntfyMessage(at.topic, notice, options?.actions?.buttons(notice.ask, at.topic))))
  }
}
