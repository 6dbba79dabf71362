/**
 * Makes model-supplied text inert before it reaches a terminal.
 *
 * A question, header, label, description or agent name comes from a model and
 * may carry escape sequences that clear the screen, move the cursor, write the
 * clipboard (OSC 52), plant links (OSC 8), retitle the window, or reorder what
 * the human reads (BiDi overrides), or hide characters altogether (every
 * format character, such as zero-width space and joiners, direction marks, the
 * word joiner, tag characters; the Hangul fillers; U+2028/2029: `ye\u2060s`
 * would read as `yes`). Every such sequence needs an introducer character: ESC or an
 * 8-bit C1 control for CSI/OSC/DCS/SOS/PM/APC, a C0/C1 control for the rest, a
 * BiDi override or isolate for reordering. Replacing each of those characters,
 * and each invisible format character, with a visible escape (`\x1b`, `\x9b`,
 * `\u202e`, `\u200b`, `\u{e0041}`) leaves the rest of a sequence as plain, printable text,
 * so the human sees what the model sent and the terminal interprets none of it.
 *
 * Only what is displayed is sanitised: answers return labels unchanged. The
 * same functions guard prompts and every diagnostic `ask-user` prints, and the
 * web page shows the same characters the same way (`unsafeSource`).
 *
 * @internal
 */

// Always unsafe: C0 controls except tab (0x09) and newline (0x0a), DEL and the C1 range
// (0x80–0x9f); every format character (General Category Cf: zero-width space and joiners,
// LRM/RLM, the BiDi embeddings, overrides and isolates, word joiner, invisible operators, soft
// hyphen, BOM, interlinear annotation, tag characters, prepended concatenation marks, …); the
// line and paragraph separators (U+2028/2029); and the other default-ignorable characters,
// which terminals draw as nothing: the combining grapheme joiner (U+034F), the Hangul fillers
// (U+115F, U+1160, U+3164, U+FFA0), the Khmer inherent vowels (U+17B4/17B5), the reserved
// U+2065 and U+FFF0–FFF8, and the rest of plane 14 outside the variation selectors. A lone
// surrogate (Cs) is drawn as U+FFFD, so "A\ud800" and "A\udc00" would read the same.
const alwaysUnsafe = String.raw`\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Cs}\u2028\u2029\u2065\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0\ufff0-\ufff8\u{e0000}-\u{e00ff}\u{e01f0}-\u{e0fff}`
// Variation selectors pick an emoji's or ideograph's form (❤️ is U+2764 U+FE0F, 1️⃣ has one after
// the digit) and must stay for those. After a Latin, Greek or Cyrillic letter, white space, the
// start, another selector or an escaped character they change nothing visible and only hide
// (`ye\ufe0fs` reads as `yes`), so there they are unsafe too.
const variationSelector = String.raw`\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}`
const hidingPlace = String.raw`^|[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\s${variationSelector}${alwaysUnsafe}]`
const unsafe = new RegExp(`[${alwaysUnsafe}]|(?<=${hidingPlace})[${variationSelector}]`, "gu")

/**
 * The source of the pattern (flags `gu`) that finds each character `sanitize`
 * replaces: the web page is a script of its own and gets it from here.
 */
export const unsafeSource: string = unsafe.source

const visible = (char: string): string => {
  const code = char.codePointAt(0) ?? 0
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : code <= 0xffff
    ? `\\u${code.toString(16).padStart(4, "0")}`
    : `\\u{${code.toString(16)}}`
}

/** True when `text` holds a character that `sanitize` would replace. */
export const hasUnsafe = (text: string): boolean => {
  unsafe.lastIndex = 0
  return unsafe.test(text)
}

/**
 * `text` with every control character (other than newline and tab), every
 * format character (BiDi controls included), every other invisible character
 * and every variation selector that only hides replaced by its visible escape.
 */
export const sanitize = (text: string): string => text.replace(unsafe, visible)

/** `sanitize` for one line of a menu: newlines and tabs become spaces too. */
export const sanitizeLine = (text: string): string => sanitize(text).replace(/[\n\t]/g, " ")

/**
 * `value` as one line of JSON safe to print on a terminal: every character
 * `sanitize` would replace is written as a JSON `\u` escape instead, so the
 * JSON reads back the same while a C1 control or a BiDi override in an
 * answer or a listed question stays inert on the screen. (`JSON.stringify`
 * escapes only C0 controls.)
 */
export const inertJson = (value: unknown): string =>
  JSON.stringify(value).replace(unsafe, (char) =>
    Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""))
