/**
 * The preview panel of a question whose options carry previews (decision
 * 117): beside the options on a wide screen, below them on a narrow one (the
 * style sheet decides), it shows the preview of one option at a time, named
 * in its title. A preview is plain text or markdown and is shown as text:
 * white space and line breaks kept, long lines wrapped, markdown not
 * rendered, control and invisible characters as escapes like all model
 * text, never parsed as HTML. The text scrolls inside the panel (which takes
 * the focus, so the keyboard can scroll it too). Browser code: see `page.ts`.
 */
import { h, shown, shownNodes } from "./dom.js"
import type { PageOption } from "./wire.js"

/** The panel, and how to show one option's preview in it. */
export interface PreviewPanel {
  readonly panel: HTMLElement
  /** Shows the preview of `options[i]` (or says it has none). */
  readonly show: (i: number) => void
}

/**
 * Builds the panel for these options; it shows nothing until `show`. Its
 * title is a list of the options ("Preview of [Postgres]"): it follows the
 * focus and the pointer, and choosing in it shows that option's preview
 * without choosing the option, which is how a touch screen, with no hover
 * and where a tap on an option answers, gets to every preview.
 */
export const previewPanel = (options: ReadonlyArray<PageOption>): PreviewPanel => {
  const pick = h(
    "select",
    { class: "preview-pick", id: "preview-pick" },
    ...options.map((option, i) => h("option", { value: String(i), dir: "auto" }, shown(option.label)))
  )
  const title = h("label", { class: "preview-title", id: "preview-title", for: "preview-pick" }, "Preview of ", pick)
  // Kept while the previews change, so a focus on it (scrolling with the keyboard) stays.
  const body = h("pre", { class: "preview-body", dir: "auto", tabindex: "0", "aria-labelledby": "preview-title" })
  const panel = h("section", { class: "preview", "aria-labelledby": "preview-title" }, title, body)
  let showing = -1
  const show = (i: number) => {
    const option = options[i]
    if (option === undefined || i === showing) return
    showing = i
    pick.value = String(i)
    const text = option.preview ?? ""
    // A line break is a line break however the model wrote it; a lone CR would show as an escape.
    body.replaceChildren(
      ...(text === "" ? [h("span", { class: "preview-none" }, "No preview for this option.")] : shownNodes(text.replace(/\r\n?/g, "\n")))
    )
    body.scrollTop = 0
  }
  pick.addEventListener("change", () => show(Number(pick.value)))
  return { panel, show }
}
