/**
 * The `desktop` target: a system notification on this machine, written as
 * the terminal's OSC 777 and OSC 9 escapes (as the terminal provider's
 * `--notify desktop` does), on the program's terminal. Settled asks are not
 * announced.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { desktopNotification } from "../internal/desktopNotification.js"
import { NotifyFailed, type NotifyTarget } from "./NotifyTarget.js"

/**
 * A target writing desktop notifications with `write` (default: to stderr
 * when it is a terminal; without one it fails, and `deliver` says so once).
 *
 * @since 0.3.0
 */
export const desktop = (options?: { readonly write?: ((text: string) => void) | undefined }): NotifyTarget => ({
  name: "desktop",
  accepts: (type) => type !== "ask.settled",
  send: (notice) =>
    Effect.suspend(() => {
      const write = options?.write ??
        (process.stderr.isTTY === true ? (text: string) => void process.stderr.write(text) : undefined)
      if (write === undefined) return Effect.fail(new NotifyFailed({ message: "no terminal to write it on" }))
      return Effect.sync(() =>
        write(desktopNotification(notice.ask.request, notice.type === "ask.reminder" ? "Reminder: " : ""))
      )
    })
})
