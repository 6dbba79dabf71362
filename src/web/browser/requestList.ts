/**
 * The answer page's list of pending requests: one button per request, with
 * its agent, its first question, how long it has waited and how long it
 * still may (when it stops at a known time). The times are counted from the
 * server's timestamps against this device's clock, and kept fresh while the
 * page is open. Browser code: see `page.ts`.
 */
import { h, modelIn } from "./dom.js"
import type { PendingRequest } from "./wire.js"

/** Who asks, as the page names them: the agent's name, else its id. */
export const agentName = (entry: PendingRequest) => entry.request.agent?.name ?? entry.request.agent?.id ?? "The agent"

/** A span of time as people say it: "just now", "4 min", "2 h 5 min", "3 days". */
const span = (millis: number): string => {
  const minutes = Math.floor(millis / 60_000)
  if (minutes < 1) return "less than a minute"
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`
  const days = Math.floor(hours / 24)
  return days === 1 ? "1 day" : `${days} days`
}

/** "asked 4 min ago · 56 min left": the request's age, and its time left when it has an end. */
export const timing = (entry: PendingRequest, now = Date.now()): string => {
  const asked = Date.parse(entry.askedAt)
  const age = Number.isNaN(asked) ? "" : now - asked < 60_000 ? "asked just now" : `asked ${span(now - asked)} ago`
  const expires = entry.expiresAt === undefined ? Number.NaN : Date.parse(entry.expiresAt)
  if (Number.isNaN(expires)) return age
  const left = expires - now
  return `${age} · ${left <= 0 ? "time is up" : `${span(left)} left`}`
}

/** The elements that show a request's timing: refreshed in place, so nothing moves under the person's finger. */
const timings = new Map<HTMLElement, PendingRequest>()

/** A request's timing, as an element kept fresh (`refreshTimings`). */
export const timingOf = (entry: PendingRequest, attrs: Record<string, string> = {}): HTMLElement => {
  const element = h("span", { class: "timing", ...attrs }, timing(entry))
  timings.set(element, entry)
  return element
}

/** Rewrites every timing still in the document, and forgets those that are not. */
export const refreshTimings = () => {
  const now = Date.now()
  for (const [element, entry] of timings) {
    if (!element.isConnected) timings.delete(element)
    else element.textContent = timing(entry, now)
  }
}

/** A request's button in the list: its agent, its first question, its size and timing. */
export const requestButton = (entry: PendingRequest, current: boolean): HTMLButtonElement => {
  const count = entry.request.questions.length
  const button = h(
    "button",
    { type: "button", class: "request" },
    modelIn("span", { class: "request-agent" }, agentName(entry)),
    modelIn("span", { class: "request-first" }, entry.request.questions[0]?.question ?? ""),
    h("span", { class: "request-count" }, count === 1 ? "1 question" : `${count} questions`, " · ", timingOf(entry))
  )
  if (current) button.setAttribute("aria-current", "true")
  return button
}
