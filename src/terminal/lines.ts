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
 * A recommended option is marked "(recommended)"; an option's preview is
 * printed under it, a few lines at most. A secret question is read without
 * echo when the input is a TTY (plain mode); from a pipe only when allowed
 * (`allowPipedSecrets`), else the ask fails `ProviderFailed` before anything
 * is printed or read (decision 112).
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as readline from "node:readline"
import type * as tty from "node:tty"
import type {
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionOption,
  AskUserQuestionRequest
} from "../AskUserQuestion.js"
import { AskAborted, AskCancelled, ProviderClosed, ProviderFailed } from "../UserInteractionError.js"
import { sanitize, sanitizeLine } from "../internal/sanitize.js"
import { secretQuestionIndex } from "../internal/secrets.js"
import { type HiddenLineEnd, readHiddenLine } from "./hiddenLine.js"
import { hintLine, type QuestionContext } from "./question.js"
import { clipRow, previewLines, recommendedTag } from "./render.js"

/**
 * The lines of an input stream, read as they come. `take` fails when the
 * input has ended; `takeHidden` reads the next line without echo when the
 * input is a TTY (undefined for a pipe), writing `prompt` once echo is off.
 */
export interface LineSource {
  readonly take: Effect.Effect<string, Cause.Done>
  readonly takeHidden: ((prompt: () => void) => Effect.Effect<string, HiddenLineEnd>) | undefined
}

const isTty = (input: NodeJS.ReadableStream): input is tty.ReadStream =>
  (input as { isTTY?: boolean }).isTTY === true && typeof (input as { setRawMode?: unknown }).setRawMode === "function"

/** Reads `input` line by line for the lifetime of the scope. */
export const makeLineSource = (input: NodeJS.ReadableStream): Effect.Effect<LineSource, never, Scope.Scope> =>
  Effect.gen(function*() {
    const lines = yield* Queue.unbounded<string, Cause.Done>()
    const ended = (input as { readableEnded?: boolean }).readableEnded === true
    if (ended) {
      yield* Queue.end(lines)
      return { take: Queue.take(lines), takeHidden: undefined }
    }
    // Line reading stops while a hidden line is read (the reader would see its keys), then goes on,
    // unless the scope closed meanwhile: a reader opened then would hold the input for ever.
    let reader: readline.Interface | undefined
    let closed = false
    const inputClosed = () => Queue.endUnsafe(lines)
    const open = () => {
      if (closed) return
      // Input that ended while a hidden line was read: no reader would ever say so.
      if ((input as { readableEnded?: boolean }).readableEnded === true) return inputClosed()
      reader = readline.createInterface({ input, terminal: false, crlfDelay: Infinity })
      reader.on("line", (line) => Queue.offerUnsafe(lines, line))
      reader.once("close", inputClosed)
    }
    const pause = () => {
      reader?.off("close", inputClosed)
      reader?.close()
      reader = undefined
    }
    yield* Effect.acquireRelease(Effect.sync(open), () =>
      Effect.sync(() => {
        closed = true
        reader?.close()
      }))
    const hidden = (terminal: tty.ReadStream) => (prompt: () => void): Effect.Effect<string, HiddenLineEnd> =>
      // A line typed ahead, before the question was printed, was echoed already: it is the answer as typed.
      Effect.flatMap(Queue.poll(lines), (ahead) =>
        ahead._tag === "Some"
          ? Effect.sync(prompt).pipe(Effect.as(ahead.value))
          : Effect.acquireUseRelease(Effect.sync(pause), () => readHiddenLine(terminal, prompt), () => Effect.sync(open)))
    return { take: Queue.take(lines), takeHidden: isTty(input) ? hidden(input) : undefined }
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
    lines.push(`  ${i + 1}. ${sanitizeLine(option.label)}${recommendedTag(option)}${description}`)
    if (option.preview !== undefined) lines.push(...previewUnder(option.preview))
  })
  lines.push(inputPrompt(context))
  return lines.join("\n") + "\n"
}

/** The most lines of a preview printed under its option, and the widest. */
const previewMaxLines = 6
const previewMaxColumns = 120

/** A preview's lines under its option, marked with a bar: at most a few, each cut with "…" when long. */
const previewUnder = (preview: string): ReadonlyArray<string> => {
  const lines = previewLines(preview)
  const shown = lines.length <= previewMaxLines
    ? lines
    : [...lines.slice(0, previewMaxLines - 1), `… ${lines.length - previewMaxLines + 1} more lines`]
  return shown.map((line) => clipRow(`     │ ${line}`, previewMaxColumns).trimEnd())
}

// What each kind of line does, said in every prompt and every hint.
const lineHints = ({ question }: QuestionContext): ReadonlyArray<string> => {
  const count = question.options?.length ?? 0
  const escapes = ["- skips", "! cancels", "\\- or \\! for those texts"]
  if (question.secret === true) return ["type your answer: typing is hidden", ...escapes]
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
  const custom = (text: string): LineResult => ({
    _tag: "Answer",
    item: question.secret === true
      ? { id: question.id, selected: [], secret: Redacted.make(text) }
      : { id: question.id, selected: [], custom: text }
  })
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

/** How line mode treats secret questions. */
export interface LineOptions {
  /** Read a secret question's answer from input that is not a TTY (a pipe): off unless asked for. */
  readonly allowPipedSecrets?: boolean | undefined
}

/** Why a request with a secret question is not asked on piped input; undefined when it can be. */
const pipedSecretRefusal = (request: AskUserQuestionRequest, lines: LineSource, options: LineOptions) => {
  const index = secretQuestionIndex(request)
  if (index < 0 || lines.takeHidden !== undefined || options.allowPipedSecrets === true) return undefined
  return new ProviderFailed({
    message: `The question "${sanitizeLine(request.questions[index]!.id)}" is secret, and the answers are read from a pipe, ` +
      "not a terminal: whatever writes the pipe sees the secret. Answer it on a terminal, or allow piped secrets " +
      "(ask-user --allow-piped-secrets, TerminalProvider allowPipedSecrets: true); nothing was asked."
  })
}

/** Asks a whole request in line mode: questions on `output`, answers from `lines`. */
export const askOnLines = (
  request: AskUserQuestionRequest,
  lines: LineSource,
  output: NodeJS.WritableStream,
  options: LineOptions = {}
): Effect.Effect<AskUserQuestionAnswer, ProviderClosed | ProviderFailed | AskCancelled | AskAborted> =>
  Effect.gen(function*() {
    const refusal = pipedSecretRefusal(request, lines, options)
    if (refusal !== undefined) return yield* refusal
    const answers: Array<AskUserQuestionAnswerItem> = []
    for (const [index, question] of request.questions.entries()) {
      const context: QuestionContext = { question, index, total: request.questions.length, agentName: request.agent?.name }
      // A secret from the terminal is typed with echo off, the question printed once it is; from a
      // pipe (when allowed) it is a line like any other.
      const hidden = question.secret === true ? lines.takeHidden : undefined
      const ask = (text: string): Effect.Effect<string, HiddenLineEnd> =>
        hidden !== undefined
          ? hidden(() => output.write(text))
          : Effect.andThen(Effect.sync(() => output.write(text)), lines.take)
      let prompt = questionText(context)
      while (true) {
        const line = yield* ask(prompt).pipe(
          Effect.catchIf(
            (end): end is Cause.Done => end._tag === "Done",
            () => Effect.fail(new ProviderClosed({ message: "Input ended before every question was answered." }))
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
        prompt = `${result.hint}\n`
      }
    }
    return { answers }
  })
