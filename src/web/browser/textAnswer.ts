/**
 * The answer page's text fields: the "Other" box under a question's options,
 * and the field of a question without options, with the button that hands
 * its text over. A `secret` question's field is a password field (decision
 * 119): typing is hidden, the browser offers no autofill or spelling help,
 * and the text leaves the field (and so the document) as soon as it is
 * handed over; going back to the question shows an empty field that keeps
 * the secret given unless a new one is typed. Browser code: see `page.ts`.
 */
import { h } from "./dom.js"
import type { AnswerItem, PageQuestion } from "./wire.js"

/** A single-line text box where Enter hands over non-empty text. */
export const textBox = (attrs: Record<string, string>, onText: (text: string) => void) => {
  const input = h("input", { type: "text", autocomplete: "off", ...attrs })
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return
    event.preventDefault()
    const text = input.value
    if (text.trim() !== "") onText(text)
  })
  return input
}

/** What the question's button says and where its step leads ("Next", "Review", "Submit"). */
export interface Step {
  readonly name: string
  readonly hint: "next" | "done"
}

/** A question's own text field, built. */
export interface FreeText {
  /** The field, and for a secret the note under it. */
  readonly parts: ReadonlyArray<Node>
  readonly input: HTMLInputElement
  /** The button that hands the text over (disabled while there is nothing to hand over). */
  readonly primary: HTMLButtonElement
}

/**
 * The field of a question without options. `given` reads the answer the
 * question has now (a secret kept from before, or just handed over and not
 * yet sent); `answer` takes the new one. Non-empty text is the answer
 * (`custom`, or `secret` for a secret question); Enter and the button hand it
 * over alike.
 */
export const freeText = (
  question: PageQuestion,
  given: () => AnswerItem | undefined,
  step: Step,
  answer: (item: AnswerItem) => void
): FreeText => {
  const secret = question.secret === true
  /** A secret given before: an empty field keeps it. */
  const kept = () => {
    const item = given()
    return secret && item?.secret !== undefined && item.secret.trim() !== "" ? item : undefined
  }
  const input = h("input", {
    type: secret ? "password" : "text",
    autocomplete: "off",
    "aria-labelledby": "question-text",
    enterkeyhint: step.hint,
    class: "text",
    ...(secret ? { spellcheck: "false", autocapitalize: "off", "aria-describedby": "secret-note" } : {})
  })
  if (!secret) input.value = given()?.custom ?? ""
  // Enter is not the only way: a person on a phone, or who does not guess it, has a button.
  const primary = h("button", { type: "button", class: "primary" }, step.name)
  const canSend = () => {
    primary.disabled = input.value.trim() === "" && kept() === undefined
  }
  const send = () => {
    const text = input.value
    const keep = kept()
    if (text.trim() !== "") answer(secret ? { id: question.id, selected: [], secret: text } : { id: question.id, selected: [], custom: text })
    else if (keep !== undefined) answer(keep)
    else return
    // Handed over: the typed secret leaves the document now, not when the page moves on. The
    // button stays as it is (disabled while the answer is sent): the secret is kept, so it may send again.
    if (secret) input.value = ""
  }
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return
    event.preventDefault()
    send()
  })
  input.addEventListener("input", canSend)
  primary.addEventListener("click", send)
  canSend()
  if (!secret) return { parts: [input], input, primary }
  const note = h(
    "p",
    { class: "note secret-note", id: "secret-note" },
    kept() === undefined
      ? "A secret: what you type is hidden and never shown again."
      : "A secret was given: leave this empty to keep it, or type a new one."
  )
  return { parts: [input, note], input, primary }
}
