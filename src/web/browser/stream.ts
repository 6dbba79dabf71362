/**
 * The answer page's event stream, shared by the tabs of one browser (decision
 * 059): the tab holding a Web Lock opens the `EventSource` and relays every
 * event over a `BroadcastChannel`; the others follow and take over when it
 * closes. One stream per tab would use up the browser's six HTTP/1.1
 * connections per host at six tabs, and then no answer could be sent. The
 * tabs also tell each other whether they are in view, so that only one
 * notification is raised per arrival, and only when no tab is looked at.
 * Browser code: see `page.ts`.
 */
import type { ClaimEvent } from "./claims.js"
import type { Closing, PendingRequest, Resolved } from "./wire.js"

/** What the leading tab relays to the others: its stream's events and state. */
export type StreamMessage =
  | { readonly type: "open" }
  | { readonly type: "status"; readonly text: string; readonly closed: boolean }
  | { readonly type: "asked"; readonly data: PendingRequest }
  | { readonly type: "resolved"; readonly data: Resolved }
  | { readonly type: "closing"; readonly data: Closing }
  | ClaimEvent

/**
 * What tabs tell each other about themselves (not relayed events): whether
 * each is in view, so the leading tab notifies only when none is; `who` asks
 * every tab to say it again (a new leader knows nothing yet).
 */
type TabMessage =
  | { readonly type: "visibility"; readonly tab: string; readonly visible: boolean }
  | { readonly type: "who" }

/** What the stream needs of the page. */
export interface StreamHooks {
  /** The page's token (empty on a remote inbox, whose cookie goes with every request). */
  readonly token: string
  /** Handles one event, whichever tab's stream it came from. */
  readonly receive: (message: StreamMessage) => void
  /** This tab follows another's stream: it hears no `open`, so it learns what is pending itself. */
  readonly follow: () => void
  /** True once the server said `closing`: no stream is opened again. */
  readonly finished: () => boolean
}

/** The shared stream, as the page uses it. */
export interface SharedStream {
  /** Takes the lead (opens the stream) or follows the tab that has it. */
  readonly start: () => void
  /** Ends this tab's stream, if it has one. */
  readonly stop: () => void
  /** Whether this tab holds the stream (and so speaks for the browser about arrivals). */
  readonly leading: () => boolean
  /** Nobody is looking at any of the page's tabs (as far as the tabs have said). */
  readonly unseen: () => boolean
}

/** Sets up this tab's part in the shared stream; nothing is opened until `start`. */
export const sharedStream = (hooks: StreamHooks): SharedStream => {
  const shareName = `ask-user-web:${hooks.token}`
  const sharing = "BroadcastChannel" in window && "locks" in navigator
  const channel = sharing ? new BroadcastChannel(shareName) : undefined
  let leading = false
  /** The other tabs of this browser that say they are in view. */
  const lookers = new Set<string>()
  const tabId = Math.random().toString(36).slice(2)

  const tellVisibility = (visible = document.visibilityState === "visible") =>
    channel?.postMessage({ type: "visibility", tab: tabId, visible } satisfies TabMessage)

  const hear = (message: TabMessage) => {
    if (message.type === "who") tellVisibility()
    else if (message.visible) lookers.add(message.tab)
    else lookers.delete(message.tab)
  }
  channel?.addEventListener("message", (event) => {
    const message = (event as MessageEvent<StreamMessage | TabMessage>).data
    if (message.type === "visibility" || message.type === "who") hear(message)
    else hooks.receive(message)
  })
  document.addEventListener("visibilitychange", () => tellVisibility())
  addEventListener("pagehide", () => tellVisibility(false))

  /** Handles an event of this tab's own stream and passes it to the other tabs. */
  const relay = (message: StreamMessage) => {
    channel?.postMessage(message)
    hooks.receive(message)
  }

  let stop = () => {}

  /** Opens this tab's stream; resolves once the server said `closing`, or another tab relayed it. */
  const connect = () =>
    new Promise<void>((resolve) => {
      if (hooks.finished()) return resolve()
      leading = true
      channel?.postMessage({ type: "who" } satisfies TabMessage)
      const query = hooks.token === "" ? "" : `?token=${encodeURIComponent(hooks.token)}`
      const source = new EventSource(`/api/events${query}`)
      stop = () => {
        source.close()
        resolve()
      }
      source.addEventListener("open", () => relay({ type: "open" }))
      source.addEventListener("error", () => {
        const closed = source.readyState === EventSource.CLOSED
        relay({ type: "status", closed, text: closed ? "Disconnected: reload the page to reconnect." : "Reconnecting…" })
      })
      const data = (event: Event): unknown => JSON.parse((event as MessageEvent<string>).data)
      source.addEventListener("asked", (event) => relay({ type: "asked", data: data(event) as PendingRequest }))
      source.addEventListener("resolved", (event) => relay({ type: "resolved", data: data(event) as Resolved }))
      source.addEventListener("closing", (event) => relay({ type: "closing", data: data(event) as Closing }))
      for (const type of ["claimed", "released"] as const) {
        source.addEventListener(type, (event) => relay({ type, data: data(event) } as ClaimEvent))
      }
    })

  /**
   * The tab that gets the lock holds the stream until `closing` (or until it
   * closes); the others learn what is pending from the list, follow the
   * relayed events, and wait for the lock to take over.
   */
  const start = () => {
    tellVisibility()
    if (channel === undefined) return void connect()
    void navigator.locks.request(shareName, { ifAvailable: true }, (lock) => {
      if (lock !== null) return connect()
      hooks.follow()
      void navigator.locks.request(shareName, connect)
      return undefined
    })
  }

  return {
    start,
    stop: () => stop(),
    leading: () => leading,
    unseen: () => document.visibilityState === "hidden" && lookers.size === 0
  }
}
