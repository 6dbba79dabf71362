/**
 * What a notification says, from model text made inert: a title (who asks,
 * and the first question's header) and a message (the questions), as the
 * terminal would show them (`internal/sanitize.ts`), never an answer.
 *
 * @internal
 */
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { askerTitle, inertLine } from "../internal/desktopNotification.js"
import { sanitize } from "../internal/sanitize.js"
import type { NoticeType } from "./NotifyTarget.js"

/** ntfy's limit is 4,096 bytes; SPEC cuts the questions at 1,000 characters. */
export const maxMessage = 1000

/** The title: "Reminder: " for a reminder, who asks, and the first question's header. */
export const noticeTitle = (request: AskUserQuestionRequest, type: NoticeType): string => {
  const header = request.questions[0]?.header ?? ""
  const asker = askerTitle(request)
  return inertLine(`${type === "ask.reminder" ? "Reminder: " : ""}${header === "" ? asker : `${asker}: ${header}`}`, 200)
}

/** The message: each question on a line of its own, inert, cut to 1,000 code points in all. */
export const noticeMessage = (request: AskUserQuestionRequest): string =>
  inertLine(request.questions.map((q) => q.question).join("\n"), maxMessage, true)

/** `value` with every string in it made inert as the terminal shows it (newlines kept). */
export const inertStrings = (value: unknown): unknown => {
  if (typeof value === "string") return sanitize(value)
  if (Array.isArray(value)) return value.map(inertStrings)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inertStrings(item)]))
  }
  return value
}
