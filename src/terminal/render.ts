/**
 * Draws a terminal question: pure functions from a question's state to the
 * text of its frame. Every piece of model text goes through `sanitize` here,
 * the one place where it meets the terminal.
 *
 * @internal
 */
import stringWidth from "fast-string-width"
import { type AskUserQuestionAnswerItem, type AskUserQuestionOption, isRecommended } from "../AskUserQuestion.js"
import { labelSaysRecommended } from "../internal/requestRules.js"
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
/** Text in bold, dim, or the accent colour, when the style has colours. */
export const bold = (style: Style, text: string) => sgr(style, "1", text)
/** @see bold */
export const dim = (style: Style, text: string) => sgr(style, "2", text)
/** @see bold */
export const accent = (style: Style, text: string) => sgr(style, "36", text)
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
    if (context.question.secret === true) {
      return context.total > 1
        ? ["typing is hidden", "Enter submits", "empty Enter skips", "Esc cancels"]
        : ["typing is hidden", "Enter submits", "Esc cancels"]
    }
    return (context.question.options?.length ?? 0) > 0
      ? [edit, "Enter submits", "empty Enter goes back", "Esc cancels"]
      : context.total > 1
      ? [edit, "Enter submits", "empty Enter skips", "Esc cancels"]
      : [edit, "Enter submits", "Esc cancels"]
  }
  // Enter on the Other and Skip rows does one thing, whatever the question, and Space toggles nothing there.
  const row = rowsOf(context)[state.cursor]?._tag
  if (row === "Other") return ["↑/↓ move", "Enter lets you type your own answer", "Esc cancels"]
  if (row === "Skip") return ["↑/↓ move", "Enter skips this question", "Esc cancels"]
  return context.question.multiSelect === true
    ? ["↑/↓ move", "Space toggles", "Enter submits (nothing toggled skips)", "Esc cancels"]
    : ["↑/↓ move", "Enter chooses", "Esc cancels"]
}

/**
 * The mark after a recommended option's label, readable without colour; none
 * when the label says so itself (" (Recommended)"), so it is never said twice.
 */
export const recommendedTag = (option: AskUserQuestionOption): string =>
  isRecommended(option) && !labelSaysRecommended(option.label) ? " (recommended)" : ""

/** What is typed into a secret question's field, as drawn: one `•` a character, never the text. */
const masked = (text: string): string => "•".repeat(Array.from(text).length)

/**
 * Columns a piece of sanitised text takes on screen: two for a wide (CJK)
 * character or an emoji, none for our own SGR sequences. Counting characters
 * instead undercounts wide text, and every redraw then leaves its overflow
 * above the frame.
 */
const widthOf = (text: string): number => stringWidth(text)

/**
 * The text being typed, with its caret: a block at the end, else the
 * character under it in reverse video. In at most `width` columns: a longer
 * text scrolls sideways around the caret, "…" marking each end that is cut,
 * so the field stays one screen row and the frame's height stays what was
 * counted for it.
 */
const textField = (text: string, caret: number, width: number): string => {
  // Each character is sanitised on its own, so an escape such as `\x1b` is never cut in two.
  const cells = Array.from(text, (char) => sanitizeLine(char))
  const at = Math.min(caret, cells.length)
  if (at === cells.length) cells.push("█")
  const draw = (i: number) => i === at && at < Array.from(text).length ? reverse(cells[i]!) : cells[i]!
  let from = at
  let to = at + 1
  let used = widthOf(cells[at]!)
  const fits = (extra: number, nextFrom: number, nextTo: number) =>
    used + extra + (nextFrom > 0 ? 1 : 0) + (nextTo < cells.length ? 1 : 0) <= width
  // Grow the window one character at a time, left and right in turn, while it fits.
  for (let grew = true; grew;) {
    grew = false
    if (from > 0 && fits(widthOf(cells[from - 1]!), from - 1, to)) {
      used += widthOf(cells[--from]!)
      grew = true
    }
    if (to < cells.length && fits(widthOf(cells[to]!), from, to + 1)) {
      used += widthOf(cells[to++]!)
      grew = true
    }
  }
  const shown = Array.from({ length: to - from }, (_, i) => draw(from + i)).join("")
  return `${from > 0 ? "…" : ""}${shown}${to < cells.length ? "…" : ""}`
}

/** The size of the terminal drawn on. */
export interface Size {
  readonly columns: number
  readonly rows: number
}

// Our own SGR sequences take no room on screen; model text holds none (it is sanitised).
const sgrSequence = /^\x1b\[[0-9;?]*[A-Za-z]/

/** `line` cut to one screen row of `columns`, ending in "…" when cut (SGR sequences kept whole). */
export const clipRow = (line: string, columns: number): string => {
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
    const charWidth = widthOf(char)
    if (width + charWidth > columns - 1) return `${out}…${line.includes("\x1b[") ? "\x1b[0m" : ""}`
    out += char
    width += charWidth
    i += char.length
  }
  return out
}

/**
 * `line` (plain text) broken into rows at most `columns` wide: at the last
 * space that fits (the space itself is dropped), else inside a word too long
 * for a row; a wide character is never split across two.
 */
const wrapRows = (line: string, columns: number): ReadonlyArray<string> => {
  if (columns <= 0 || widthOf(line) <= columns) return [line]
  const rows: Array<string> = []
  let row = ""
  let width = 0
  // Where the row may break: just after its last space (0: nowhere).
  let breakAt = 0
  for (const char of line) {
    const charWidth = widthOf(char)
    if (width + charWidth > columns && row !== "") {
      if (char === " ") {
        rows.push(row)
        row = ""
        width = 0
        breakAt = 0
        continue
      }
      const head = row.slice(0, Math.max(0, breakAt - 1))
      if (head.trim() === "") {
        rows.push(row)
        row = ""
      } else {
        rows.push(head)
        row = row.slice(breakAt)
      }
      width = widthOf(row)
      breakAt = 0
      // The word moved down still leaves no room for this character: break inside it.
      if (width + charWidth > columns && row !== "") {
        rows.push(row)
        row = ""
        width = 0
      }
    }
    row += char
    width += charWidth
    if (char === " ") breakAt = row.length
  }
  rows.push(row)
  return rows
}

/**
 * The screen rows a frame may take on a terminal of `size`: all but one,
 * a one-row terminal's one row; no limit when the size is unknown.
 */
export const frameRows = (size: Size): number => size.rows > 0 ? Math.max(1, size.rows - 1) : Infinity

/** Hands out `budget` rows in turn, each part as many as it asks while any are left. */
export const rowBudget = (budget: number) => {
  let left = budget
  return {
    left: () => left,
    take: (rows: number): number => {
      const taken = Math.max(0, Math.min(rows, left))
      left -= taken
      return taken
    }
  }
}

/** The rows each part of a frame gets. */
interface Allotment {
  readonly head: number
  readonly text: number
  readonly menu: number
  readonly hint: number
  readonly detail: number
  readonly preview: number
}

/**
 * Shares `budget` screen rows between the parts of a frame, given how many
 * each would fill (the input line of an optionless question is always drawn).
 * Rows go out in this order while any are left: the menu row under the
 * cursor, the question's first row, the key hint, a few more menu rows, the
 * tag line; then the whole menu if it fits (else room for its "more"
 * markers); when the whole menu fits, the preview box of the option under
 * the cursor, up to half of the rows left (a box needs three); the rest of
 * the question, the rest of the menu; the whole text of the option under the
 * cursor, if all of it fits; last, the rest of the preview. So a preview
 * never takes a row of the menu, and a long question does not hide it.
 */
const allot = (
  budget: number,
  need: {
    readonly input: number
    readonly head: number
    readonly text: number
    readonly menu: number
    readonly hint: number
    readonly detail: number
    readonly preview: number
  }
): Allotment => {
  const { left, take } = rowBudget(budget - need.input)
  let menu = take(Math.min(need.menu, 1))
  let text = take(Math.min(need.text, 1))
  const hint = take(need.hint)
  menu += take(Math.min(need.menu, 3) - menu)
  const head = take(need.head)
  menu += take(need.menu - menu <= left() ? need.menu - menu : 2)
  // Only once the whole menu has its rows: the preview never takes one of them.
  let preview = need.preview > 0 && menu === need.menu && left() >= minPreviewRows
    ? take(Math.min(need.preview, Math.max(minPreviewRows, Math.floor(left() / 2))))
    : 0
  text += take(need.text - text)
  menu += take(need.menu - menu)
  const detail = need.detail <= left() ? take(need.detail) : 0
  if (preview > 0) preview += take(need.preview - preview)
  return { head, text, menu, hint, detail, preview }
}

/** The question's rows in `room` rows: cut with a "more lines" marker, or to its first row with "…". */
const questionRows = (text: ReadonlyArray<string>, room: number, style: Style, columns: number): ReadonlyArray<string> => {
  if (text.length <= room) return text.map((line) => bold(style, line))
  if (room <= 1) return text.slice(0, room).map((line) => bold(style, clipRow(`${line} …`, columns)))
  const more = clipRow(`  … ${text.length - room + 1} more lines of the question`, columns)
  return [...text.slice(0, room - 1).map((line) => bold(style, line)), dim(style, more)]
}

/** The menu in `room` rows: a window around the cursor when it does not fit, with "more" markers from three rows on. */
export const menuWindow = (
  rows: ReadonlyArray<string>,
  cursor: number,
  room: number,
  style: Style,
  columns: number
): ReadonlyArray<string> => {
  if (rows.length <= room) return rows
  const markers = room >= 3
  const window = Math.max(1, markers ? room - 2 : room)
  const start = Math.min(Math.max(0, cursor - Math.floor(window / 2)), rows.length - window)
  if (!markers) return rows.slice(start, start + window)
  const marker = (text: string) => dim(style, clipRow(text, columns))
  // At either end one marker is enough, and its row shows one more option instead of a blank.
  if (start === 0) return [...rows.slice(0, room - 1), marker(`  ↓ ${rows.length - room + 1} more`)]
  if (start + window >= rows.length) {
    const from = rows.length - room + 1
    return [marker(`  ↑ ${from} more`), ...rows.slice(from)]
  }
  return [marker(`  ↑ ${start} more`), ...rows.slice(start, start + window), marker(`  ↓ ${rows.length - start - window} more`)]
}

/**
 * The frame of a question being answered (no trailing newline). It always
 * fits the terminal, one row spare (a one-row terminal gets one row): a
 * frame taller than the screen scrolls off the top, where it can no longer
 * be erased, and every redraw would leave a stale copy in the scrollback. So
 * every row is one screen row (long rows cut with "…", a long typed text
 * scrolled sideways), the menu is a window around the cursor when it does not
 * fit, and the question is cut with a "more lines" marker; in a very small
 * pane the tag line, then the hint, then the question give way (see `allot`),
 * and the row under the cursor stays.
 */
export const questionFrame = (
  context: QuestionContext,
  state: QuestionState,
  style: Style,
  size: Size = { columns: 0, rows: 0 }
): string => {
  const { columns } = size
  const width = columns > 0 ? columns : Infinity
  const options = context.question.options ?? []
  const multi = context.question.multiSelect === true
  const ticked = tickedCount(state)
  const menu = rowsOf(context).map((row, i) => {
    const active = i === state.cursor && (state.editing === undefined || row._tag === "Other")
    const pointer = active ? accent(style, "❯") : " "
    switch (row._tag) {
      case "Option": {
        const option = options[row.index]
        const box = multi ? (state.toggled[row.index] === true ? "[x] " : "[ ] ") : ""
        const label = sanitizeLine(option?.label ?? "")
        const tag = option === undefined ? "" : recommendedTag(option)
        const description = option?.description !== undefined && option.description.trim() !== ""
          ? dim(style, ` - ${sanitizeLine(option.description)}`)
          : ""
        return `${pointer} ${box}${active ? bold(style, label) : label}${tag === "" ? "" : accent(style, tag)}${description}`
      }
      case "Other": {
        const typing = state.editing !== undefined
        // Custom text overrides choices (the answer rules): say so before the ticks are lost,
        // unless the pane is so narrow that the note would leave the field fewer than 10 columns.
        const fieldRoom = width - widthOf(`❯ ${multi ? "    " : ""}Other: `)
        const wanted = multi && ticked > 0 ? `  (${replacesTicked(ticked)})` : ""
        const note = fieldRoom - widthOf(wanted) >= 10 || !typing ? wanted : ""
        const text = typing
          ? `Other: ${textField(state.editing ?? "", state.caret, Math.max(1, fieldRoom - widthOf(note)))}`
          : otherLabel
        return `${typing ? accent(style, "❯") : pointer} ${multi ? "    " : ""}${text}${note === "" ? "" : dim(style, note)}`
      }
      case "Skip":
        return `${pointer} ${multi ? "    " : ""}${dim(style, skipLabel)}`
    }
  }).map((row) => clipRow(row, columns))
  const typed = state.editing ?? ""
  const input = options.length === 0
    ? [`${accent(style, "❯")} ${textField(context.question.secret === true ? masked(typed) : typed, state.caret, Math.max(1, width - 2))}`]
    : []
  const detail = detailRows(context, state, columns).map((row) => dim(style, row))
  const preview = previewOf(context, state)
  const hint = clipRow(dim(style, hintLine([...(state.hint === undefined ? [] : [state.hint]), ...keyHints(context, state)])), columns)
  const { question, tags } = titleParts(context, style)
  const head = tags === undefined ? [] : [clipRow(tags, columns)]
  const text = question.flatMap((line) => wrapRows(line, columns))
  const room = allot(frameRows(size), {
    input: input.length,
    head: head.length,
    text: text.length,
    menu: menu.length,
    hint: 1,
    detail: detail.length,
    preview: preview.length === 0 || columns > 0 && columns < minPreviewColumns ? 0 : preview.length + 2
  })
  return [
    ...head.slice(0, room.head),
    ...questionRows(text, room.text, style, columns),
    ...menuWindow(menu, state.cursor, room.menu, style, columns),
    ...detail.slice(0, room.detail),
    ...(room.preview > 0 ? previewBox(preview, room.preview, columns, style) : []),
    ...input,
    ...(room.hint > 0 ? [hint] : [])
  ].join("\n")
}

/** A preview box needs its two borders and one row of text; and this many columns. */
const minPreviewRows = 3
const minPreviewColumns = 8

/**
 * The preview of the option under the cursor as lines of inert text (none
 * when it has none, or while text is typed): markdown shown as the text it
 * is, control characters, escape sequences and BiDi as visible escapes, a
 * tab as four spaces, CR LF as a line break, blank lines at the end dropped.
 */
const previewOf = (context: QuestionContext, state: QuestionState): ReadonlyArray<string> => {
  const row = state.editing === undefined ? rowsOf(context)[state.cursor] : undefined
  const option = row?._tag === "Option" ? context.question.options?.[row.index] : undefined
  return option?.preview === undefined ? [] : previewLines(option.preview)
}

/** A preview's text as the lines a surface without markup shows (see `previewOf`). */
export const previewLines = (preview: string): ReadonlyArray<string> => {
  if (preview.trim() === "") return []
  const lines = sanitize(preview.replace(/\r\n/g, "\n")).replace(/\t/g, "    ").split("\n")
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop()
  return lines
}

/**
 * `lines` in a box of at most `rows` rows and `columns` columns (its width
 * that of the longest line, or of the pane): each line cut with "…" where
 * the box ends, and when the lines outnumber its rows, the last row says how
 * many more there are.
 */
const previewBox = (lines: ReadonlyArray<string>, rows: number, columns: number, style: Style): ReadonlyArray<string> => {
  const title = "─ Preview "
  const longest = lines.reduce((most, line) => Math.max(most, widthOf(line)), widthOf(title) + 1)
  const outer = columns > 0 ? Math.min(columns, longest + 4) : longest + 4
  const inner = outer - 4
  const room = rows - 2
  const shown = lines.length <= room
    ? lines
    : room === 1
    ? [`${lines[0]} …`]
    : [...lines.slice(0, room - 1), `… ${lines.length - room + 1} more lines`]
  const border = (left: string, middle: string, right: string) => dim(style, `${left}${middle}${right}`)
  const top = widthOf(title) + 2 <= outer ? `${title}${"─".repeat(outer - 2 - widthOf(title))}` : "─".repeat(outer - 2)
  return [
    border("┌", top, "┐"),
    ...shown.map((line) => {
      const cut = clipRow(line, inner)
      return `${dim(style, "│")} ${cut}${" ".repeat(Math.max(0, inner - widthOf(cut)))} ${dim(style, "│")}`
    }),
    border("└", "─".repeat(outer - 2), "┘")
  ]
}

/**
 * The whole label and description of the option under the cursor, wrapped
 * and indented under the menu, when its row had to cut them: model text the
 * person chooses by should be readable in full. None when the row fits.
 */
const detailRows = (context: QuestionContext, state: QuestionState, columns: number): ReadonlyArray<string> => {
  const row = state.editing === undefined ? rowsOf(context)[state.cursor] : undefined
  const option = row?._tag === "Option" ? context.question.options?.[row.index] : undefined
  if (option === undefined || columns <= 0) return []
  const description = option.description !== undefined && option.description.trim() !== ""
    ? ` - ${sanitizeLine(option.description)}`
    : ""
  const full = `${sanitizeLine(option.label)}${recommendedTag(option)}${description}`
  const box = context.question.multiSelect === true ? "[ ] " : ""
  if (widthOf(`❯ ${box}${full}`) <= columns) return []
  const indent = "    "
  if (columns <= indent.length + 10) return []
  return wrapRows(full, columns - indent.length).map((line) => `${indent}${line}`)
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
    case "Answered":
      return `${accent(style, "✔")} ${header}${question} › ${answerText(outcome.item, style)}\n`
  }
}

/**
 * An answer as one line of text: the chosen labels, the typed text, or what
 * happened, "(skipped)", "(secret received)": a secret is never drawn.
 */
export const answerText = (item: AskUserQuestionAnswerItem, style: Style): string =>
  item.secret !== undefined
    ? dim(style, "(secret received)")
    : item.custom !== undefined
    ? sanitizeLine(item.custom)
    : item.selected.length === 0
    ? dim(style, "(skipped)")
    : item.selected.map(sanitizeLine).join(", ")

/**
 * Said under the ✔ lines of a request that ended before its last answer
 * (cancelled, aborted, taken down), so they do not read as answers that were
 * recorded; nothing when no question was answered.
 */
export const notUsedFrame = (answered: number, style: Style): string =>
  answered === 0
    ? ""
    : `${dim(style, answered === 1 ? "The answer above was not used." : "The answers above were not used.")}\n`

/** How many screen rows `frame` takes on a terminal `columns` wide. */
export const rowCount = (frame: string, columns: number): number =>
  frame.split("\n").reduce((rows, line) => {
    // eslint-disable-next-line no-control-regex
    const width = widthOf(line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ""))
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
