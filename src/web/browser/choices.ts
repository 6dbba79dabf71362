/**
 * The options of one question on the answer page: toggle buttons for a
 * single-select question, checkboxes for a multi-select one, moved through
 * with the arrow keys, Home and End. The recommended option (decision 116)
 * carries a visible "Recommended" mark that is also its accessible
 * description, and is where the focus starts; nothing is chosen or ticked
 * for the person. When any option has a preview, a panel beside the options
 * (below them on a narrow screen) shows the preview of the option focused or
 * under the pointer (`preview.ts`). Browser code: see `page.ts`.
 */
import { h, modelIn, shown } from "./dom.js"
import { previewPanel } from "./preview.js"
import type { AnswerItem, PageOption, PageQuestion } from "./wire.js"

/** A label that says it is the recommended one: " (Recommended)" at its end, any case (as the request rules read it). */
const saysRecommended = /\s\(recommended\)\s*$/i

/**
 * Whether the question recommends this option: `recommended: true`, or, when
 * the field is absent, a label ending " (Recommended)"; an explicit
 * `recommended: false` wins over the label (as `isRecommended` in the core).
 */
export const isRecommended = (option: PageOption): boolean => option.recommended ?? saysRecommended.test(option.label)

/** The options of a question, built. */
export interface Choices {
  /** The options, and the preview panel when there is one. */
  readonly element: HTMLElement
  /** A multi-select question's checkboxes, in option order (none for a single-select). */
  readonly boxes: ReadonlyArray<HTMLInputElement>
  /** Where the focus goes when the question shows: the first recommended option, else the first. */
  readonly start: HTMLElement | undefined
  /** The control of the answer given before (after "Back"), if it was an option. */
  readonly chosen: HTMLElement | undefined
}

/** Arrow keys, Home and End move between the options of one question; Enter calls `onEnter` when given. */
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

/**
 * One option's content: its label (without a " (Recommended)" the mark
 * replaces), the mark, and its description; and the ids that describe it.
 */
const optionBody = (option: PageOption, i: number) => {
  const marked = isRecommended(option)
  const inLabel = saysRecommended.test(option.label)
  const bare = marked && inLabel ? option.label.replace(saysRecommended, "") : option.label
  const body: Array<Node> = [modelIn("span", { class: "option-label" }, bare === "" ? option.label : bare)]
  const describedBy: Array<string> = []
  if (marked) {
    const markId = `option-${i}-recommended`
    body.push(h("span", { class: "badge", id: markId }, "Recommended"))
    // A label that says so already is heard saying so: the mark would say it twice.
    if (!inLabel) describedBy.push(markId)
  }
  if (option.description !== undefined && option.description !== "") {
    const descId = `option-${i}-description`
    body.push(modelIn("span", { class: "option-description", id: descId }, option.description))
    describedBy.push(descId)
  }
  return { body, describedBy: describedBy.length === 0 ? {} : { "aria-describedby": describedBy.join(" ") } }
}

/**
 * Builds the options of `question`. A single-select option is chosen with
 * `choose(label)`; Enter on a multi-select option calls `submit`.
 * `previous` is the answer given before, shown as chosen or ticked.
 */
export const choices = (
  question: PageQuestion,
  previous: AnswerItem | undefined,
  choose: (label: string) => void,
  submit: () => void
): Choices => {
  const options = question.options ?? []
  const multi = question.multiSelect === true
  const items: Array<HTMLElement> = []
  const boxes: Array<HTMLInputElement> = []
  let chosen: HTMLElement | undefined
  const group = h("div", { role: "group", "aria-labelledby": "question-text", class: "options" })
  options.forEach((option, i) => {
    const { body, describedBy } = optionBody(option, i)
    // Its accessible name is the label as shown, so what is heard matches what is read.
    const name = shown(option.label)
    if (multi) {
      const box = h("input", { type: "checkbox", "aria-label": name, ...describedBy })
      box.checked = previous?.selected.includes(option.label) ?? false
      boxes.push(box)
      items.push(box)
      group.append(h("label", { class: "option" }, box, h("span", { class: "option-body" }, ...body)))
    } else {
      // A toggle button: after "Back", a screen reader hears which option was chosen.
      const pressed = previous?.selected[0] === option.label ? "true" : "false"
      const button = h("button", { type: "button", class: "option", "aria-label": name, "aria-pressed": pressed, ...describedBy }, ...body)
      button.addEventListener("click", () => choose(option.label))
      if (pressed === "true") chosen = button
      items.push(button)
      group.append(button)
    }
  })
  group.addEventListener("keydown", roving(items, multi ? submit : undefined))
  chosen ??= boxes.find((box) => box.checked)
  const recommended = options.findIndex(isRecommended)
  const start = items[Math.max(recommended, 0)]
  if (!options.some((option) => option.preview !== undefined)) return { element: group, boxes, start, chosen }

  const preview = previewPanel(options)
  items.forEach((item, i) => {
    item.addEventListener("focus", () => preview.show(i))
    // A checkbox's row is its label: pointing anywhere on it shows the preview.
    ;(multi ? item.parentElement ?? item : item).addEventListener("pointerenter", () => preview.show(i))
  })
  // Before any focus or pointer: the option the focus will start on (or the one chosen before).
  preview.show(chosen === undefined ? Math.max(recommended, 0) : items.indexOf(chosen))
  return { element: h("div", { class: "choices has-preview" }, group, preview.panel), boxes, start, chosen }
}
