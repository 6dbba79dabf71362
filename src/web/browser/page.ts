/**
 * The answer page's script (runs in the browser; compiled by `tsc` with the
 * rest of the package and inlined into the page by the web provider, under a
 * Content-Security-Policy hash).
 *
 * It keeps the pending requests it hears about over Server-Sent Events, shows
 * one question of one request at a time and posts the answer. Model text only
 * ever reaches the document through `textContent` and attribute values, never
 * as HTML.
 */

interface PageOption {
  readonly label: string
  readonly description?: string
}
interface PageQuestion {
  readonly id: string
  readonly question: string
  readonly header?: string
  readonly options?: ReadonlyArray<PageOption>
  readonly multiSelect?: boolean
}
interface PendingRequest {
  readonly id: string
  readonly request: { readonly questions: ReadonlyArray<PageQuestion>; readonly agent?: { readonly id: string; readonly name?: string } }
  readonly askedAt: string
}
interface AnswerItem {
  readonly id: string
  readonly selected: ReadonlyArray<string>
  readonly custom?: string
}
interface Progress {
  index: number
  readonly answers: Map<string, AnswerItem>
}

const token = new URLSearchParams(location.search).get("token") ?? ""
const pending = new Map<string, PendingRequest>()
const progress = new Map<string, Progress>()
let currentId: string | undefined
let busy = false
let seenSinceOpen = new Set<string>()
/** Set by the server's `closing` event: nothing will be asked here again. */
let finished: { readonly unanswered: number } | undefined

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

type Child = Node | string
/** Builds an element; text goes in as text nodes, so nothing is parsed as HTML. */
const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: ReadonlyArray<Child>
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value)
  for (const child of children) element.append(typeof child === "string" ? document.createTextNode(child) : child)
  return element
}

const announce = (message: string) => {
  // Clearing first makes a repeated message count as a change.
  announcer.textContent = ""
  setTimeout(() => {
    announcer.textContent = message
  }, 50)
}
const showAlert = (message: string) => {
  alertBox.textContent = message
}

const recommended = /\s*\(recommended\)\s*$/i

const api = (path: string, body?: unknown) =>
  fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const progressOf = (id: string): Progress => {
  let found = progress.get(id)
  if (found === undefined) {
    found = { index: 0, answers: new Map() }
    progress.set(id, found)
  }
  return found
}

const agentName = (entry: PendingRequest) => entry.request.agent?.name ?? entry.request.agent?.id ?? "The agent"

const renderList = () => {
  requestList.replaceChildren()
  for (const entry of pending.values()) {
    const first = entry.request.questions[0]?.question ?? ""
    const count = entry.request.questions.length
    const button = h(
      "button",
      { type: "button", class: "request" },
      h("span", { class: "request-agent" }, agentName(entry)),
      h("span", { class: "request-first" }, first),
      h("span", { class: "request-count" }, count === 1 ? "1 question" : `${count} questions`)
    )
    if (entry.id === currentId) button.setAttribute("aria-current", "true")
    button.addEventListener("click", () => {
      if (entry.id !== currentId) show(entry.id)
    })
    requestList.append(h("li", {}, button))
  }
  requestNav.hidden = pending.size < 2
  showWaiting()
}

const baseTitle = document.title

/** The number of requests waiting, in the tab's title: "(2) Questions for you". */
const showWaiting = () => {
  document.title = pending.size === 0 ? baseTitle : `(${pending.size}) ${baseTitle}`
}

const notifications = "Notification" in window

/** Asks the browser for permission to notify; the button only shows while the person has not decided. */
const notifyButton = h("button", { type: "button", class: "notify" }, "Notify me of new questions")
notifyButton.hidden = !notifications || Notification.permission !== "default"
notifyButton.addEventListener("click", () => {
  void Notification.requestPermission().then(() => {
    notifyButton.hidden = Notification.permission !== "default"
  })
})
connection.after(notifyButton)

/** A system notification for a request that arrives while the tab is hidden, once the person allowed them. */
const notifyArrival = (entry: PendingRequest) => {
  if (!notifications || Notification.permission !== "granted" || document.visibilityState !== "hidden") return
  // Text only: a notification's title and body are never parsed as HTML.
  const notification = new Notification(`${agentName(entry)} asks`, {
    body: entry.request.questions[0]?.question ?? "",
    tag: entry.id
  })
  notification.addEventListener("click", () => {
    window.focus()
    show(entry.id)
    notification.close()
  })
}

/** Arrow keys, Home and End move between the options of one question. */
const roving = (items: ReadonlyArray<HTMLElement>, onEnter?: () => void) => (event: KeyboardEvent) => {
  const at = items.indexOf(event.target as HTMLElement)
  if (at < 0) return
  let next: number | undefined
  if (event.key === "ArrowDown" || event.key === "ArrowRight") next = (at + 1) % items.length
  else if (event.key === "ArrowUp" || event.key === "ArrowLeft") next = (at - 1 + items.length) % items.length
  else if (event.key === "Home") next = 0
  else if (event.key === "End") next = items.length - 1
  else if (event.key === "Enter" && onEnter !== undefined) {
    event.preventDefault()
    onEnter()
    return
  }
  if (next === undefined) return
  event.preventDefault()
  items[next]?.focus()
}

/** A single-line text box where Enter hands over non-empty text. */
const textBox = (attrs: Record<string, string>, onText: (text: string) => void) => {
  const input = h("input", { type: "text", autocomplete: "off", ...attrs })
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return
    event.preventDefault()
    const text = input.value
    if (text.trim() !== "") onText(text)
  })
  return input
}

const renderQuestion = () => {
  alertBox.textContent = ""
  const entry = currentId === undefined ? undefined : pending.get(currentId)
  if (entry === undefined) {
    card.replaceChildren(h("p", { class: "empty" }, finished === undefined
      ? "No questions are waiting. New ones appear here as they arrive."
      : finished.unanswered === 0
      ? "All questions were answered. You can close this tab."
      : "ask-user stopped before every question was answered. You can close this tab."))
    return
  }
  const state = progressOf(entry.id)
  const questions = entry.request.questions
  const question = questions[state.index]
  if (question === undefined) return
  const total = questions.length
  const isLast = state.index === total - 1
  const options = question.options ?? []
  const previous = state.answers.get(question.id)

  const parts: Array<Node> = [
    h("p", { class: "asker" }, `${agentName(entry)} asks`),
    h("p", { class: "progress", id: "progress" }, `Question ${state.index + 1} of ${total}`)
  ]
  if (question.header !== undefined && question.header !== "") parts.push(h("p", { class: "chip" }, question.header))
  parts.push(h("h2", { id: "question-text" }, question.question))

  let focusFirst: HTMLElement | undefined
  let primary: HTMLButtonElement | undefined
  if (options.length === 0) {
    const input = textBox(
      { "aria-labelledby": "question-text", enterkeyhint: isLast ? "done" : "next", class: "text" },
      (text) => record(question, { id: question.id, selected: [], custom: text })
    )
    if (previous?.custom !== undefined) input.value = previous.custom
    parts.push(input)
    focusFirst = input
  } else {
    const items: Array<HTMLElement> = []
    const boxes: Array<HTMLInputElement> = []
    const group = h("div", { role: "group", "aria-labelledby": "question-text", class: "options" })
    options.forEach((option, i) => {
      const isRecommended = recommended.test(option.label)
      const shown = isRecommended ? option.label.replace(recommended, "") : option.label
      const descId = `option-${i}-description`
      const body: Array<Node> = [h("span", { class: "option-label" }, shown === "" ? option.label : shown)]
      if (isRecommended) body.push(h("span", { class: "badge" }, "Recommended"))
      if (option.description !== undefined && option.description !== "") {
        body.push(h("span", { class: "option-description", id: descId }, option.description))
      }
      const describedBy = option.description ? { "aria-describedby": descId } : {}
      if (question.multiSelect === true) {
        const box = h("input", { type: "checkbox", "aria-label": option.label, ...describedBy })
        box.checked = previous?.selected.includes(option.label) ?? false
        boxes.push(box)
        items.push(box)
        group.append(h("label", { class: "option" }, box, h("span", { class: "option-body" }, ...body)))
      } else {
        const button = h("button", { type: "button", class: "option", "aria-label": option.label, ...describedBy }, ...body)
        if (previous?.selected[0] === option.label) button.classList.add("chosen")
        button.addEventListener("click", () => record(question, { id: question.id, selected: [option.label] }))
        items.push(button)
        group.append(button)
      }
    })
    parts.push(group)
    const other = textBox(
      { "aria-label": "Other", placeholder: "Other…", enterkeyhint: isLast ? "done" : "next", class: "text other" },
      (text) => record(question, { id: question.id, selected: [], custom: text })
    )
    if (previous?.custom !== undefined) other.value = previous.custom
    parts.push(other)
    const submitMulti = () => {
      const text = other.value
      if (text.trim() !== "") return record(question, { id: question.id, selected: [], custom: text })
      record(question, { id: question.id, selected: options.filter((_, i) => boxes[i]?.checked).map((o) => o.label) })
    }
    group.addEventListener("keydown", roving(items, question.multiSelect === true ? submitMulti : undefined))
    if (question.multiSelect === true) {
      primary = h("button", { type: "button", class: "primary" }, isLast ? "Submit" : "Next")
      primary.addEventListener("click", submitMulti)
    }
    focusFirst = items[0]
  }

  const actions = h("div", { class: "row actions" })
  if (primary !== undefined) actions.append(primary)
  if (state.index > 0) {
    const back = h("button", { type: "button" }, "Back")
    back.addEventListener("click", () => {
      state.index--
      renderQuestion()
    })
    actions.append(back)
  }
  const skip = h("button", { type: "button" }, "Skip")
  skip.addEventListener("click", () => record(question, { id: question.id, selected: [] }))
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel")
  cancel.addEventListener("click", () => void cancelCurrent())
  actions.append(skip, cancel)
  parts.push(actions)

  card.replaceChildren(...parts)
  focusFirst?.focus()
  announce(`Question ${state.index + 1} of ${total}: ${question.question}`)
}

const record = (question: PageQuestion, item: AnswerItem) => {
  if (busy || currentId === undefined) return
  const entry = pending.get(currentId)
  if (entry === undefined) return
  const state = progressOf(entry.id)
  state.answers.set(question.id, item)
  if (state.index < entry.request.questions.length - 1) {
    state.index++
    renderQuestion()
    return
  }
  void submit(entry, state)
}

const submit = async (entry: PendingRequest, state: Progress) => {
  busy = true
  card.setAttribute("aria-busy", "true")
  try {
    const answers = entry.request.questions.map((q) => state.answers.get(q.id) ?? { id: q.id, selected: [] })
    const response = await api(`/api/questions/${encodeURIComponent(entry.id)}/answer`, { answers })
    if (response.status === 200) {
      announce("Answer sent.")
      forget(entry.id)
    } else if (response.status === 404) {
      forget(entry.id)
      showAlert("That request is no longer waiting for an answer.")
    } else if (response.status === 422) {
      const body = await response.json().catch(() => ({})) as { message?: string }
      state.index = 0
      renderQuestion()
      showAlert(`The answer was refused: ${body.message ?? "it breaks the answer rules"}`)
    } else {
      showAlert(`The server refused the answer (HTTP ${response.status}).`)
    }
  } catch {
    showAlert("The answer could not be sent; check that ask-user is still running.")
  } finally {
    busy = false
    card.removeAttribute("aria-busy")
  }
}

const cancelCurrent = async () => {
  if (busy || currentId === undefined) return
  const id = currentId
  busy = true
  try {
    const response = await api(`/api/questions/${encodeURIComponent(id)}/cancel`, {})
    if (response.status === 200 || response.status === 404) {
      announce("Request cancelled.")
      forget(id)
    } else {
      showAlert(`The server refused to cancel (HTTP ${response.status}).`)
    }
  } catch {
    showAlert("The cancel could not be sent; check that ask-user is still running.")
  } finally {
    busy = false
  }
}

const show = (id: string | undefined) => {
  currentId = id
  renderList()
  renderQuestion()
}

const forget = (id: string) => {
  if (!pending.delete(id)) return
  progress.delete(id)
  if (id === currentId) show(pending.keys().next().value)
  else renderList()
}

const learn = (entry: PendingRequest) => {
  seenSinceOpen.add(entry.id)
  if (pending.has(entry.id)) return
  pending.set(entry.id, entry)
  notifyArrival(entry)
  if (currentId === undefined) {
    show(entry.id)
  } else {
    renderList()
    announce(`New request from ${agentName(entry)}: ${entry.request.questions[0]?.question ?? ""}`)
  }
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && currentId !== undefined) {
    event.preventDefault()
    void cancelCurrent()
  }
})

const connect = () => {
  const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`)
  source.addEventListener("open", () => {
    connection.textContent = "Live: new questions appear here as they arrive."
    seenSinceOpen = new Set()
    // Requests settled while disconnected sent no `resolved` to this page: drop
    // those the server no longer lists, unless this connection announced them.
    void api("/api/questions").then(async (response) => {
      if (!response.ok) return
      const body = await response.json() as { pending: ReadonlyArray<PendingRequest> }
      const listed = new Set(body.pending.map((p) => p.id))
      for (const id of Array.from(pending.keys())) if (!listed.has(id) && !seenSinceOpen.has(id)) forget(id)
      for (const entry of body.pending) learn(entry)
    }).catch(() => undefined)
  })
  source.addEventListener("error", () => {
    connection.textContent = source.readyState === EventSource.CLOSED
      ? "Disconnected: reload the page to reconnect."
      : "Reconnecting…"
  })
  source.addEventListener("asked", (event) => learn(JSON.parse((event as MessageEvent<string>).data) as PendingRequest))
  source.addEventListener("resolved", (event) => {
    const { id, settled, where } = JSON.parse((event as MessageEvent<string>).data) as {
      id: string
      settled?: string
      where?: string
    }
    const shown = pending.has(id)
    forget(id)
    // Settled on another surface (the terminal, say): tell the person, who may be mid-answer here.
    if (shown && where !== undefined) showAlert(`${settled === "answered" ? "Answered" : "Cancelled"} in ${where}.`)
  })
  // The server is going away for good: stop reconnecting and say so.
  source.addEventListener("closing", (event) => {
    source.close()
    finished = JSON.parse((event as MessageEvent<string>).data) as { unanswered: number }
    connection.textContent = "Finished: ask-user is no longer running."
    for (const id of Array.from(pending.keys())) forget(id)
    renderQuestion()
    announce(finished.unanswered === 0 ? "All questions were answered. You can close this tab." : "ask-user stopped.")
  })
}

renderQuestion()
connect()

export {}
