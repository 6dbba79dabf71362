/**
 * `ask-user --answers FILE`: answers from a file instead of a human, for CI
 * and evals. The file is either the answer JSON `ask-user` itself prints
 * (`{ "answers": [{ "id", "selected", "custom"? }, …] }`, so a recorded run
 * replays as is) or a JSON object keyed by question id:
 *
 * ```json
 * { "target": "Staging",                 // an option label, or else free text
 *   "features": ["Auth", "Billing"],     // several labels (multi-select)
 *   "notes": { "custom": "ship it" },    // explicit free text
 *   "extras": null }                     // skip the question
 * ```
 *
 * A string equal to one of the question's option labels selects it (ignoring
 * case when exactly one label matches that way); any other string is free
 * text (`custom`, "Other"), and for a secret question it is the secret.
 * `{ "selected": [...], "custom": "...", "secret": "..." }` is passed through
 * as written. A question the file does not mention fails the ask
 * (`PROVIDER_FAILED`), so a stale answers file is noticed; a key that is
 * not a question of the request breaks the answer rules (`INVALID_ANSWER`),
 * as an unknown id in the answer JSON does. A key `answers`
 * holding a non-empty array of objects means the answer JSON; any other value
 * under `answers` is the answer to a question of that id.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { AskUserQuestionAnswer, type AskUserQuestionAnswerItem, type AskUserQuestionItem } from "../AskUserQuestion.js"
import { askAs } from "../internal/answeredBy.js"
import { osAnswerer } from "../internal/osAnswerer.js"
import { firstError, formatIssue } from "../internal/schemaPath.js"
import { wrapSecrets } from "../internal/secrets.js"
import { ScriptedProvider } from "../ScriptedProvider.js"
import { InvalidRequest, ProviderFailed } from "../UserInteractionError.js"
import type { UserInteractionProvider } from "../UserInteractionProvider.js"
import { parseJsonText } from "./jsonText.js"

/**
 * One scripted answer: a label or free text, several labels, an explicit
 * answer item, or `null` to skip.
 *
 * @since 0.1.0
 */
export const ScriptedAnswer = Schema.Union([
  Schema.String,
  Schema.Array(Schema.String),
  Schema.Struct({
    selected: Schema.optionalKey(Schema.Array(Schema.String)),
    custom: Schema.optionalKey(Schema.String),
    secret: Schema.optionalKey(Schema.String)
  }),
  Schema.Null
])

/** @since 0.1.0 */
export type ScriptedAnswer = typeof ScriptedAnswer.Type

/**
 * The answers file: scripted answers keyed by question id.
 *
 * @since 0.1.0
 */
export const AnswersFile = Schema.Record(Schema.String, ScriptedAnswer)

/** @since 0.1.0 */
export type AnswersFile = typeof AnswersFile.Type

/**
 * The option label `text` names: the label it equals, else the one label it
 * equals ignoring case; undefined when none does, or several do.
 *
 * @since 0.3.0
 */
export const labelNamed = (question: AskUserQuestionItem, text: string): string | undefined => {
  const labels = question.options?.map((option) => option.label) ?? []
  if (labels.includes(text)) return text
  const lower = text.toLowerCase()
  const matches = labels.filter((label) => label.toLowerCase() === lower)
  return matches.length === 1 ? matches[0] : undefined
}

/**
 * Told when a string is taken as Other text for a question with options:
 * the question's id, the text, and so why (no option has that label).
 *
 * @since 0.3.0
 */
export type OnOtherText = (question: AskUserQuestionItem, text: string) => void

/**
 * The answer item a scripted answer gives to a question. `onOther` hears of
 * each string taken as Other text for a question that has options.
 *
 * @since 0.1.0
 */
export const answerItem = (
  question: AskUserQuestionItem,
  answer: ScriptedAnswer,
  onOther?: OnOtherText
): AskUserQuestionAnswerItem => {
  const id = question.id
  if (answer === null) return { id, selected: [] }
  if (typeof answer === "string") {
    if (question.secret === true) return { id, selected: [], secret: Redacted.make(answer) }
    const label = labelNamed(question, answer)
    if (label !== undefined) return { id, selected: [label] }
    if ((question.options?.length ?? 0) > 0) onOther?.(question, answer)
    return { id, selected: [], custom: answer }
  }
  if (Array.isArray(answer)) return { id, selected: answer.map((text: string) => labelNamed(question, text) ?? text) }
  const item = answer as { readonly selected?: ReadonlyArray<string>; readonly custom?: string; readonly secret?: string }
  const selected = item.selected ?? []
  if (item.secret !== undefined) {
    const secret = Redacted.make(item.secret)
    return item.custom === undefined ? { id, selected, secret } : { id, selected, custom: item.custom, secret }
  }
  return item.custom === undefined ? { id, selected } : { id, selected, custom: item.custom }
}

/**
 * The answer a decoded answers file gives to `questions`: an item per key,
 * the questions' own first (in question order), then any key that is not a
 * question, so the answer rules refuse it ("\"zzz\" is not a question of the
 * request") as they refuse an unknown id in the answer JSON.
 *
 * @since 0.2.0
 */
export const answersFromFile = (
  file: AnswersFile,
  questions: ReadonlyArray<AskUserQuestionItem>,
  onOther?: OnOtherText
): { readonly answers: ReadonlyArray<AskUserQuestionAnswerItem> } => {
  const known = new Set(questions.map((question) => question.id))
  const asked = questions.filter((question) => Object.hasOwn(file, question.id))
  // An unknown key has no question: answered as one without options, it is only there to be refused.
  const unknown = Object.keys(file).filter((id) => !known.has(id)).map((id) => ({ id, question: id }))
  return { answers: [...asked, ...unknown].map((question) => answerItem(question, file[question.id] ?? null, onOther)) }
}

const decodeAnswersFile = Schema.decodeUnknownExit(AnswersFile)
const decodeAnswerJson = Schema.decodeUnknownExit(AskUserQuestionAnswer)

/**
 * True when `json` is the answer JSON `ask-user` prints rather than an object
 * keyed by question id: its `answers` is a non-empty array of objects (a
 * question whose id is `answers` is answered with a label, labels, an object
 * or `null`, never with an array of objects).
 *
 * @since 0.2.0
 */
export const isAnswerJson = (json: unknown): boolean => {
  const answers = typeof json === "object" && json !== null ? (json as { readonly answers?: unknown }).answers : undefined
  return Array.isArray(answers) && answers.length > 0 &&
    answers.every((item) => typeof item === "object" && item !== null && !Array.isArray(item))
}

const invalidFile = (path: string, reason: string, cause?: unknown) =>
  new InvalidRequest({ message: `Invalid answers file ${path}: ${reason}`, cause })

/** The answer JSON as scripted answers keyed by id; a repeated id is refused, naming where. */
const fromAnswerJson = (path: string, json: unknown): Effect.Effect<AnswersFile, InvalidRequest> => {
  // A secret comes as its text here (it is how ask-user prints it): wrapped as the answer rules wrap it.
  const exit = decodeAnswerJson(wrapSecrets(json))
  if (exit._tag === "Failure") {
    const error = firstError(exit)
    return Effect.fail(invalidFile(path, error ? formatIssue(error.issue) : "could not decode", error))
  }
  const byId: Record<string, ScriptedAnswer> = {}
  for (const [index, { id, secret, ...answer }] of exit.value.answers.entries()) {
    if (Object.hasOwn(byId, id)) return Effect.fail(invalidFile(path, `answers[${index}].id: repeats "${id}"`))
    byId[id] = secret === undefined ? answer : { ...answer, secret: Redacted.value(secret) }
  }
  return Effect.succeed(byId)
}

/**
 * Reads and decodes an answers file (either form; a leading byte-order mark
 * is ignored); `InvalidRequest` (exit 2) when it cannot be read or does not
 * decode.
 *
 * @since 0.1.0
 */
export const readAnswersFile = (path: string): Effect.Effect<AnswersFile, InvalidRequest> =>
  Effect.try({
    try: () => readFileSync(path, "utf8"),
    catch: (cause) =>
      new InvalidRequest({ message: `Cannot read answers file ${path}: ${(cause as Error).message}`, cause })
  }).pipe(
    Effect.flatMap((text) => parseJsonText(text, `Invalid answers file ${path}`)),
    Effect.flatMap((json) => {
      if (isAnswerJson(json)) return fromAnswerJson(path, json)
      const exit = decodeAnswersFile(json)
      if (exit._tag === "Success") return Effect.succeed(exit.value)
      const error = firstError(exit)
      return Effect.fail(invalidFile(path, error ? formatIssue(error.issue) : "could not decode", error))
    })
  )

/**
 * A provider that answers from the answers file at `path` (read once, when
 * the layer is built). The file holds the answers of the person running the
 * command, so they answer as `os:<user>@<host>`, as at the terminal, and an
 * ask whose `answerableBy` does not allow them fails `NOT_AUTHORIZED`.
 *
 * @since 0.1.0
 */
export const scriptedAnswersLayer = (path: string): Layer.Layer<UserInteractionProvider, InvalidRequest> =>
  Layer.unwrap(Effect.map(readAnswersFile(path), (file) => {
    const by = osAnswerer()
    // An ask this person may not answer fails NOT_AUTHORIZED at once: the file would be refused on every try.
    return ScriptedProvider.layer((request) =>
      askAs(by, request, Effect.suspend(() => {
        const missing = request.questions.find((question) => !Object.hasOwn(file, question.id))
        return missing === undefined
          ? Effect.succeed(answersFromFile(file, request.questions))
          : Effect.fail(new ProviderFailed({ message: `The answers file ${path} has no answer for question "${missing.id}".` }))
      })))
  }))
