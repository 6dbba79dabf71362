/**
 * Line mode of the terminal provider, for input that is not a TTY (pipes,
 * CI, `script`): each question is printed with numbered options, and one line
 * of input answers it. `2` picks an option, `1,3` or `1 3` several (for a
 * multi-select question), any other text is a custom answer. An empty line, a
 * number outside 1..N, or several numbers for a single-select question print a
 * one-line hint and read again. End of input fails the ask with
 * `ProviderClosed`.
 *
 * @internal
 */
import { type Cause, Effect, Queue, type Scope } from "effect"
import * as readline from "node:readline"
import type { AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { ProviderClosed } from "../UserInteractionError.js"
import { sanitize, sanitizeLine } from "../internal/sanitize.js"
import type { QuestionContext } from "./question.js"

/** The lines of an input stream, read as they come. `take` fails when the input has ended. */
export interface LineSource {
  readonly take: Effect.Effect<string, Cause.Done>
}

/** Reads `input` line by line for the lifetime of the scope. */
export const makeLineSource = (input: NodeJS.ReadableStream): Effect.Effect<LineSource, never, Scope.Scope> =>
  Effect.gen(function*() {
    const lines = yield* Queue.unbounded<string, Cause.Done>()
    const ended = (input as { readableEnded?: boolean }).readableEnded === true
    if (ended) {
      yield* Queue.end(lines)
      return { take: Queue.take(lines) }
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const rl = readline.createInterface({ input, terminal: false, crlfDelay: Infinity })
        rl.on("line", (line) => Queue.offerUnsafe(lines, line))
        rl.once("close", () => Queue.endUnsafe(lines))
        return rl
      }),
      (rl) => Effect.sync(() => rl.close())
    )
    return { take: Queue.take(lines) }
  })

/** The text printed for a question in line mode. */
export const questionText = (context: QuestionContext): string => {
  const { question } = context
  const tags: Array<string> = []
  if (question.header !== undefined && question.header.trim() !== "") tags.push(`[${sanitizeLine(question.header)}]`)
  if (context.total > 1) tags.push(`Question ${context.index + 1} of ${context.total}`)
  if (context.agentName !== undefined && context.agentName.trim() !== "") {
    tags.push(`asked by ${sanitizeLine(context.agentName)}`)
  }
  const lines = tags.length === 0 ? [] : [tags.join("  ")]
  lines.push(sanitize(question.question))
  const options = question.options ?? []
  options.forEach((option, i) => {
    const description = option.description !== undefined && option.description.trim() !== ""
      ? ` - ${sanitizeLine(option.description)}`
      : ""
    lines.push(`  ${i + 1}. ${sanitizeLine(option.label)}${description}`)
  })
  lines.push(inputPrompt(context))
  return lines.join("\n") + "\n"
}

const inputPrompt = ({ question }: QuestionContext): string => {
  const count = question.options?.length ?? 0
  if (count === 0) return "Type your answer:"
  return question.multiSelect === true
    ? `Type option numbers (1-${count}, e.g. "1,3" or "1 3"), or your own answer:`
    : `Type an option number (1-${count}), or your own answer:`
}

/** What one line of input means for a question: an answer, or a hint to show before reading again. */
export type LineResult =
  | { readonly _tag: "Answer"; readonly item: AskUserQuestionAnswerItem }
  | { readonly _tag: "Retry"; readonly hint: string }

/** Interprets one line of input as the answer to `context.question`. */
export const parseLine = ({ question }: QuestionContext, line: string): LineResult => {
  const text = line.trim()
  const options = question.options ?? []
  const count = options.length
  if (text === "") {
    return {
      _tag: "Retry",
      hint: count === 0 ? "Please type an answer." : `Please type a number from 1 to ${count}, or your own answer.`
    }
  }
  if (count === 0) return { _tag: "Answer", item: { id: question.id, selected: [], custom: text } }
  const tokens = text.split(/[\s,]+/).filter((token) => token !== "")
  if (!tokens.every((token) => /^\d+$/.test(token))) {
    return { _tag: "Answer", item: { id: question.id, selected: [], custom: text } }
  }
  const numbers = tokens.map(Number)
  if (numbers.some((n) => n < 1 || n > count)) {
    return { _tag: "Retry", hint: `There is no option ${text}: type a number from 1 to ${count}.` }
  }
  if (question.multiSelect !== true && numbers.length > 1) {
    return { _tag: "Retry", hint: "Only one option can be chosen here: type a single number." }
  }
  const chosen = new Set(numbers)
  return {
    _tag: "Answer",
    item: { id: question.id, selected: options.filter((_, i) => chosen.has(i + 1)).map((option) => option.label) }
  }
}

/** Asks a whole request in line mode: questions on `output`, answers from `lines`. */
export const askOnLines = (
  request: AskUserQuestionRequest,
  lines: LineSource,
  output: NodeJS.WritableStream
): Effect.Effect<AskUserQuestionAnswer, ProviderClosed> =>
  Effect.gen(function*() {
    const write = (text: string) => Effect.sync(() => output.write(text))
    const answers: Array<AskUserQuestionAnswerItem> = []
    for (const [index, question] of request.questions.entries()) {
      const context: QuestionContext = { question, index, total: request.questions.length, agentName: request.agent?.name }
      yield* write(questionText(context))
      while (true) {
        const line = yield* lines.take.pipe(
          Effect.catch(() =>
            Effect.fail(new ProviderClosed({ message: "Input ended before every question was answered." }))
          )
        )
        const result = parseLine(context, line)
        if (result._tag === "Answer") {
          answers.push(result.item)
          break
        }
        yield* write(`${result.hint}\n`)
      }
    }
    return { answers }
  })
