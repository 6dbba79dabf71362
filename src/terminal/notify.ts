/**
 * How a terminal announces a waiting question: the bell, and on request a
 * desktop notification (OSC 777 and OSC 9, written by
 * `internal/desktopNotification.ts`, which the `desktop` notification target
 * shares).
 *
 * @internal
 */
export { desktopNotification } from "../internal/desktopNotification.js"

/**
 * How a question is announced: `"bell"` rings the terminal bell, `"desktop"`
 * also sends a desktop notification, `"none"` stays quiet.
 *
 * @since 0.2.0
 */
export type Notify = "bell" | "desktop" | "none"
