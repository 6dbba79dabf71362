/**
 * The answer page's system notifications: a button to ask the browser for
 * permission (shown only while the person has not decided), and one
 * notification per request that arrives while no tab of the page is in
 * view, raised only by the tab that holds the shared stream and never for
 * what a stream replays when it opens. A notification whose request is
 * settled is taken down. Browser code: see `page.ts`.
 */
import { h, shown } from "./dom.js"
import { agentName } from "./requestList.js"
import type { PendingRequest } from "./wire.js"

/** What the notifications need of the page. */
export interface ArrivalHooks {
  /** Where the permission button goes (after it). */
  readonly anchor: HTMLElement
  /** Whether this tab speaks for the browser (it holds the stream). */
  readonly leading: () => boolean
  /** Whether the stream is replaying what was already waiting. */
  readonly replaying: () => boolean
  /** Whether no tab of the page is in view. */
  readonly unseen: () => boolean
  /** The person clicked the notification of request `id`. */
  readonly clicked: (id: string) => void
}

/** The notifications, as the page uses them. */
export interface Arrivals {
  /** A request arrived on the stream. */
  readonly arrived: (entry: PendingRequest) => void
  /** A request left the page: its notification goes. */
  readonly gone: (id: string) => void
  /** Nothing will be asked here again: the permission button goes. */
  readonly finish: () => void
}

/** Puts the permission button after `hooks.anchor` and returns the notifications. */
export const makeArrivals = (hooks: ArrivalHooks): Arrivals => {
  const notifications = "Notification" in window
  const button = h("button", { type: "button", class: "notify" }, "Notify me of new questions")
  button.hidden = !notifications || Notification.permission !== "default"
  button.addEventListener("click", () => {
    void Notification.requestPermission().then(() => {
      button.hidden = Notification.permission !== "default"
    })
  })
  hooks.anchor.after(button)
  /** The notifications this tab raised, by request. */
  const raised = new Map<string, Notification>()

  const arrived = (entry: PendingRequest) => {
    if (!notifications || Notification.permission !== "granted" || !hooks.leading() || hooks.replaying() || !hooks.unseen()) {
      return
    }
    // Text only: a notification's title and body are never parsed as HTML. FSI and PDI isolate
    // the name, as <bdi> does in the page, and hold because the name's own controls are escaped.
    const notification = new Notification(`\u2068${shown(agentName(entry))}\u2069 asks`, {
      body: shown(entry.request.questions[0]?.question ?? ""),
      tag: entry.id
    })
    raised.set(entry.id, notification)
    notification.addEventListener("click", () => {
      window.focus()
      hooks.clicked(entry.id)
      notification.close()
    })
  }

  return {
    arrived,
    gone: (id) => {
      raised.get(id)?.close()
      raised.delete(id)
    },
    finish: () => {
      button.hidden = true
    }
  }
}
