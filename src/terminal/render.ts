/**
 * Draws a terminal question: pure functions from a question's state to the
 * text of its frame. Every piece of model text goes through `sanitize` here,
 * the one place where it meets the terminal.
 *
 * @internal
 */
import { sanitize, sanitizeLine } from "../internal/sanitize.js"
import {
  hintLine,
  type QuestionContext,
  type QuestionOutcome,
  type QuestionState,
  otherLabel,
  rowsOf,
  skipLabel,
  tickedCount
} from "./question.js"

/** How to draw: with colours or without (the pointer and markers never rely on colour). */
export interface Style {
  readonly colors: boolean
}

const sgr = (style: Style, code: string, text: string) => style.colors ? `\x1b[${code}m${text}\x1b[0m` : text
const bold = (style: Style, text: string) => sgr(style, "1", text)
const dim = (style: Style, text: string) => sgr(style, "2", text)
const accent = (style: Style, text: string) => sgr(style, "36", text)
// The caret inside a text field: reverse video, an attribute rather than a colour, so it shows with NO_COLOR.
const reverse = (text: string) => `\x1b[7m${text}\x1b[27m`

/** What custom text does to ticked options, said before it happens. */
export const replacesTicked = (ticked: number): string =>
  ticked === 1 ? "replaces the ticked option" : `replaces the ${ticked} ticked options`

/** The tag line above a question (header, progress, agent), if any, and the question's own lines. */
const titleParts = (context: QuestionContext, style: Style) => {
  const tags: Array<string> = []
  if (context.question.header !== undefined && context.question.header.trim() !== "") {
    tags.push(accent(style, `[${sanitizeLine(context.question.header)}]`))
  }
  if (context.total > 1) tags.push(dim(style, `Question ${context.index + 1} of ${context.total}`))
  if (context.agentName !== undefined && context.agentName.trim() !== "") {
    tags.push(dim(style, `asked by ${sanitizeLine(context.agentName)}`))
  }
  return {
    tags: tags.length === 0 ? undefined : tags.join("  "),
    question: sanitize(context.question.question).replace(/\t/g, " ").split("\n")
  }
}

const keyHints = (context: QuestionContext, state: QuestionState): ReadonlyArray<string> => {
  if (state.editing !== undefined) {
    const edit = "←/→ Home/End move"
    return (context.question.options?.length ?? 0) > 0
      ? [edit, "Enter submits", "empty Enter goes back", "Esc cancels"]
      : context.total > 1
      ? [edit, "Enter submits", "empty Enter skips", "Esc cancels"]
      : [edit, "Enter submits", "Esc cancels"]
  }
  return context.question.multiSelect === true
    ? ["↑/↓ move", "Space toggles", "Enter submits (nothing toggled skips)", "Esc cancels"]
    : ["↑/↓ move", "Enter chooses", "Esc cancels"]
}

/** The text being typed, with its caret: a block at the end, else the character under it in reverse video. */
const textField = (text: string, caret: number): string => {
  const chars = Array.from(text)
  const at = Math.min(caret, chars.length)
  const before = sanitizeLine(chars.slice(0, at).join(""))
  if (at === chars.length) return `${before}█`
  return `${before}${reverse(sanitizeLine(chars[at]!))}${sanitizeLine(chars.slice(at + 1).join(""))}`
}

/** The size of the terminal drawn on. */
export interface Size {
  readonly columns: number
  readonly rows: number
}

// Our own SGR sequences take no room on screen; model text holds none (it is sanitised).
const sgrSequence = /^\x1b\[[0-9;?]*[A-Za-z]/

/** `line` cut to one screen row of `columns`, ending in "…" when cut (SGR sequences kept whole). */
const clipRow = (line: string, columns: number): string => {
  if (columns <= 0 || rowCount(line, columns) <= 1) return line
  let out = ""
  let width = 0
  for (let i = 0; i < line.length;) {
    const sequence = sgrSequence.exec(line.slice(i))
    if (sequence !== null) {
      out += sequence[0]
      i += sequence[0].length
      continue
    }
    const char = String.fromCodePoint(line.codePointAt(i)!)
    if (width === columns - 1) return `${out}…${line.includes("\x1b[") ? "\x1b[0m" : ""}`
    out += char
    width++
    i += char.length
  }
  return out
}

/** `line` (plain text) broken into rows of `columns` characters. */
const wrapRows = (line: string, columns: number): ReadonlyArray<string> => {
  const chars = Array.from(line)
  if (columns <= 0 || chars.length <= columns) return [line]
  const rows: Array<string> = []
  for (let i = 0; i < chars.length; i += columns) rows.push(chars.slice(i, i + columns).join(""))
  return rows
}

/**
 * The frame of a question being answered (no trailing newline). It always
 * fits the terminal, one row spare: a frame taller than the screen scrolls
 * off the top, where it can no longer be erased, and every redraw would leave
 * a stale copy in the scrollback. So menu rows are cut to one screen row, the
 * menu is drawn as a window around the cursor when it does not fit, and a
 * question text taller than the room left is cut with a "more lines" marker.
 */
export const questionFrame = (
  context: QuestionContext,
  state: QuestionState,
  style: Style,
  size: Size = { columns: 0, rows: 0 }
): string => {
  const { columns } = size
  const options = context.question.options ?? []
  const multi = context.question.multiSelect === true
  const ticked = tickedCount(state)
  const rows = rowsOf(context).map((row, i) => {
    const active = i === state.cursor && (state.editing === undefined || row._tag === "Other")
    const pointer = active ? accent(style, "❯") : " "
    switch (row._tag) {
      case "Option": {
        const option = options[row.index]
        const box = multi ? (state.toggled[row.index] === true ? "[x] " : "[ ] ") : ""
        const label = sanitizeLine(option?.label ?? "")
        const description = option?.description !== undefined && option.description.trim() !== ""
          ? dim(style, ` - ${sanitizeLine(option.description)}`)
          : ""
        return `${pointer} ${box}${active ? bold(style, label) : label}${description}`
      }
      case "Other": {
        const typing = state.editing !== undefined
        const text = typing ? `Other: ${textField(state.editing ?? "", state.caret)}` : otherLabel
        // Custom text overrides choices (the answer rules): say so before the ticks are lost.
        const note = multi && ticked > 0 ? dim(style, `  (${replacesTicked(ticked)})`) : ""
        return `${typing ? accent(style, "❯") : pointer} ${multi ? "    " : ""}${text}${note}`
      }
      case "Skip":
        return `${pointer} ${multi ? "    " : ""}${dim(style, skipLabel)}`
    }
  }).map((row) => state.editing !== undefined && row.includes("Other: ") ? row : clipRow(row, columns))
  const hint = clipRow(dim(style, hintLine([...(state.hint === undefined ? [] : [state.hint]), ...keyHints(context, state)])), columns)
  const footer = [
    ...(options.length === 0 ? [`${accent(style, "❯")} ${textField(state.editing ?? "", state.caret)}`] : []),
    hint
  ]
  const { question, tags } = titleParts(context, style)
  const head = tags === undefined ? [] : [clipRow(tags, columns)]
  const text = question.flatMap((line) => wrapRows(line, columns))
  // One row spare, so that the last row never makes the terminal scroll.
  const room = (size.rows > 0 ? Math.max(size.rows - 1, 6) : Infinity) - rowCount(footer.join("\n"), columns) - head.length
  // The menu keeps at least a few rows (with its two "more" markers when windowed); the question gets the rest.
  const menuNeed = rows.length <= room - 1 ? rows.length : Math.min(rows.length, 3) + 2
  const textRoom = Math.max(1, room - menuNeed)
  const shown = text.length <= textRoom
    ? text.map((line) => bold(style, line))
    : [...text.slice(0, textRoom - 1).map((line) => bold(style, line)), dim(style, `  … ${text.length - textRoom + 1} more lines of the question`)]
  const menuRoom = Math.max(1, room - shown.length)
  let menu = rows
  if (rows.length > menuRoom) {
    const window = Math.max(1, menuRoom - 2)
    const start = Math.min(Math.max(0, state.cursor - Math.floor(window / 2)), rows.length - window)
    menu = [
      dim(style, start > 0 ? `  ↑ ${start} more` : ""),
      ...rows.slice(start, start + window),
      dim(style, start + window < rows.length ? `  ↓ ${rows.length - start - window} more` : "")
    ]
  }
  return [...head, ...shown, ...menu, ...footer].join("\n")
}

/** The line left on screen once a question is done. */
export const doneFrame = (context: QuestionContext, outcome: QuestionOutcome, style: Style): string => {
  const header = context.question.header !== undefined && context.question.header.trim() !== ""
    ? `[${sanitizeLine(context.question.header)}] `
    : ""
  const question = sanitizeLine(context.question.question)
  switch (outcome._tag) {
    case "Cancelled":
      return `✖ ${header}${question} ${dim(style, "(cancelled)")}\n`
    case "Aborted":
      return `✖ ${header}${question} ${dim(style, "(interrupted)")}\n`
    case "Answered": {
      const { item } = outcome
      const answer = item.custom !== undefined
        ? sanitizeLine(item.custom)
        : item.selected.length === 0
        ? dim(style, "(skipped)")
        : item.selected.map(sanitizeLine).join(", ")
      return `${accent(style, "✔")} ${header}${question} › ${answer}\n`
    }
  }
}

/** How many screen rows `frame` takes on a terminal `columns` wide. */
export const rowCount = (frame: string, columns: number): number =>
  frame.split("\n").reduce((rows, line) => {
    // eslint-disable-next-line no-control-regex
    const width = Array.from(line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")).length
    return rows + (columns > 0 ? Math.max(1, Math.ceil(width / columns)) : 1)
  }, 0)

/** Erases a frame of `rows` rows drawn just before, leaving the cursor at its start. */
export const eraseRows = (rows: number): string =>
  rows <= 0 ? "" : "\x1b[2K" + "\x1b[1A\x1b[2K".repeat(rows - 1) + "\r"

/** Hides the cursor while a menu is drawn (the render loop shows it again when it ends). */
export const hideCursor = "\x1b[?25l"
/** Shows the cursor. */
export const showCursor = "\x1b[?25h"
/** The terminal bell. */
export const bell = "\x07"
