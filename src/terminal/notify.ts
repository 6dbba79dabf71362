/**
 * How a terminal announces a waiting question: the bell, and on request a
 * desktop notification written as OSC 777 (`notify;title;body`: urxvt,
 * foot, Ghostty, WezTerm, VTE terminals) and OSC 9 (`body`: iTerm2, Windows
 * Terminal, kitty, ConEmu). Terminals ignore the one they do not know.
 *
 * The notification text comes from the model: it is sanitised like all
 * displayed text and loses its `;` (the OSC field separator), so nothing in it
 * can end the sequence early or start another.
 *
 * @internal
 */
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { sanitizeLine } from "../internal/sanitize.js"

/**
 * How a question is announced: `"bell"` rings the terminal bell, `"desktop"`
 * also sends a desktop notification, `"none"` stays quiet.
 *
 * @since 0.2.0
 */
export type Notify = "bell" | "desktop" | "none"

// Long enough to recognise the question, short enough for a notification.
const maxBody = 200

/** One field of an OSC notification: inert, one line, no separator, bounded. */
const field = (text: string, max: number): string => {
  const line = Array.from(sanitizeLine(text).replace(/;/g, ",").trim())
  // Cut between code points, never inside a surrogate pair.
  return line.length > max ? `${line.slice(0, max - 1).join("")}…` : line.join("")
}

/** The OSC 777 and OSC 9 notifications announcing `request`. */
export const desktopNotification = (request: AskUserQuestionRequest): string => {
  const asker = request.agent?.name ?? request.agent?.id
  const title = field(asker === undefined || asker === "" ? "A question for you" : `${asker} asks`, 80)
  const first = request.questions[0]?.question ?? ""
  const more = request.questions.length > 1 ? ` (+${request.questions.length - 1} more)` : ""
  const body = field(`${first}${more}`, maxBody)
  return `\x1b]777;notify;${title};${body}\x07\x1b]9;${title}: ${body}\x07`
}
