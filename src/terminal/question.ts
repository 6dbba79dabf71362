/**
 * The terminal question as pure data: which rows a question shows, the state
 * of its menu or text field, and how each key press changes that state or
 * ends the question. Drawing and the render loop live in `render.ts` and `prompt.ts`.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"
import { type AskUserQuestionAnswerItem, type AskUserQuestionItem, isRecommended } from "../AskUserQuestion.js"

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

/** What a key press does: a new state to draw, a refusal, or the end of the screen with its outcome. */
export type Step<State = QuestionState, Outcome = QuestionOutcome> =
  | { readonly _tag: "Next"; readonly state: State }
  | { readonly _tag: "Beep" }
  | { readonly _tag: "Done"; readonly outcome: Outcome }

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

/**
 * The state a question opens with: the cursor on its recommended option (in
 * a multiple choice the first recommended, with nothing ticked: a tick is the
 * person's, decision 110), else on the first; or an empty text field.
 * `previous`, an answer given before (a review going back to the question),
 * opens it on that answer instead: its option under the cursor, its ticks
 * ticked, its text in the field (a secret's too, masked as it is typed), a
 * skip on the skip row.
 */
export const initialState = (context: QuestionContext, previous?: AskUserQuestionAnswerItem): QuestionState => {
  const options = context.question.options ?? []
  const fresh: QuestionState = {
    cursor: Math.max(0, options.findIndex(isRecommended)),
    toggled: options.map(() => false),
    editing: options.length > 0 ? undefined : "",
    caret: 0,
    hint: undefined
  }
  if (previous === undefined) return fresh
  const rows = rowsOf(context)
  const typed = previous.secret !== undefined ? Redacted.value(previous.secret) : previous.custom
  if (typed !== undefined) {
    return { ...fresh, cursor: Math.max(0, rows.findIndex((row) => row._tag === "Other")), editing: typed, caret: Array.from(typed).length }
  }
  if (options.length === 0) return fresh
  const chosen = options.map((option) => previous.selected.includes(option.label))
  const first = chosen.indexOf(true)
  if (first < 0) {
    const skip = rows.findIndex((row) => row._tag === "Skip")
    return skip < 0 ? fresh : { ...fresh, cursor: skip }
  }
  return { ...fresh, cursor: first, toggled: context.question.multiSelect === true ? chosen : fresh.toggled }
}

const answered = (item: AskUserQuestionAnswerItem): Step => ({ _tag: "Done", outcome: { _tag: "Answered", item } })
const next = (state: QuestionState): Step => ({ _tag: "Next", state })
const beep: Step = { _tag: "Beep" }

const isPrintable = (key: KeyPress): key is KeyPress & { readonly input: string } =>
  key.input !== undefined && !key.ctrl && !key.meta && key.name !== "return" && key.name !== "enter" &&
  key.name !== "escape" && key.name !== "backspace" && key.name !== "delete" && key.name !== "tab" &&
  // Keys that type nothing printable (arrows decoded from escape sequences) carry control characters.
  !/[\x00-\x1f\x7f]/.test(key.input)

const isEnter = (key: KeyPress) => key.name === "return" || key.name === "enter"

/** How a screen of the request ends other than with its own result: cancelled (by which key) or aborted. */
export type RequestEnd = Exclude<QuestionOutcome, { readonly _tag: "Answered" }>

/**
 * The request's end a key asks for on any screen, if it asks for one. Ctrl+C
 * in raw mode sends no SIGINT: it is the human's interrupt. Esc (and Ctrl+D)
 * dismiss the request; as in a shell's line editor, Ctrl+D ends input only
 * when nothing is `typed` (in typed text it deletes forward).
 */
export const requestEnd = (key: KeyPress, typed: string): RequestEnd | undefined =>
  key.ctrl && key.name === "c"
    ? { _tag: "Aborted" }
    : key.name === "escape"
    ? { _tag: "Cancelled", key: "Esc" }
    : key.ctrl && key.name === "d" && typed === ""
    ? { _tag: "Cancelled", key: "Ctrl+D" }
    : undefined

/**
 * Where a key moves a menu's cursor among `rows` rows, going round at either
 * end: ↑/↓ (Ctrl+P/N, Shift+Tab/Tab) one row, Home/PageUp and End/PageDown to
 * the first and last; undefined for any other key.
 */
export const cursorMove = (cursor: number, rows: number, key: KeyPress): number | undefined =>
  key.name === "up" || (key.ctrl && key.name === "p") || (key.name === "tab" && key.shift)
    ? (cursor - 1 + rows) % rows
    : key.name === "down" || (key.ctrl && key.name === "n") || key.name === "tab"
    ? (cursor + 1) % rows
    : key.name === "home" || key.name === "pageup"
    ? 0
    : key.name === "end" || key.name === "pagedown"
    ? rows - 1
    : undefined

/** Applies one key press to a question. */
export const step = (context: QuestionContext, state: QuestionState, key: KeyPress): Step => {
  const end = requestEnd(key, state.editing ?? "")
  if (end !== undefined) return { _tag: "Done", outcome: end }
  return state.editing === undefined ? stepMenu(context, state, key) : stepText(context, state, state.editing, key)
}

const stepMenu = (context: QuestionContext, state: QuestionState, key: KeyPress): Step => {
  const { question } = context
  const rows = rowsOf(context)
  // In a text field Home and End move the caret (see `caretMoves`); in a menu they go to its ends.
  const to = cursorMove(state.cursor, rows.length, key)
  // A jump to where the cursor already is refused, as a caret move at the end of the text is.
  if (to !== undefined) return to === state.cursor ? beep : next({ ...state, cursor: to, hint: undefined })
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
    if (text.trim() !== "") {
      // A secret leaves the question wrapped: printing or logging the answer shows `<redacted>`.
      return answered(
        question.secret === true
          ? { id: question.id, selected: [], secret: Redacted.make(text) }
          : { id: question.id, selected: [], custom: text }
      )
    }
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
