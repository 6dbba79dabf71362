/**
 * The answer page's pairing screen, on a remote inbox: shown at `/pair`, and
 * wherever the server says this device is not (or no longer) paired. It asks
 * for a name for the device and the pairing code (filled in from the
 * address's `#code=` fragment, which the QR code carries and which never
 * reaches the server in the URL), posts both to `POST /api/pair`, and on
 * success the server sets the device's cookie (HttpOnly: this script never
 * sees it) and the page goes on to the inbox. Browser code: see `page.ts`.
 */
import { h } from "./dom.js"

/** What the pairing screen needs of the page. */
export interface PairingHooks {
  /** Where the screen goes (the page's card). */
  readonly card: HTMLElement
  /** Shows a message in the page's alert. */
  readonly alert: (message: string) => void
  /** The device is paired: show the inbox. */
  readonly paired: () => void
}

/** The code in the address's fragment (`#code=ABCD…`), if any. */
const codeInFragment = (): string => new URLSearchParams(location.hash.slice(1)).get("code") ?? ""

/** What a refused pairing says, by the server's status. */
const refusal = async (response: Response): Promise<string> => {
  if (response.status === 429) {
    const wait = response.headers.get("retry-after")
    return `Too many tries from this address: wait ${wait === null ? "a minute" : `${wait} seconds`}, then try again.`
  }
  if (response.status === 403) return "That code is wrong, expired or already used. Get a new one with ask-user pair."
  const body = await response.json().catch(() => ({})) as { message?: unknown }
  return typeof body.message === "string" ? body.message : `Pairing failed (HTTP ${response.status}).`
}

/**
 * Shows the pairing form in the card; `why` says why this device must pair
 * (first visit, or its pairing was revoked).
 */
export const showPairing = (hooks: PairingHooks, why: string) => {
  const name = h("input", {
    id: "device-name",
    class: "text",
    type: "text",
    autocomplete: "off",
    maxlength: "64",
    required: "",
    enterkeyhint: "next"
  })
  const code = h("input", {
    id: "pairing-code",
    class: "text",
    type: "text",
    autocomplete: "one-time-code",
    autocapitalize: "characters",
    spellcheck: "false",
    required: "",
    enterkeyhint: "go"
  })
  code.value = codeInFragment()
  const pair = h("button", { type: "submit", class: "primary" }, "Pair")
  const form = h(
    "form",
    { class: "pairing", "aria-labelledby": "question-text" },
    h("label", { for: "device-name" }, "Device name"),
    name,
    h("label", { for: "pairing-code" }, "Pairing code"),
    code,
    h("div", { class: "row actions" }, pair)
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    if (pair.disabled) return
    pair.disabled = true
    hooks.alert("")
    fetch("/api/pair", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: name.value.trim(), code: code.value.trim().toUpperCase() })
    }).then(async (response) => {
      if (response.ok) {
        // The code is spent: keep it out of the address bar and the history.
        history.replaceState(null, "", "/")
        hooks.paired()
        return
      }
      hooks.alert(await refusal(response))
    }).catch(() => hooks.alert("The pairing could not be sent; check that ask-user is still running.")).finally(() => {
      pair.disabled = false
    })
  })
  hooks.card.replaceChildren(
    h("h2", { id: "question-text", tabindex: "-1" }, "Pair this device"),
    h("p", { class: "note pairing-why" }, why),
    form
  )
  const first = name.value === "" ? name : code
  first.focus()
}
