/**
 * Draws a terminal question: pure functions from a question's state to the
 * text of its frame. Every piece of model text goes through `sanitize` here,
 * the one place where it meets the terminal.
 *
 * @internal
 */
import { sanitize, sanitizeLine } from "../internal/sanitize.js"
import {
  type QuestionContext,
  type QuestionOutcome,
  type QuestionState,
  otherLabel,
  rowsOf,
  skipLabel
} from "./question.js"

/** How to draw: with colours or without (the pointer and markers never rely on colour). */
export interface Style {
  readonly colors: boolean
}

const sgr = (style: Style, code: string, text: string) => style.colors ? `\x1b[${code}m${text}\x1b[0m` : text
const bold = (style: Style, text: string) => sgr(style, "1", text)
const dim = (style: Style, text: string) => sgr(style, "2", text)
const accent = (style: Style, text: string) => sgr(style, "36", text)

/** The lines above a question: agent, header tag and progress, then the question itself. */
export const titleLines = (context: QuestionContext, style: Style): ReadonlyArray<string> => {
  const tags: Array<string> = []
  if (context.question.header !== undefined && context.question.header.trim() !== "") {
    tags.push(accent(style, `[${sanitizeLine(context.question.header)}]`))
  }
  if (context.total > 1) tags.push(dim(style, `Question ${context.index + 1} of ${context.total}`))
  if (context.agentName !== undefined && context.agentName.trim() !== "") {
    tags.push(dim(style, `asked by ${sanitizeLine(context.agentName)}`))
  }
  const question = sanitize(context.question.question).split("\n").map((line) => bold(style, line))
  return tags.length === 0 ? question : [tags.join("  "), ...question]
}

const keysHint = (context: QuestionContext, state: QuestionState): string => {
  if (state.editing !== undefined) {
    return (context.question.options?.length ?? 0) > 0
      ? "Enter submits · empty Enter goes back · Esc cancels"
      : context.total > 1
      ? "Enter submits · empty Enter skips · Esc cancels"
      : "Enter submits · Esc cancels"
  }
  return context.question.multiSelect === true
    ? "↑/↓ move · Space toggles · Enter submits (nothing toggled skips) · Esc cancels"
    : "↑/↓ move · Enter chooses · Esc cancels"
}

/** The size of the terminal drawn on. */
export interface Size {
  readonly columns: number
  readonly rows: number
}

/**
 * The frame of a question being answered (no trailing newline). When the menu
 * does not fit the terminal's height, only a window of rows around the cursor
 * is drawn: a frame taller than the screen could not be erased and redrawn.
 */
export const questionFrame = (
  context: QuestionContext,
  state: QuestionState,
  style: Style,
  size: Size = { columns: 0, rows: 0 }
): string => {
  const title = titleLines(context, style)
  const options = context.question.options ?? []
  const multi = context.question.multiSelect === true
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
        const text = typing ? `Other: ${sanitizeLine(state.editing ?? "")}█` : otherLabel
        return `${typing ? accent(style, "❯") : pointer} ${multi ? "    " : ""}${text}`
      }
      case "Skip":
        return `${pointer} ${multi ? "    " : ""}${dim(style, skipLabel)}`
    }
  })
  const footer = [
    ...(options.length === 0 ? [`${accent(style, "❯")} ${sanitizeLine(state.editing ?? "")}█`] : []),
    dim(style, state.hint ?? keysHint(context, state))
  ]
  // Room for menu rows: the screen less the title, the footer, the two "more" markers and one spare row.
  const room = size.rows > 0 ? Math.max(3, size.rows - rowCount(title.join("\n"), size.columns) - footer.length - 3) : Infinity
  let menu = rows
  if (rows.length > room) {
    const start = Math.min(Math.max(0, state.cursor - Math.floor(room / 2)), rows.length - room)
    menu = [
      dim(style, start > 0 ? `  ↑ ${start} more` : ""),
      ...rows.slice(start, start + room),
      dim(style, start + room < rows.length ? `  ↓ ${rows.length - start - room} more` : "")
    ]
  }
  return [...title, ...menu, ...footer].join("\n")
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
