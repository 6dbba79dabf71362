/**
 * Makes model-supplied text inert before it reaches a terminal.
 *
 * A question, header, label, description or agent name comes from a model and
 * may carry escape sequences that clear the screen, move the cursor, write the
 * clipboard (OSC 52), plant links (OSC 8), retitle the window, or reorder what
 * the human reads (BiDi overrides), or hide characters altogether (zero-width
 * space and joiners, direction marks, U+2028/2029, U+FEFF: `ye\u200bs` would
 * read as `yes`). Every such sequence needs an introducer character: ESC or an
 * 8-bit C1 control for CSI/OSC/DCS/SOS/PM/APC, a C0/C1 control for the rest, a
 * BiDi override or isolate for reordering. Replacing each of those characters,
 * and each invisible format character, with a visible escape (`\x1b`, `\x9b`,
 * `\u202e`, `\u200b`) leaves the rest of a sequence as plain, printable text,
 * so the human sees what the model sent and the terminal interprets none of it.
 *
 * Only what is displayed is sanitised: answers return labels unchanged. The
 * same functions guard prompts and every diagnostic `ask-user` prints.
 *
 * @internal
 */

// C0 controls except tab (0x09) and newline (0x0a), DEL, the C1 range (0x80–0x9f),
// the BiDi embeddings/overrides (U+202A–U+202E) and isolates (U+2066–U+2069), and the
// invisible format characters: zero-width space/joiners and LRM/RLM (U+200B–U+200F),
// the Arabic letter mark (U+061C), the line/paragraph separators (U+2028/2029), the BOM (U+FEFF).
const unsafe = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/gu

const visible = (char: string): string => {
  const code = char.codePointAt(0) ?? 0
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`
}

/** True when `text` holds a character that `sanitize` would replace. */
export const hasUnsafe = (text: string): boolean => {
  unsafe.lastIndex = 0
  return unsafe.test(text)
}

/**
 * `text` with every control character (other than newline and tab), every
 * BiDi override or isolate and every invisible format character replaced by
 * its visible escape.
 */
export const sanitize = (text: string): string => text.replace(unsafe, visible)

/** `sanitize` for one line of a menu: newlines and tabs become spaces too. */
export const sanitizeLine = (text: string): string => sanitize(text).replace(/[\n\t]/g, " ")
