/**
 * The review screen that ends a request of two or more questions when the
 * terminal provider is built with `review: true`: every answer on one screen
 * before any is sent. The first row, "Submit", is under the cursor: Enter
 * there sends the answers; Enter on a question's row goes back to that
 * question (opened on its answer) and then comes back here; Esc cancels the
 * whole request, as on every other screen (decision 113).
 *
 * Pure functions, as for the questions: the rows, the key presses, the frame.
 *
 * @internal
 */
import type { AskUserQuestionAnswerItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { sanitizeLine } from "../internal/sanitize.js"
import { cursorMove, hintLine, type KeyPress, type RequestEnd, requestEnd, type Step } from "./question.js"
import {
  accent,
  answerText,
  bold,
  clipRow,
  dim,
  frameRows,
  menuWindow,
  rowBudget,
  type Size,
  type Style
} from "./render.js"

/** The request and the answers under review, in question order. */
export interface ReviewContext {
  readonly request: AskUserQuestionRequest
  readonly answers: ReadonlyArray<AskUserQuestionAnswerItem>
}

/** The row under the cursor: 0 is "Submit", question i is row i + 1. */
export interface ReviewState {
  readonly cursor: number
}

/** How the review ends: the answers sent, a question to answer again (0-based), or the request ended. */
export type ReviewOutcome =
  | { readonly _tag: "Submit" }
  | { readonly _tag: "Change"; readonly index: number }
  | RequestEnd

/** The label of the review's first row. */
export const submitLabel = "Submit"

/** The review opens with the cursor on "Submit". */
export const initialReview: ReviewState = { cursor: 0 }

/** Applies one key press to the review. */
export const stepReview = (context: ReviewContext, state: ReviewState, key: KeyPress): Step<ReviewState, ReviewOutcome> => {
  const end = requestEnd(key, "")
  if (end !== undefined) return { _tag: "Done", outcome: end }
  const to = cursorMove(state.cursor, context.answers.length + 1, key)
  if (to !== undefined) return to === state.cursor ? { _tag: "Beep" } : { _tag: "Next", state: { cursor: to } }
  if (key.name !== "return" && key.name !== "enter") return { _tag: "Beep" }
  return {
    _tag: "Done",
    outcome: state.cursor === 0 ? { _tag: "Submit" } : { _tag: "Change", index: state.cursor - 1 }
  }
}

/** "[Storage] Which database? › Postgres": a question and its answer on one line (a secret never shown). */
const answerLine = (context: ReviewContext, index: number, style: Style): string => {
  const question = context.request.questions[index]!
  const header = question.header !== undefined && question.header.trim() !== "" ? `[${sanitizeLine(question.header)}] ` : ""
  const item = context.answers[index]!
  return `${header}${sanitizeLine(question.question)} › ${answerText(item, style)}`
}

/** The line left when the request ends on the review: its answers were not sent. */
export const reviewEndFrame = (end: RequestEnd, style: Style): string =>
  `✖ Your answers were not sent ${dim(style, end._tag === "Aborted" ? "(interrupted)" : "(cancelled)")}\n`

/**
 * The review's frame (no trailing newline), fitted to the pane as a
 * question's is: every row one screen row (cut with "…"), the rows a window
 * around the cursor when they do not fit; in a very small pane the title,
 * then the hint give way, and the row under the cursor stays.
 */
export const reviewFrame = (context: ReviewContext, state: ReviewState, style: Style, size: Size): string => {
  const { columns } = size
  const rows = [submitLabel, ...context.answers.map((_, i) => answerLine(context, i, style))].map((text, i) => {
    const active = i === state.cursor
    return clipRow(`${active ? accent(style, "❯") : " "} ${i === 0 || active ? bold(style, text) : text}`, columns)
  })
  const hint = clipRow(
    dim(style, hintLine(["↑/↓ move", state.cursor === 0 ? "Enter sends these answers" : "Enter changes this answer", "Esc cancels"])),
    columns
  )
  const title = clipRow(bold(style, "Review your answers before they are sent"), columns)
  const { take } = rowBudget(frameRows(size))
  let menu = take(1)
  const hintRows = take(1)
  const titleRows = take(1)
  menu += take(rows.length - menu)
  return [
    ...(titleRows > 0 ? [title] : []),
    ...menuWindow(rows, state.cursor, menu, style, columns),
    ...(hintRows > 0 ? [hint] : [])
  ].join("\n")
}
