/**
 * The terminal question as pure data: which rows a question shows, the state
 * of its menu or text field, and how each key press changes that state or
 * ends the question. Drawing and the render loop live in `render.ts` and `prompt.ts`.
 *
 * @internal
 */
import type { AskUserQuestionAnswerItem, AskUserQuestionItem } from "../AskUserQuestion.js"

/** Where the question sits: its place in the batch and who asks. */
export interface QuestionContext {
  readonly question: AskUserQuestionItem
  /** 0-based position in the request. */
  readonly index: number
  readonly total: number
  readonly agentName: string | undefined
}

/** One row of a question's menu. */
export type Row =
  | { readonly _tag: "Option"; readonly index: number }
  | { readonly _tag: "Other" }
  | { readonly _tag: "Skip" }

/** The key that cancelled a request: Esc, or Ctrl+D (end of input, as a shell reads it). */
export type CancelKey = "Esc" | "Ctrl+D"

/** How a question ended: an answer, or the whole request cancelled (by which key) or aborted. */
export type QuestionOutcome =
  | { readonly _tag: "Answered"; readonly item: AskUserQuestionAnswerItem }
  | { readonly _tag: "Cancelled"; readonly key: CancelKey }
  | { readonly _tag: "Aborted" }

/** The menu or text field of one question. */
export interface QuestionState {
  /** The row under the cursor (menus only). */
  readonly cursor: number
  /** Which options are toggled (multi-select). */
  readonly toggled: ReadonlyArray<boolean>
  /** The text being typed: for "Other", or the answer of an optionless question. */
  readonly editing: string | undefined
  /** Where typing goes in `editing`, in characters (code points) from its start. */
  readonly caret: number
  /** A short phrase put before the key hints after an unaccepted key. */
  readonly hint: string | undefined
}

/** The key press, reduced to what the question reacts to. */
export interface KeyPress {
  readonly name: string
  readonly ctrl: boolean
  readonly meta: boolean
  /** Shift held: Shift+Tab arrives as the Tab key with it. */
  readonly shift: boolean
  /** The characters the key typed, if any. */
  readonly input: string | undefined
}

/** What a key press does. */
export type Step =
  | { readonly _tag: "Next"; readonly state: QuestionState }
  | { readonly _tag: "Beep" }
  | { readonly _tag: "Done"; readonly outcome: QuestionOutcome }

/** Joins hint parts the one way every hint is written, on a TTY and in line mode: `↑/↓ move · Enter chooses`. */
export const hintLine = (parts: ReadonlyArray<string>): string => parts.join(" · ")

/** The label of the free-text row. */
export const otherLabel = "Other (type your own answer)"
/** The label of the skip row (batches only). */
export const skipLabel = "Skip this question"

const hasOptions = (question: AskUserQuestionItem): boolean => (question.options?.length ?? 0) > 0

/**
 * The menu rows: the options in request order, then "Other", then "Skip" in a
 * batch. An optionless question has no menu, only its text field.
 */
export const rowsOf = (context: QuestionContext): ReadonlyArray<Row> => {
  if (!hasOptions(context.question)) return []
  const options = (context.question.options ?? []).map((_, index): Row => ({ _tag: "Option", index }))
  const skip: ReadonlyArray<Row> = context.total > 1 ? [{ _tag: "Skip" }] : []
  return [...options, { _tag: "Other" }, ...skip]
}

/** How many options are ticked (multi-select): custom text would replace them. */
export const tickedCount = (state: QuestionState): number => state.toggled.filter((on) => on).length

/** The state a question opens with: the cursor on the first option, or an empty text field. */
export const initialState = (context: QuestionContext): QuestionState => ({
  cursor: 0,
  toggled: (context.question.options ?? []).map(() => false),
  editing: hasOptions(context.question) ? undefined : "",
  caret: 0,
  hint: undefined
})

const answered = (item: AskUserQuestionAnswerItem): Step => ({ _tag: "Done", outcome: { _tag: "Answered", item } })
const next = (state: QuestionState): Step => ({ _tag: "Next", state })
const beep: Step = { _tag: "Beep" }

const isPrintable = (key: KeyPress): key is KeyPress & { readonly input: string } =>
  key.input !== undefined && !key.ctrl && !key.meta && key.name !== "return" && key.name !== "enter" &&
  key.name !== "escape" && key.name !== "backspace" && key.name !== "delete" && key.name !== "tab" &&
  // Keys that type nothing printable (arrows decoded from escape sequences) carry control characters.
  !/[\x00-\x1f\x7f]/.test(key.input)

const isEnter = (key: KeyPress) => key.name === "return" || key.name === "enter"

/** Applies one key press to a question. */
export const step = (context: QuestionContext, state: QuestionState, key: KeyPress): Step => {
  // Ctrl+C in raw mode sends no SIGINT: it is the human's interrupt. Esc (and Ctrl+D) dismiss the request.
  if (key.ctrl && key.name === "c") return { _tag: "Done", outcome: { _tag: "Aborted" } }
  if (key.name === "escape") return { _tag: "Done", outcome: { _tag: "Cancelled", key: "Esc" } }
  // As in a shell's line editor, Ctrl+D ends input only on an empty line; in typed text it deletes forward.
  if (key.ctrl && key.name === "d" && (state.editing ?? "") === "") {
    return { _tag: "Done", outcome: { _tag: "Cancelled", key: "Ctrl+D" } }
  }
  return state.editing === undefined ? stepMenu(context, state, key) : stepText(context, state, state.editing, key)
}

const stepMenu = (context: QuestionContext, state: QuestionState, key: KeyPress): Step => {
  const { question } = context
  const rows = rowsOf(context)
  const move = (delta: number) => next({ ...state, cursor: (state.cursor + delta + rows.length) % rows.length, hint: undefined })
  // A jump to where the cursor already is refused, as a caret move at the end of the text is.
  const jump = (to: number) => to === state.cursor ? beep : next({ ...state, cursor: to, hint: undefined })
  if (key.name === "up" || (key.ctrl && key.name === "p") || (key.name === "tab" && key.shift)) return move(-1)
  if (key.name === "down" || (key.ctrl && key.name === "n") || key.name === "tab") return move(1)
  // In a text field Home and End move the caret (see `caretMoves`); in a menu they go to its ends.
  if (key.name === "home" || key.name === "pageup") return jump(0)
  if (key.name === "end" || key.name === "pagedown") return jump(rows.length - 1)
  const row = rows[state.cursor]
  if (row === undefined) return beep
  const options = question.options ?? []
  if (key.name === "space" && question.multiSelect === true && row._tag === "Option") {
    return next({ ...state, toggled: state.toggled.map((on, i) => i === row.index ? !on : on), hint: undefined })
  }
  if (!isEnter(key)) {
    // Typing is refused with a hint that leads to the text field: from the Other row it is one Enter away.
    return key.name === "space" || isPrintable(key)
      ? next({ ...state, hint: row._tag === "Other" ? "press Enter first" : "to type your own answer, choose Other" })
      : beep
  }
  switch (row._tag) {
    case "Other":
      return next({ ...state, editing: "", caret: 0, hint: undefined })
    case "Skip":
      return answered({ id: question.id, selected: [] })
    case "Option": {
      const selected = question.multiSelect === true
        ? options.filter((_, i) => state.toggled[i] === true).map((option) => option.label)
        : [options[row.index]?.label ?? ""]
      return answered({ id: question.id, selected })
    }
  }
}

// Text-field keys that move the caret, as readline and shells bind them.
const caretMoves: Record<string, (caret: number, length: number) => number> = {
  left: (caret) => caret - 1,
  right: (caret) => caret + 1,
  home: () => 0,
  end: (_, length) => length
}
const emacsMoves: Record<string, string> = { b: "left", f: "right", a: "home", e: "end" }

const stepText = (context: QuestionContext, state: QuestionState, text: string, key: KeyPress): Step => {
  const { question } = context
  const withOptions = hasOptions(question)
  const chars = Array.from(text)
  const caret = Math.min(state.caret, chars.length)
  const edit = (edited: ReadonlyArray<string>, at: number) =>
    next({ ...state, editing: edited.join(""), caret: at, hint: undefined })
  if (isEnter(key)) {
    if (text.trim() !== "") return answered({ id: question.id, selected: [], custom: text })
    // Enter on an empty "Other" field goes back to the menu; an optionless question in a batch is skipped.
    if (withOptions) return next({ ...state, editing: undefined, caret: 0, hint: undefined })
    if (context.total > 1) return answered({ id: question.id, selected: [] })
    return next({ ...state, hint: "type an answer first" })
  }
  // Keys that move between rows leave "Other" for the menu, as they do from any row.
  if (withOptions && (key.name === "up" || key.name === "down" || key.name === "pageup" || key.name === "pagedown")) {
    return stepMenu(context, { ...state, editing: undefined, caret: 0 }, key)
  }
  const move = caretMoves[key.ctrl ? emacsMoves[key.name] ?? "" : key.name]
  if (move !== undefined && !key.meta) {
    const to = Math.max(0, Math.min(chars.length, move(caret, chars.length)))
    return to === caret ? beep : next({ ...state, caret: to, hint: undefined })
  }
  if (key.name === "backspace") {
    return caret === 0 ? beep : edit([...chars.slice(0, caret - 1), ...chars.slice(caret)], caret - 1)
  }
  if (key.name === "delete" || (key.ctrl && key.name === "d")) {
    return caret === chars.length ? beep : edit([...chars.slice(0, caret), ...chars.slice(caret + 1)], caret)
  }
  if (key.ctrl && key.name === "u") return edit([], 0)
  if (key.ctrl && key.name === "k") return caret === chars.length ? beep : edit(chars.slice(0, caret), caret)
  if (key.ctrl && key.name === "w") {
    // The word before the caret and the white space after it, as a shell's Ctrl+W.
    let from = caret
    while (from > 0 && /\s/.test(chars[from - 1]!)) from--
    while (from > 0 && !/\s/.test(chars[from - 1]!)) from--
    return from === caret ? beep : edit([...chars.slice(0, from), ...chars.slice(caret)], from)
  }
  if (isPrintable(key)) {
    const typed = Array.from(key.input)
    return edit([...chars.slice(0, caret), ...typed, ...chars.slice(caret)], caret + typed.length)
  }
  return beep
}
