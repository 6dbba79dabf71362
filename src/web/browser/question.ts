/**
 * One question on the answer page's screen, as the person answers it: who
 * asks and where in the request it is, the question (its header as a chip),
 * its options (`choices.ts`) with an Other field, or a text field
 * (`textAnswer.ts`), and Back, Skip and Cancel. Building it changes nothing:
 * the page records what the controls give (`record`) and moves on. Browser
 * code: see `page.ts`.
 */
import { choices } from "./choices.js"
import { h, modelIn } from "./dom.js"
import { freeText, type Step, textBox } from "./textAnswer.js"
import type { AnswerItem, PageQuestion } from "./wire.js"

/** What the question's controls do, and what the page puts above it. */
export interface QuestionHooks {
  /** Who asks (and the request's timing), above the question. */
  readonly asker: Node
  /** "Question 2 of 3". */
  readonly position: string
  /** An answer to this question was given (an empty `selected`: skipped). */
  readonly record: (item: AnswerItem) => void
  /** Goes back to the previous question; undefined on the first. */
  readonly back: (() => void) | undefined
  readonly cancel: () => void
}

/** The question's parts, for the page to place, and where the focus may go. */
export interface QuestionScreen {
  readonly parts: ReadonlyArray<Node>
  /** Its first control. */
  readonly focusFirst: HTMLElement | undefined
  /** The answer given before (after "Back"), if any. */
  readonly focusAnswer: HTMLElement | undefined
}

/** Builds `question`'s screen; `answered` is its answer so far, `step` what answering it leads to. */
export const questionScreen = (
  question: PageQuestion,
  answered: () => AnswerItem | undefined,
  step: Step,
  hooks: QuestionHooks
): QuestionScreen => {
  const record = hooks.record
  const options = question.options ?? []
  const previous = answered()

  const parts: Array<Node> = [hooks.asker, h("p", { class: "progress", id: "progress" }, hooks.position)]
  if (question.header !== undefined && question.header !== "") {
    parts.push(modelIn("p", { class: "chip" }, question.header))
  }
  // Focusable from script only, for `rescueFocus`.
  parts.push(modelIn("h2", { id: "question-text", tabindex: "-1" }, question.question))

  let focusFirst: HTMLElement | undefined
  let focusAnswer: HTMLElement | undefined
  let primary: HTMLButtonElement | undefined
  if (options.length === 0) {
    const field = freeText(question, answered, step, record)
    parts.push(...field.parts)
    focusFirst = field.input
    primary = field.primary
  } else {
    const submitMulti = () => {
      const text = other.value
      if (text.trim() !== "") return record({ id: question.id, selected: [], custom: text })
      record({ id: question.id, selected: options.filter((_, i) => list.boxes[i]?.checked).map((o) => o.label) })
    }
    const list = choices(question, previous, (label) => record({ id: question.id, selected: [label] }), submitMulti)
    parts.push(list.element)
    const other = textBox(
      { "aria-label": "Other", placeholder: "Other…", enterkeyhint: step.hint, class: "text other" },
      (text) => record({ id: question.id, selected: [], custom: text })
    )
    focusAnswer = list.chosen
    if (previous?.custom !== undefined) {
      other.value = previous.custom
      focusAnswer = other
    }
    parts.push(other)
    if (question.multiSelect === true) parts.push(otherReplacesTicks(other, list.boxes))
    if (question.multiSelect === true) {
      primary = h("button", { type: "button", class: "primary" }, step.name)
      primary.addEventListener("click", submitMulti)
    } else {
      // Choosing an option sends it; Other text needs a button too, for a person who does not press Enter.
      const send = h("button", { type: "button", class: "primary" }, step.name)
      const follow = () => {
        send.hidden = other.value.trim() === ""
      }
      other.addEventListener("input", follow)
      follow()
      send.addEventListener("click", () => {
        if (other.value.trim() !== "") record({ id: question.id, selected: [], custom: other.value })
      })
      primary = send
    }
    focusFirst = list.start
  }

  const actions = h("div", { class: "row actions" })
  if (primary !== undefined) actions.append(primary)
  if (hooks.back !== undefined) {
    const back = h("button", { type: "button" }, "Back")
    back.addEventListener("click", hooks.back)
    actions.append(back)
  }
  const skip = h("button", { type: "button" }, "Skip")
  skip.addEventListener("click", () => record({ id: question.id, selected: [] }))
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel")
  cancel.addEventListener("click", hooks.cancel)
  actions.append(skip, cancel)
  parts.push(actions)

  return { parts, focusFirst, focusAnswer }
}

/**
 * SPEC: text in Other is the answer, and the ticks go unused. So the page
 * never shows a tick it will not send: while Other holds text the boxes are
 * cleared and refuse a tick (they keep the focus, so the arrow keys still
 * move through them), and a note says why; emptying Other puts the ticks back.
 * Returns the note, for the caller to place.
 */
const otherReplacesTicks = (other: HTMLInputElement, boxes: ReadonlyArray<HTMLInputElement>): HTMLElement => {
  const note = h("p", { class: "note", id: "other-note" }, "Your own answer replaces the options. Clear it to tick them again.")
  other.setAttribute("aria-describedby", "other-note")
  let kept: ReadonlyArray<boolean> | undefined
  const follow = () => {
    const replacing = other.value.trim() !== ""
    if (replacing && kept === undefined) {
      kept = boxes.map((box) => box.checked)
      for (const box of boxes) box.checked = false
    } else if (!replacing && kept !== undefined) {
      boxes.forEach((box, i) => box.checked = kept![i] ?? false)
      kept = undefined
    }
    for (const box of boxes) {
      if (replacing) box.setAttribute("aria-disabled", "true")
      else box.removeAttribute("aria-disabled")
    }
    note.hidden = !replacing
  }
  for (const box of boxes) {
    box.addEventListener("click", (event) => {
      if (kept !== undefined) event.preventDefault()
    })
  }
  other.addEventListener("input", follow)
  follow()
  return note
}

