/**
 * The answer page's script (runs in the browser; compiled by `tsc` with the
 * rest of the package and inlined into the page by the web provider, under a
 * Content-Security-Policy hash, joined with the modules it imports: decision
 * 115). This module is the question flow: which request and question is on
 * screen, the answers given, their sending. Its parts live beside it:
 * `dom.ts` (model text into the document), `stream.ts` (the event stream the
 * tabs share), `requestList.ts` (the pending requests, their agent, age and
 * time left), `arrivals.ts` (system notifications), `question.ts` (one
 * question's screen, with `choices.ts` for its options and the recommended
 * one, `preview.ts`, and `textAnswer.ts` for text and password fields),
 * `review.ts` (the review before submit, when the provider turns it on),
 * `settlement.ts` (how the end of a request reads), `claims.ts` (who is
 * answering what), and `pairing.ts` (pairing a device with a remote inbox).
 *
 * It keeps the pending requests it hears about over Server-Sent Events, shows
 * one question of one request at a time and posts the answer. Model text only
 * ever reaches the document through `textContent` and attribute values, never
 * as HTML, always inside a bidi isolate (`<bdi>` or `dir="auto"`), and with
 * its control and invisible characters shown as escapes, as the terminal
 * shows them (`shown`): a direction override in it cannot reorder the page's
 * own words, and two labels that differ only by a zero-width character do not
 * look alike.
 *
 * On a remote inbox the page has no token: its device's cookie goes with
 * every request, and wherever the server answers 401 (never paired, or
 * revoked) the page shows the pairing form instead.
 *
 * When the request on screen is settled somewhere else, the page says so and
 * puts the focus on that notice, never on another request's control: a
 * keystroke meant for one request must not answer another.
 *
 * Where the server keeps claims, `claims.ts` claims the request this page is
 * answering and holds the requests others are answering.
 */

import { makeArrivals } from "./arrivals.js"
import { type ListedClaims, makeClaims } from "./claims.js"
import { type Child, h, model, shown } from "./dom.js"
import { showPairing } from "./pairing.js"
import { agentName, refreshTimings, requestButton, timingOf } from "./requestList.js"
import { review } from "./review.js"
import { sharedStream, type StreamMessage } from "./stream.js"
import { questionScreen } from "./question.js"
import { capitalized, finishedText, settledPhrase } from "./settlement.js"
import type { Step } from "./textAnswer.js"
import type { AnswerItem, Closing, PageQuestion, PendingRequest, Resolved } from "./wire.js"

/** How far the person got in one request: the question on screen (or, one past the last, the review) and the answers given. */
interface Progress {
  index: number
  readonly answers: Map<string, AnswerItem>
  /** The question on screen was chosen from the review: answering it returns there. */
  revising: boolean
}
const token = new URLSearchParams(location.search).get("token") ?? ""
/** The provider's `review` option, which the server writes into the page as a meta element. */
const reviewBeforeSubmit = document.querySelector('meta[name="review-before-submit"]')?.getAttribute("content") === "on"
const pending = new Map<string, PendingRequest>()
const progress = new Map<string, Progress>()
let currentId: string | undefined
/** The request whose answer or cancel this tab is posting: its own reply says what happened. */
let inFlight: string | undefined
let seenSinceOpen = new Set<string>()
/** Requests the stream said are settled: a list fetched earlier must not bring them back. */
const settled = new Map<string, Resolved>()
/** Set by the server's `closing` event: nothing will be asked here again. */
let finished: Closing | undefined

const byId = (id: string): HTMLElement => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`the page lacks #${id}`)
  return found
}
const card = byId("card")
const requestList = byId("requests")
const requestNav = byId("requests-nav")
const connection = byId("connection")
const announcer = byId("announcer")
const alertBox = byId("alert")

const announce = (...message: ReadonlyArray<Child>) => {
  // Clearing first makes a repeated message count as a change.
  announcer.textContent = ""
  setTimeout(() => {
    announcer.replaceChildren(...message)
  }, 50)
}
const showAlert = (...message: ReadonlyArray<Child>) => {
  alertBox.replaceChildren(...message)
}

const claims = makeClaims({ card, current: () => currentId, isPending: (id) => pending.has(id), token, shown })

const api = (path: string, body?: unknown) =>
  fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: token === "" ? { "content-type": "application/json" } : { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const progressOf = (id: string): Progress => {
  let found = progress.get(id)
  if (found === undefined) {
    found = { index: 0, answers: new Map(), revising: false }
    progress.set(id, found)
  }
  return found
}

/** The list's button for each request, as last built: the focus on one is put back on its successor. */
let listButtons = new Map<string, HTMLButtonElement>()

/**
 * Where the focus goes when the control holding it is hidden or rebuilt away:
 * the heading on screen (the notice's, or the question's). Left alone, it
 * falls to <body>, and a keyboard user starts over from the top of the page.
 */
const rescueFocus = () => {
  document.getElementById("question-text")?.focus()
}

/**
 * Rebuilds the list of pending requests. The focus on one of its buttons
 * stays on that request's new button, or, when that is gone or the list is
 * hidden, goes to the heading on screen.
 */
const renderList = () => {
  const focusedId = Array.from(listButtons).find(([, button]) => button === document.activeElement)?.[0]
  requestList.replaceChildren()
  listButtons = new Map()
  for (const entry of pending.values()) {
    const button = requestButton(entry, entry.id === currentId)
    button.addEventListener("click", () => {
      if (entry.id !== currentId) show(entry.id)
    })
    listButtons.set(entry.id, button)
    requestList.append(h("li", {}, button))
  }
  requestNav.hidden = pending.size < 2
  if (focusedId !== undefined) {
    const again = requestNav.hidden ? undefined : listButtons.get(focusedId)
    if (again === undefined) rescueFocus()
    else again.focus()
  }
  showWaiting()
  refreshNotice()
}

const baseTitle = document.title

/** The number of requests waiting, in the tab's title: "(2) Questions for you". */
const showWaiting = () => {
  document.title = pending.size === 0 ? baseTitle : `(${pending.size}) ${baseTitle}`
}

/** Set by `start`: the stream this tab shares with the page's other tabs. */
let stream: ReturnType<typeof sharedStream> | undefined

/**
 * True from a stream's (re)opening until its list is in: the `asked` events
 * then are its replay of what was already waiting, not arrivals.
 */
let replaying = true

const arrivals = makeArrivals({
  anchor: connection,
  leading: () => stream?.leading() ?? false,
  replaying: () => replaying,
  unseen: () => stream?.unseen() ?? false,
  clicked: (id) => {
    // Settled since it was raised: the page stays on what it shows (a notice offers what is next).
    if (pending.has(id)) show(id)
    else if (currentId === undefined && notice === undefined) show(pending.keys().next().value)
  }
})

const emptyText = "No questions are waiting. New ones appear here as they arrive."

/**
 * The notice shown in place of a request that was settled elsewhere: its
 * message as a focusable heading, and a "Next request" button, so moving on to
 * another request is the person's own step. Kept while requests come and go
 * (only its footer changes), so the focus stays where the person put it; when
 * "Next request" hides with the focus on it, the focus goes to the heading.
 */
let notice: { readonly heading: HTMLElement; readonly info: HTMLElement; readonly next: HTMLButtonElement } | undefined

const refreshNotice = () => {
  if (notice === undefined) return
  notice.info.textContent = pending.size === 0
    ? emptyText
    : pending.size === 1
    ? "1 other request is waiting."
    : `${pending.size} other requests are waiting.`
  const hide = pending.size === 0
  if (hide && document.activeElement === notice.next) notice.heading.focus()
  notice.next.hidden = hide
}

/** Replaces the request on screen with a notice; the focus moves to it only if it was on the request. */
const showNotice = (message: string) => {
  const hadFocus = card.contains(document.activeElement) || document.activeElement === document.body
  currentId = undefined
  const heading = h("h2", { id: "question-text", tabindex: "-1" }, message)
  const next = h("button", { type: "button", class: "primary" }, "Next request")
  next.addEventListener("click", () => show(pending.keys().next().value))
  notice = { heading, info: h("p", { class: "empty" }), next }
  card.replaceChildren(heading, notice.info, h("div", { class: "row actions" }, next))
  renderList()
  showAlert(message)
  if (hadFocus) heading.focus()
}

/**
 * Where the focus goes on a question as it is shown: its first control; its
 * heading, for another request than the one the person just answered (a
 * second press of the key that answered one must not answer the next); or,
 * after "Back", the answer given (a press of Enter keeps it).
 */
type Landing = "first" | "heading" | "answer"

const renderQuestion = (landing: Landing = "first") => {
  alertBox.textContent = ""
  notice = undefined
  const entry = currentId === undefined ? undefined : pending.get(currentId)
  if (entry === undefined) {
    // Focusable from script only: focus lost with the controls it replaces lands here, not on <body>.
    const text = finished === undefined ? emptyText : finishedText(finished)
    const status = h("p", { class: "empty", id: "question-text", tabindex: "-1" }, text)
    card.replaceChildren(status)
    if (document.activeElement === null || document.activeElement === document.body) status.focus()
    return
  }
  const state = progressOf(entry.id)
  const questions = entry.request.questions
  if (state.index === questions.length) return renderReview(entry, state)
  const question = questions[state.index]
  if (question === undefined) return
  const total = questions.length
  const screen = questionScreen(question, () => state.answers.get(question.id), stepOf(entry, state), {
    asker: h("p", { class: "asker" }, model(agentName(entry)), " asks · ", timingOf(entry)),
    position: `Question ${state.index + 1} of ${total}`,
    record: (item) => record(question, item),
    back: state.index === 0 ? undefined : () => {
      state.index--
      renderQuestion("answer")
    },
    cancel: () => void cancelCurrent()
  })
  const { focusAnswer, focusFirst, parts } = screen
  card.replaceChildren(...parts)
  if (landing === "heading") document.getElementById("question-text")?.focus()
  else ((landing === "answer" ? focusAnswer : undefined) ?? focusFirst)?.focus()
  announce(`Question ${state.index + 1} of ${total}: `, model(question.question))
}

/** Whether this request ends with a review: the provider asked for one, and it has two questions or more. */
const reviews = (entry: PendingRequest) => reviewBeforeSubmit && entry.request.questions.length >= 2

/**
 * Where the question on screen leads once answered: the next question
 * ("Next"), the review ("Review": after the last question, or any question
 * chosen from the review), or the answer's sending ("Submit").
 */
const stepOf = (entry: PendingRequest, state: Progress): Step => {
  const last = state.index === entry.request.questions.length - 1
  if (reviews(entry) && (last || state.revising)) return { name: "Review", hint: "next" }
  return last ? { name: "Submit", hint: "done" } : { name: "Next", hint: "next" }
}

/** The review of a request's answers; the focus goes to "Submit", so Enter sends. */
const renderReview = (entry: PendingRequest, state: Progress) => {
  const screen = review(entry.request.questions, state.answers, {
    edit: (index) => {
      state.index = index
      state.revising = true
      renderQuestion("answer")
    },
    submit: () => void submit(entry, state),
    cancel: () => void cancelCurrent()
  })
  card.replaceChildren(h("p", { class: "asker" }, model(agentName(entry)), " asks"), ...screen.parts)
  screen.submit.focus()
  announce("Review your answers, then submit.")
}

const record = (question: PageQuestion, item: AnswerItem) => {
  if (inFlight !== undefined || currentId === undefined || claims.heldByOther(currentId)) return
  const entry = pending.get(currentId)
  if (entry === undefined) return
  const state = progressOf(entry.id)
  state.answers.set(question.id, item)
  const last = entry.request.questions.length - 1
  if (reviews(entry) && (state.revising || state.index === last)) {
    // Past the last question: the review.
    state.index = last + 1
    state.revising = false
    renderQuestion()
    return
  }
  if (state.index < last) {
    state.index++
    renderQuestion()
    return
  }
  void submit(entry, state)
}

/**
 * A request this tab was not deciding was settled: if it is on screen, a
 * notice replaces it (the person may be mid-answer, with a key on its way);
 * otherwise it just leaves the list.
 */
const settledElsewhere = (id: string, message = `${capitalized(settledPhrase(settled.get(id)))}.`) => {
  if (id === currentId) {
    drop(id)
    showNotice(message)
  } else if (drop(id)) renderList()
}

/**
 * Shows that a POST is on its way: the request's controls are disabled and say
 * "Sending…", so a slow reply does not look like a click that did nothing.
 * The returned function undoes it, on the controls still on screen, and puts
 * the focus back where it was.
 */
const sending = (): (() => void) => {
  const focused = document.activeElement
  const controls = Array.from(card.querySelectorAll<HTMLButtonElement | HTMLInputElement>("button, input"))
    .filter((control) => !control.disabled)
  for (const control of controls) control.disabled = true
  // An alert from an earlier send is about that one; this send gets its own outcome.
  alertBox.textContent = ""
  const status = h("p", { class: "sending", role: "status" }, "Sending…")
  card.append(status)
  card.setAttribute("aria-busy", "true")
  return () => {
    card.removeAttribute("aria-busy")
    status.remove()
    for (const control of controls) control.disabled = false
    if (focused instanceof HTMLElement && focused.isConnected && document.activeElement === document.body) focused.focus()
  }
}

/** Runs one POST for the request on screen; `settledElsewhere` waits for its reply. */
const posting = async (id: string, run: () => Promise<void>) => {
  inFlight = id
  const done = sending()
  try {
    await run()
  } finally {
    inFlight = undefined
    done()
    // The stream said it was settled while the reply was on its way, and the reply did not settle it here.
    if (pending.has(id) && settled.has(id)) settledElsewhere(id)
  }
}

const submit = (entry: PendingRequest, state: Progress) =>
  posting(entry.id, async () => {
    try {
      const answers = entry.request.questions.map((q) => state.answers.get(q.id) ?? { id: q.id, selected: [] })
      const response = await api(`/api/questions/${encodeURIComponent(entry.id)}/answer`, { answers })
      if (response.status === 200) {
        announce("Answer sent.")
        forget(entry.id)
      } else if (response.status === 404) {
        settledElsewhere(entry.id, `Your answer was not sent: this request was already ${settledPhrase(settled.get(entry.id))}.`)
      } else if (response.status === 409) {
        claims.refused(entry.id, await response.json().catch(() => ({})))
        showAlert("Your answer was not sent: someone else is answering this request.")
      } else if (response.status === 401) {
        showUnpaired("Your answer was not sent: this device's pairing was revoked or has ended. Pair it again to answer here.")
      } else if (response.status === 422) {
        const body = await response.json().catch(() => ({})) as { message?: string }
        state.index = 0
        state.revising = false
        renderQuestion()
        // The server's message quotes the labels sent, which are model text.
        showAlert("The answer was refused: ", model(body.message ?? "it breaks the answer rules"))
      } else {
        showAlert(`The server refused the answer (HTTP ${response.status}).`)
      }
    } catch {
      showAlert("The answer could not be sent; check that ask-user is still running.")
    }
  })

const cancelCurrent = async () => {
  if (inFlight !== undefined || currentId === undefined || claims.heldByOther(currentId)) return
  const id = currentId
  await posting(id, async () => {
    try {
      const response = await api(`/api/questions/${encodeURIComponent(id)}/cancel`, {})
      if (response.status === 200) {
        announce("Request cancelled.")
        forget(id)
      } else if (response.status === 404) {
        // The cancel lost a race: say what happened instead.
        settledElsewhere(id, `Not cancelled: this request was already ${settledPhrase(settled.get(id))}.`)
      } else if (response.status === 409) {
        claims.refused(id, await response.json().catch(() => ({})))
        showAlert("Not cancelled: someone else is answering this request.")
      } else if (response.status === 401) {
        showUnpaired("Not cancelled: this device's pairing was revoked or has ended. Pair it again to answer here.")
      } else {
        showAlert(`The server refused to cancel (HTTP ${response.status}).`)
      }
    } catch {
      showAlert("The cancel could not be sent; check that ask-user is still running.")
    }
  })
}

const show = (id: string | undefined, landing?: Landing) => {
  currentId = id
  renderList()
  renderQuestion(landing)
}

/** Removes a request from what the page keeps; false when it was not there. */
const drop = (id: string): boolean => {
  progress.delete(id)
  arrivals.gone(id)
  return pending.delete(id)
}

/** A request this tab answered or cancelled: move on to the next one. */
const forget = (id: string) => {
  if (!drop(id)) return
  if (id === currentId) show(pending.keys().next().value, "heading")
  else renderList()
}

/**
 * The ask the page's address names (`#ask=<id>`: a notification's link),
 * until it arrives; it is shown in place of the first one while nobody has
 * answered anything of that.
 */
let linkedAsk: string | undefined = new URLSearchParams(location.hash.slice(1)).get("ask") ?? undefined

/** Whether the request on screen is still as it came: no answer given, no send on its way. */
const untouched = () =>
  inFlight === undefined && notice === undefined && (currentId === undefined || (progress.get(currentId)?.answers.size ?? 0) === 0)

/** A pending request from the stream or from a list; `arrival` when the stream announced it. */
const learn = (entry: PendingRequest, arrival: boolean) => {
  seenSinceOpen.add(entry.id)
  if (pending.has(entry.id) || settled.has(entry.id) || finished !== undefined) return
  pending.set(entry.id, entry)
  if (arrival) arrivals.arrived(entry)
  const linked = linkedAsk !== undefined && entry.askId === linkedAsk
  if (linked) linkedAsk = undefined
  // Only an idle page shows it at once; over a notice, the person moves on with "Next request".
  // The ask a link named takes the screen too, while the person has not begun another.
  if (currentId === undefined && notice === undefined) {
    show(entry.id)
  } else if (linked && untouched()) {
    // On the heading: a key pressed for the request it replaces must not answer this one.
    show(entry.id, "heading")
  } else {
    renderList()
    // What a list or a reopened stream brings back was waiting already: not news.
    if (arrival && !replaying) announce(`New request from `, model(agentName(entry)), ": ", model(entry.request.questions[0]?.question ?? ""))
  }
}

/**
 * Reconciles with the server's list: requests settled while the stream was
 * down sent no `resolved`, so those the list lacks are dropped (unless this
 * stream announced them since). A list can arrive after the stream moved on,
 * so requests the stream said are settled never come back from it.
 */
const sync = () =>
  api("/api/questions").then(async (response) => {
    if (response.status === 401) return showUnpaired("This device's pairing was revoked or has ended. Pair it again to answer here.")
    if (!response.ok || finished !== undefined) return
    const body = await response.json() as { pending: ReadonlyArray<PendingRequest> } & ListedClaims
    if (finished !== undefined) return
    const listed = new Set(body.pending.map((p) => p.id))
    for (const id of Array.from(pending.keys())) {
      if (!listed.has(id) && !seenSinceOpen.has(id)) settledElsewhere(id, "This request is no longer waiting.")
    }
    for (const entry of body.pending) learn(entry, false)
    claims.listed(body)
  }).catch(() => undefined)

const live = "Live: new questions appear here as they arrive."

/** Handles one event of the stream, whichever tab holds it. */
const receive = (message: StreamMessage) => {
  if (finished !== undefined || unpaired) return
  switch (message.type) {
    case "open":
      connection.textContent = live
      seenSinceOpen = new Set()
      replaying = true
      void sync().finally(() => {
        replaying = false
      })
      return
    case "status":
      connection.textContent = message.text
      // A stream the server will not open again: a revoked device's, say.
      if (message.closed) void checkPaired()
      return
    case "claimed":
    case "released":
      claims.heard(message)
      return
    case "asked":
      learn(message.data, true)
      return
    case "resolved": {
      settled.set(message.data.id, message.data)
      // This tab's own answer or cancel is on its way: its reply says what happened.
      if (message.data.id !== inFlight) settledElsewhere(message.data.id)
      return
    }
    case "closing":
      // The server is going away for good: stop the stream (whichever tab has it) and say so.
      finished = message.data
      stream?.stop()
      connection.textContent = "Finished: ask-user is no longer running."
      // Nothing will be asked here again: nothing to be notified of.
      arrivals.finish()
      for (const id of Array.from(pending.keys())) drop(id)
      renderList()
      if (notice === undefined) {
        currentId = undefined
        renderQuestion()
      } else {
        // "Answered in the terminal." stays on screen: it says how the last request ended.
        notice.info.textContent = finishedText(finished)
        notice.next.hidden = true
      }
      announce(finishedText(finished))
  }
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && currentId !== undefined) {
    event.preventDefault()
    void cancelCurrent()
  }
})

/** Set once the server said this device is not paired: the pairing form is on screen, and nothing else runs. */
let unpaired = false

/**
 * The server answered 401: this device was never paired, or was revoked.
 * The stream stops, what the page knew goes, and the pairing form shows;
 * once paired, the page loads the inbox afresh.
 */
const showUnpaired = (why: string) => {
  if (unpaired) return
  unpaired = true
  stream?.stop()
  for (const id of Array.from(pending.keys())) drop(id)
  currentId = undefined
  renderList()
  connection.textContent = ""
  showPairing({ card, alert: (message) => showAlert(message), paired: () => location.replace("/") }, why)
}

const notPaired = "This device is not paired with this inbox: name it and enter the pairing code that ask-user printed " +
  "(or get one with ask-user pair)."

/** After a request failed: if the reason is that the device is not (or no longer) paired, shows the pairing form. */
const checkPaired = () =>
  api("/api/questions").then((response) => {
    if (response.status === 401) showUnpaired("This device's pairing was revoked or has ended. Pair it again to answer here.")
  }).catch(() => undefined)

/** Shows the inbox: the question card, and the stream (shared with the page's other tabs). */
const startInbox = () => {
  renderQuestion()
  stream = sharedStream({
    token,
    receive,
    finished: () => finished !== undefined,
    // A tab that follows another's stream hears no `open`: its replay ends with its own list.
    follow: () =>
      void sync().then(() => {
        replaying = false
        if (finished === undefined && connection.textContent === "Connecting…") connection.textContent = live
      })
  })
  stream.start()
  // Ages and times left move on while the page is open.
  setInterval(refreshTimings, 15_000)
}

if (location.pathname === "/pair") {
  unpaired = true
  connection.textContent = ""
  showPairing({ card, alert: (message) => showAlert(message), paired: () => location.replace("/") }, notPaired)
} else if (token === "") {
  // No token: a remote inbox, where the device's cookie speaks for it (or a page opened without its token).
  void api("/api/questions").then((response) => {
    if (response.status === 401) showUnpaired(notPaired)
    else startInbox()
  }, () => startInbox())
} else {
  startInbox()
}

export {}
