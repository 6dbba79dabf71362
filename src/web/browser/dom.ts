/**
 * How the answer page's modules put model text into the document: elements
 * built with text nodes only (never HTML), every control and invisible
 * character shown as the escape the terminal shows (`\u202e`, `\u200b`), and
 * model text in a bidi isolate of its own. Browser code: see `page.ts`.
 */

/** A child of an element being built: a node, or text (made a text node). */
export type Child = Node | string

/** Builds an element; text goes in as text nodes, so nothing is parsed as HTML. */
export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: ReadonlyArray<Child>
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value)
  for (const child of children) element.append(typeof child === "string" ? document.createTextNode(child) : child)
  return element
}

/**
 * The characters the terminal shows as escapes (`internal/sanitize.ts`): every
 * control and format character (BiDi controls, zero-width characters and
 * direction marks among them), the other invisible ones, lone surrogates, and
 * variation selectors where they only hide. The server puts it before the
 * page's script.
 */
declare const inertPattern: RegExp

/** The visible escape of one such character, as the terminal writes it: `\x1b`, `\u200b`, `\u{e0041}`. */
const escapeOf = (char: string): string => {
  const code = char.codePointAt(0) ?? 0
  const hex = code.toString(16)
  return code <= 0xff ? `\\x${hex.padStart(2, "0")}` : code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`
}

/**
 * Model text as plain text (a notification, an accessible name): each of
 * those characters replaced by its escape. Hidden, two labels that differ
 * only by them would look alike ("ye\u200bs" and "yes"); raw, an explicit
 * bidi control would reorder the page around it: Chromium feeds a `<bdi>` (or
 * `dir="auto"`) to the bidi algorithm as FSI … PDI, so the model's own PDI
 * closes it early and an override after it runs on over the page's words
 * ("Bob\u2069\u202e asks" read "Bobsksa"). Display only: an answer carries its
 * labels as the model sent them.
 */
export const shown = (text: string): string => text.replace(inertPattern, escapeOf)

/**
 * Model text as page content: as `shown`, each escape in a box of its own,
 * so that an escaped character never reads like the same text typed
 * ("ye\\u200bs" is not "ye\u200bs").
 */
export const shownNodes = (text: string): Array<Child> => {
  const nodes: Array<Child> = []
  let from = 0
  for (const match of text.matchAll(inertPattern)) {
    if (match.index > from) nodes.push(text.slice(from, match.index))
    nodes.push(h("span", { class: "escape" }, escapeOf(match[0])))
    from = match.index + match[0].length
  }
  if (from < text.length) nodes.push(text.slice(from))
  return nodes
}

/** Model text, shown and isolated: its direction cannot leak into the page's words around it. */
export const model = (text: string) => h("bdi", {}, ...shownNodes(text))

/** Model text as an element's whole content, shown and isolated, its direction its own. */
export const modelIn = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, text: string) =>
  h(tag, { dir: "auto", ...attrs }, ...shownNodes(text))
