/**
 * The answer page's claims (browser code; see `page.ts`), when the server
 * keeps them (`WebProvider.layer({ claims })`, `ask-user inbox --web`).
 *
 * A page that starts answering a request claims it for its answerer: the
 * request is on screen, the tab is in view, and the person has done
 * something on the page lately (a key, a tap, the window's focus). It renews
 * the claim every third of its length while that holds, and releases it when
 * it leaves the request (answered, cancelled, another one shown, the tab
 * closed), when the tab has been out of view for a quarter of the claim's
 * length (30 s of the default 2 minutes), or when the person has done
 * nothing on it for the claim's length: a page left open on a desk does not
 * keep a question from the phone in Ana's hand.
 *
 * Every other page shows "Ana's phone is answering this request." in a
 * status line a screen reader announces, above the request, and disables the
 * request's controls (and Esc) until the claim is released or lapses; then it
 * says so, gives the controls back, and claims the request itself if its
 * person is at it.
 *
 * It watches the request card for changes (a new question, a notice, the
 * review) rather than being told of each, so the page calls it in few places.
 */

/** An answerer as the server names it. */
export interface PageAnswerer {
  readonly id: string
  readonly name?: string
}

/** A claim as the server sends it. */
export interface PageClaim {
  readonly by: PageAnswerer
  readonly until: string
}

/** What `GET /api/questions` says of claims. */
export interface ListedClaims {
  readonly pending: ReadonlyArray<{ readonly id: string; readonly claim?: PageClaim }>
  /** Present when the server keeps claims: a claim's length, and who this page answers as. */
  readonly claims?: { readonly ttlMillis: number; readonly you?: PageAnswerer }
}

/** The stream's `claimed` and `released` events. */
export type ClaimEvent =
  | { readonly type: "claimed"; readonly data: { readonly id: string } & PageClaim }
  | { readonly type: "released"; readonly data: { readonly id: string } }

/** What the claims need of the page. */
export interface ClaimHooks {
  /** The element that shows the request on screen: its controls are disabled while someone else answers. */
  readonly card: HTMLElement
  /** The request on screen, if any. */
  readonly current: () => string | undefined
  /** Whether the page still has the request. */
  readonly isPending: (id: string) => boolean
  /** The page's token, which every request carries. */
  readonly token: string
  /** A name as the page shows text it did not write (control characters as escapes). */
  readonly shown: (text: string) => string
}

/** The claims, as the page uses them. */
export interface PageClaims {
  /** What a `GET /api/questions` said. */
  readonly listed: (body: ListedClaims) => void
  /** A `claimed` or `released` event of the stream. */
  readonly heard: (event: ClaimEvent) => void
  /** Whether someone else holds the request: its answer or cancel would be refused. */
  readonly heldByOther: (id: string | undefined) => boolean
  /** The 409 an answer or cancel of `id` got: someone else took the request meanwhile. */
  readonly refused: (id: string, body: { readonly claim?: PageClaim }) => void
}

export const makeClaims = (hooks: ClaimHooks): PageClaims => {
  /** Who holds the pending requests' claims, as last heard. */
  const holders = new Map<string, PageAnswerer>()
  /** Set once the server said it keeps claims. */
  let ttl: number | undefined
  let you: PageAnswerer | undefined
  /** The request this page holds a claim on. */
  let held: string | undefined
  /** The request a claim is on its way for. */
  let claiming: string | undefined
  /** Requests this answerer may not claim (403): not asked again. */
  const refusedHere = new Set<string>()
  let renewTimer: ReturnType<typeof setInterval> | undefined
  let hiddenTimer: ReturnType<typeof setTimeout> | undefined
  /** When the tab went out of view; a tab opened in the background has been out of view for good. */
  let hiddenSince: number | undefined = document.visibilityState === "hidden" ? 0 : undefined
  let lastActivity = Date.now()
  /** Set as the page goes away: what its stream still delivers meanwhile must not claim again. */
  let leaving = false
  /** The request the status line speaks of, and who it said holds it. */
  let spoken: { readonly id: string; readonly by: PageAnswerer | undefined } | undefined

  const status = document.createElement("p")
  status.id = "claim-status"
  status.setAttribute("role", "status")
  hooks.card.before(status)

  const nameOf = (by: PageAnswerer) => hooks.shown(by.name ?? by.id)
  const isOther = (by: PageAnswerer | undefined) => by !== undefined && by.id !== you?.id
  const heldByOther = (id: string | undefined) => id !== undefined && isOther(holders.get(id))

  /** How long the tab may be out of view before it lets its request go. */
  const hiddenMillis = () => (ttl ?? 0) / 4

  /** The person is at this page: it is in view (or was until a moment ago), and they did something lately. */
  const engaged = () =>
    !leaving && (hiddenSince === undefined || Date.now() - hiddenSince < hiddenMillis()) &&
    Date.now() - lastActivity < (ttl ?? 0)

  const post = (id: string, what: "claim" | "release", keepalive = false) =>
    fetch(`/api/questions/${encodeURIComponent(id)}/${what}`, {
      method: "POST",
      headers: { authorization: `Bearer ${hooks.token}` },
      // Sent even as the tab closes.
      keepalive
    })

  const stopRenewing = () => {
    if (renewTimer !== undefined) clearInterval(renewTimer)
    renewTimer = undefined
  }

  const release = (id: string, keepalive = false) => {
    if (held === id) held = undefined
    stopRenewing()
    if (you !== undefined && holders.get(id)?.id === you.id) holders.delete(id)
    if (hooks.isPending(id)) void post(id, "release", keepalive).catch(() => undefined)
  }

  /** Someone else holds `id` (from a 409): `by` when the server said who. */
  const takenBy = (id: string, by: PageAnswerer | undefined) => {
    holders.set(id, by ?? { id: "", name: "Someone else" })
    if (held === id) {
      held = undefined
      stopRenewing()
    }
  }

  /** Claims or renews `id`; whatever the reply, the page is brought up to date with it. */
  const claim = async (id: string) => {
    claiming = id
    try {
      const response = await post(id, "claim")
      const body = await response.json().catch(() => ({})) as { readonly claim?: PageClaim }
      if (response.status === 200) {
        if (body.claim !== undefined) holders.set(id, body.claim.by)
        if (hooks.current() === id && engaged()) {
          held = id
          renewTimer ??= setInterval(renew, (ttl ?? 0) / 3)
        } else release(id)
      } else if (response.status === 409) {
        takenBy(id, body.claim?.by)
      } else if (response.status === 403) {
        refusedHere.add(id)
        if (held === id) release(id)
      } else if (held === id) {
        // Settled, or the server is gone: nothing to hold.
        held = undefined
        stopRenewing()
      }
    } catch {
      // Unreachable for now: the next renewal or event tries again.
    } finally {
      claiming = undefined
      reconcile()
    }
  }

  const renew = () => {
    if (held === undefined) return stopRenewing()
    if (held !== hooks.current() || !engaged()) return release(held)
    void claim(held)
  }

  /** Brings the claim and the screen in line with the request on screen and the person's presence. */
  const reconcile = () => {
    const id = hooks.current()
    if (held !== undefined && (held !== id || !engaged())) release(held)
    if (
      ttl !== undefined && you !== undefined && id !== undefined && held === undefined && claiming === undefined &&
      engaged() && !heldByOther(id) && !refusedHere.has(id)
    ) void claim(id)
    render(id)
  }

  /** The status line and the card's controls, for the request on screen. */
  const render = (id: string | undefined) => {
    const holder = id === undefined ? undefined : holders.get(id)
    const other = isOther(holder) ? holder : undefined
    if (id === undefined) {
      spoken = undefined
      status.textContent = ""
    } else if (other !== undefined && (spoken?.id !== id || spoken.by?.id !== other.id || spoken.by.name !== other.name)) {
      spoken = { id, by: other }
      say(`${nameOf(other)}`, " is answering this request. You can answer it once they leave it.")
    } else if (other === undefined && spoken?.id === id && spoken.by !== undefined) {
      say(`${nameOf(spoken.by)}`, " left this request: you can answer it now.")
      spoken = { id, by: undefined }
    } else if (other === undefined && spoken?.id !== id) {
      spoken = { id, by: undefined }
      status.textContent = ""
    }
    hold(other !== undefined)
  }

  /** The status line: a name (isolated, as the page shows text it did not write) and the page's words. */
  const say = (name: string, words: string) => {
    const bdi = document.createElement("bdi")
    bdi.textContent = name
    status.replaceChildren(bdi, words)
  }

  /**
   * Disables the card's controls while someone else answers, and gives back
   * exactly those it disabled (a control the page itself disabled stays so).
   */
  const hold = (holding: boolean) => {
    const controls = hooks.card.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
      "button, input, textarea, select"
    )
    if (holding) {
      const hadFocus = hooks.card.contains(document.activeElement)
      for (const control of controls) {
        if (control.disabled) continue
        control.disabled = true
        control.dataset["claimHeld"] = "true"
      }
      // A disabled control drops the focus to <body>: keep it on the request, at its heading.
      if (hadFocus && !hooks.card.contains(document.activeElement)) document.getElementById("question-text")?.focus()
    } else {
      for (const control of controls) {
        if (control.dataset["claimHeld"] !== "true") continue
        delete control.dataset["claimHeld"]
        control.disabled = false
      }
    }
  }

  // The card is rebuilt for every question, notice and review: each new one is held as the request is.
  new MutationObserver(() => reconcile()).observe(hooks.card, { childList: true, subtree: true })

  const active = () => {
    const idle = !engaged()
    lastActivity = Date.now()
    if (idle) reconcile()
  }
  for (const event of ["pointerdown", "keydown", "touchstart", "wheel"]) {
    addEventListener(event, active, { capture: true, passive: true })
  }
  addEventListener("focus", active)
  document.addEventListener("visibilitychange", () => {
    if (hiddenTimer !== undefined) clearTimeout(hiddenTimer)
    hiddenTimer = undefined
    if (document.visibilityState === "hidden") {
      hiddenSince = Date.now()
      hiddenTimer = setTimeout(reconcile, hiddenMillis() + 100)
    } else {
      // Looking at the page again is being at it.
      hiddenSince = undefined
      lastActivity = Date.now()
      reconcile()
    }
  })
  // Closing the tab or leaving the page: the claim goes with it, not two minutes later.
  addEventListener("pagehide", () => {
    leaving = true
    if (held !== undefined) release(held, true)
  })
  // Back from the browser's page cache: the same page, shown again.
  addEventListener("pageshow", (event) => {
    if (!event.persisted) return
    leaving = false
    active()
  })

  return {
    listed: (body) => {
      if (body.claims === undefined) return
      ttl = body.claims.ttlMillis
      you = body.claims.you
      for (const { claim, id } of body.pending) {
        if (claim === undefined) holders.delete(id)
        else holders.set(id, claim.by)
      }
      // What is no longer pending is no longer anyone's.
      for (const id of holders.keys()) if (!hooks.isPending(id)) holders.delete(id)
      reconcile()
    },
    heard: (event) => {
      const id = event.data.id
      if (event.type === "claimed") {
        holders.set(id, event.data.by)
        // Taken from this page: its claim lapsed, or someone broke it.
        if (held === id && isOther(event.data.by)) takenBy(id, event.data.by)
      } else {
        holders.delete(id)
        // Released from under this page (its claim lapsed, or another tab let it go): claim it again.
        if (held === id) {
          held = undefined
          stopRenewing()
        }
      }
      reconcile()
    },
    heldByOther,
    refused: (id, body) => {
      takenBy(id, body.claim?.by)
      reconcile()
    }
  }
}
