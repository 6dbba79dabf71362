/**
 * Line mode of the terminal provider, for input that is not a TTY (pipes,
 * CI, `script`): each question is printed with numbered options, and one line
 * of input answers it. `2` picks an option, `1,3` or `1 3` several (for a
 * multi-select question); an option's label picks it too (as written, or
 * else ignoring case and a "(Recommended)" suffix when only one option
 * matches); `-` skips the question and `!` cancels the request (`\-` and
 * `\!` are those texts, and so pick an option labelled `-` or `!`); any
 * other text is a custom answer. An empty line, a number outside 1..N, or
 * several numbers for a single-select question print a one-line hint and read
 * again. End of input fails the ask with `ProviderClosed`.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as readline from "node:readline"
import type {
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionOption,
  AskUserQuestionRequest
} from "../AskUserQuestion.js"
import { AskCancelled, ProviderClosed } from "../UserInteractionError.js"
import { sanitize, sanitizeLine } from "../internal/sanitize.js"
import { hintLine, type QuestionContext } from "./question.js"

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

// What each kind of line does, said in every prompt and every hint.
const lineHints = ({ question }: QuestionContext): ReadonlyArray<string> => {
  const count = question.options?.length ?? 0
  const escapes = ["- skips", "! cancels", "\\- or \\! for those texts"]
  if (count === 0) return ["type your answer", ...escapes]
  const numbers = count === 1 ? "1" : `1-${count}`
  return [
    question.multiSelect === true ? `${numbers} or a label chooses ("1,3" or "1 3" for several)` : `${numbers} or a label chooses`,
    "other text is your own answer",
    ...escapes
  ]
}

const inputPrompt = (context: QuestionContext): string => hintLine(lineHints(context))

/** What one line of input means for a question: an answer, the request cancelled, or a hint to show before reading again. */
export type LineResult =
  | { readonly _tag: "Answer"; readonly item: AskUserQuestionAnswerItem }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Retry"; readonly hint: string }

// "Lisbon" chooses "Lisbon (Recommended)": labels compare without that suffix, ignoring case.
const labelKey = (label: string): string => label.replace(/\s*\(recommended\)\s*$/i, "").trim().toLowerCase()

/**
 * The option whose label the line names: the one labelled exactly so, else
 * the one whose label matches it ignoring case and the suffix, when exactly
 * one does ("Deploy" picks "Deploy" beside "deploy"; "DEPLOY" picks neither).
 */
const optionNamed = (options: ReadonlyArray<AskUserQuestionOption>, text: string): AskUserQuestionOption | undefined => {
  const exact = options.find((option) => option.label.trim() === text)
  if (exact !== undefined) return exact
  const key = labelKey(text)
  const named = options.filter((option) => labelKey(option.label) === key)
  return named.length === 1 ? named[0] : undefined
}

/** Interprets one line of input as the answer to `context.question`. */
export const parseLine = (context: QuestionContext, line: string): LineResult => {
  const { question } = context
  const text = line.trim()
  const options = question.options ?? []
  const count = options.length
  const retry = (lead: string): LineResult => ({ _tag: "Retry", hint: hintLine([lead, ...lineHints(context)]) })
  const custom = (custom: string): LineResult => ({ _tag: "Answer", item: { id: question.id, selected: [], custom } })
  const namedOrCustom = (typed: string): LineResult => {
    const named = optionNamed(options, typed)
    return named === undefined ? custom(typed) : { _tag: "Answer", item: { id: question.id, selected: [named.label] } }
  }
  if (text === "") return retry("Nothing typed")
  if (text === "-") return { _tag: "Answer", item: { id: question.id, selected: [] } }
  if (text === "!") return { _tag: "Cancel" }
  if (text === "\\-" || text === "\\!") return namedOrCustom(text.slice(1))
  if (count === 0) return custom(text)
  const tokens = text.split(/[\s,]+/).filter((token) => token !== "")
  if (!tokens.every((token) => /^\d+$/.test(token))) return namedOrCustom(text)
  const numbers = tokens.map(Number)
  if (numbers.some((n) => n < 1 || n > count)) return retry(`There is no option ${text}`)
  if (question.multiSelect !== true && numbers.length > 1) return retry("Only one option can be chosen here")
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
): Effect.Effect<AskUserQuestionAnswer, ProviderClosed | AskCancelled> =>
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
        if (result._tag === "Cancel") {
          return yield* new AskCancelled({ message: "The human typed ! and cancelled the request." })
        }
        if (result._tag === "Answer") {
          answers.push(result.item)
          break
        }
        yield* write(`${result.hint}\n`)
      }
    }
    return { answers }
  })
