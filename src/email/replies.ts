/**
 * A reply mail read as an answer: the lines that are the human's own (not
 * quoted, not the "On … wrote:" line before a quote, not a signature), one
 * for each question, each a number or numbers (`2`, `1,3`), an option's
 * label, `skip`, or any other text as the human's own answer; `cancel` or
 * `decline` alone on the first line settles the whole ask so. What cannot be
 * read is a reason a person can act on, sent back to them.
 *
 * @internal
 */
import type { AskUserQuestionAnswerItem, AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"

/** What a reply says. */
export type ReplyReading =
  | { readonly _tag: "Answer"; readonly answers: ReadonlyArray<AskUserQuestionAnswerItem> }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Decline" }
  | { readonly _tag: "Unusable"; readonly reason: string }

// A quote's opening line, as mail programs write it: "On Mon, 1 Dec 2026, Ana <ana@…> wrote:",
// "Le … a écrit :", "Am … schrieb …:", or Outlook's separator.
const attribution = /(?:wrote|a écrit|schrieb|escribió|scrisse|napisał)\s*:\s*$/i
const outlookSeparator = /^-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}$/i

/**
 * The lines of `text` that are the human's own, in order and trimmed, blank
 * ones left out: quoted lines (`>`) are skipped, and the reading stops at a
 * signature (`-- `) or an Outlook separator, after which everything is
 * quoted. An attribution line ("On … wrote:") directly before a quote is
 * skipped with it.
 */
export const ownLines = (text: string): ReadonlyArray<string> => {
  const lines = text.split(/\r\n|\r|\n/)
  const own: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line === "-- " || line === "--" || outlookSeparator.test(line.trim())) break
    const trimmed = line.trim()
    if (trimmed === "" || trimmed.startsWith(">")) continue
    if (attribution.test(trimmed)) {
      const next = lines.slice(i + 1).find((l) => l.trim() !== "")
      if (next === undefined || next.trim().startsWith(">")) continue
    }
    own.push(trimmed)
  }
  return own
}

/** How a reply's numbers are written: `2`, `2.`, `1,3`, `1, 3`, `1 3`, `1;3`. */
const numbersPattern = /^\d+[.)]?(?:\s*[,;]\s*\d+[.)]?|\s+\d+[.)]?)*$/

/** One line read as the answer to `question`, or why it cannot be. */
const readLine = (question: AskUserQuestionItem, line: string): AskUserQuestionAnswerItem | string => {
  const options = question.options ?? []
  if (line.toLowerCase() === "skip") return { id: question.id, selected: [] }
  if (options.length > 0 && numbersPattern.test(line)) {
    const numbers = [...new Set(line.split(/[\s,;.)]+/).filter((part) => part !== "").map(Number))]
    const wrong = numbers.find((n) => n < 1 || n > options.length)
    if (wrong !== undefined) {
      return `${wrong} is not one of the options: reply with a number from 1 to ${options.length}.`
    }
    if (numbers.length > 1 && question.multiSelect !== true) {
      return `this question takes one option, and the reply names ${numbers.length}: reply with one number.`
    }
    return { id: question.id, selected: numbers.map((n) => options[n - 1]!.label) }
  }
  const byLabel = (text: string) => {
    const found = options.filter((option) => option.label.toLowerCase() === text.toLowerCase())
    return found.length === 1 ? found[0]!.label : undefined
  }
  const label = byLabel(line)
  if (label !== undefined) return { id: question.id, selected: [label] }
  if (question.multiSelect === true && line.includes(",")) {
    const labels = line.split(",").map((part) => byLabel(part.trim()))
    if (labels.every((l) => l !== undefined)) return { id: question.id, selected: [...new Set(labels)] }
  }
  return { id: question.id, selected: [], custom: line }
}

/**
 * What the human's own lines (`ownLines`) say to `request`: the first line
 * answers the first question, the second the second, and so on; lines after
 * the last question's are not read (a signature without `-- `). `cancel` or
 * `decline` as the first line settles the ask so.
 */
export const readReply = (request: AskUserQuestionRequest, lines: ReadonlyArray<string>): ReplyReading => {
  const questions = request.questions
  const first = lines[0]
  if (first === undefined) {
    return { _tag: "Unusable", reason: "the reply holds no answer of its own (only quoted text or nothing)." }
  }
  if (first.toLowerCase() === "cancel") return { _tag: "Cancel" }
  if (first.toLowerCase() === "decline") return { _tag: "Decline" }
  if (lines.length < questions.length) {
    return {
      _tag: "Unusable",
      reason: `there are ${questions.length} questions, so the reply needs ${questions.length} lines, one for each, ` +
        `and it has ${lines.length}.`
    }
  }
  const answers: Array<AskUserQuestionAnswerItem> = []
  for (const [i, question] of questions.entries()) {
    const read = readLine(question, lines[i]!)
    if (typeof read === "string") {
      return { _tag: "Unusable", reason: questions.length === 1 ? read : `question ${i + 1}: ${read}` }
    }
    answers.push(read)
  }
  return { _tag: "Answer", answers }
}
