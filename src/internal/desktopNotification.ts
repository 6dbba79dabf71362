/**
 * A desktop notification written as terminal escapes: OSC 777
 * (`notify;title;body`: urxvt, foot, Ghostty, WezTerm, VTE terminals) and
 * OSC 9 (`body`: iTerm2, Windows Terminal, kitty, ConEmu). Terminals ignore
 * the one they do not know. Shared by the terminal provider and the
 * `desktop` notification target, neither of which may import the other.
 *
 * The text comes from the model: it is sanitised like all displayed text and
 * loses its `;` (the OSC field separator), so nothing in it can end the
 * sequence early or start another.
 *
 * @internal
 */
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { sanitize, sanitizeLine } from "./sanitize.js"

// Long enough to recognise the question, short enough for a notification.
const maxBody = 200

/**
 * `text` inert, of at most `max` code points (cut between code points, with
 * "…"): one line, or with `lines` its newlines kept.
 */
export const inertLine = (text: string, max: number, lines = false): string => {
  const line = Array.from((lines ? sanitize(text) : sanitizeLine(text)).trim())
  // Cut between code points, never inside a surrogate pair.
  return line.length > max ? `${line.slice(0, max - 1).join("")}…` : line.join("")
}

/** One field of an OSC notification: inert, one line, no separator, bounded. */
const field = (text: string, max: number): string => inertLine(text.replace(/;/g, ","), max)

/** Who asks, as a notification's title says it. */
export const askerTitle = (request: AskUserQuestionRequest): string => {
  const asker = request.agent?.name ?? request.agent?.id
  return asker === undefined || asker === "" ? "A question for you" : `${asker} asks`
}

/** The OSC 777 and OSC 9 notifications announcing `request`, its title prefixed by `prefix` (a reminder's). */
export const desktopNotification = (request: AskUserQuestionRequest, prefix = ""): string => {
  const title = field(`${prefix}${askerTitle(request)}`, 80)
  const first = request.questions[0]?.question ?? ""
  const more = request.questions.length > 1 ? ` (+${request.questions.length - 1} more)` : ""
  const body = field(`${first}${more}`, maxBody)
  return `\x1b]777;notify;${title};${body}\x07\x1b]9;${title}: ${body}\x07`
}
