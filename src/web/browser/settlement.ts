/**
 * How the answer page words the end of a request it was not deciding
 * ("answered in the terminal", "withdrawn: its time ran out") and the end of
 * ask-user itself. Browser code: see `page.ts`.
 */
import type { Closing, Resolved } from "./wire.js"

/** What the page says once ask-user has finished: the truth about how its questions ended. */
export const finishedText = (closing: Closing): string =>
  closing.unanswered > 0
    ? "ask-user stopped before every question was answered. You can close this tab."
    : closing.cancelled === 1
    ? "No more questions: one request was cancelled or declined. You can close this tab."
    : closing.cancelled > 1
    ? `No more questions: ${closing.cancelled} requests were cancelled or declined. You can close this tab.`
    : "All questions were answered. You can close this tab."

/** How a settlement reads after "this request was …": "answered in another tab". */
export const settledPhrase = (resolved: Resolved | undefined): string => {
  if (resolved === undefined) return "settled elsewhere"
  if (resolved.where !== undefined) {
    const how = resolved.settled === "answered" ? "answered" : resolved.settled === "ASK_DECLINED" ? "declined" : "cancelled"
    return `${how} in ${resolved.where}`
  }
  switch (resolved.outcome) {
    case "answered":
      return "answered in another tab"
    case "cancelled":
      return "cancelled in another tab"
    case "timeout":
      return "withdrawn: its time ran out"
    case "closed":
      return "withdrawn: ask-user is stopping"
    default:
      // The agent stopped waiting, or ask-user is stopping (a signal): both look the same from here.
      return "withdrawn before it was answered"
  }
}

/** A phrase as the start of a sentence. */
export const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

