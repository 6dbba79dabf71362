/**
 * `ask-user --answers FILE`: answers from a file instead of a human, for CI
 * and evals. The file is a JSON object keyed by question id:
 *
 * ```json
 * { "target": "Staging",                 // an option label, or else free text
 *   "features": ["Auth", "Billing"],     // several labels (multi-select)
 *   "notes": { "custom": "ship it" },    // explicit free text
 *   "extras": null }                     // skip the question
 * ```
 *
 * A string equal to one of the question's option labels selects it; any other
 * string is free text (`custom`). `{ "selected": [...], "custom": "..." }` is
 * passed through as written. A question the file does not mention fails the ask
 * (`PROVIDER_FAILED`), so a stale answers file is noticed.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import type { AskUserQuestionAnswerItem, AskUserQuestionItem } from "../AskUserQuestion.js"
import { formatIssue } from "../internal/schemaPath.js"
import { ScriptedProvider } from "../ScriptedProvider.js"
import { InvalidRequest, ProviderFailed } from "../UserInteractionError.js"
import type { UserInteractionProvider } from "../UserInteractionProvider.js"

/**
 * One scripted answer: a label or free text, several labels, an explicit
 * answer item, or `null` to skip.
 *
 * @since 0.1.0
 */
export const ScriptedAnswer = Schema.Union([
  Schema.String,
  Schema.Array(Schema.String),
  Schema.Struct({ selected: Schema.optionalKey(Schema.Array(Schema.String)), custom: Schema.optionalKey(Schema.String) }),
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
 * The answer item a scripted answer gives to a question.
 *
 * @since 0.1.0
 */
export const answerItem = (question: AskUserQuestionItem, answer: ScriptedAnswer): AskUserQuestionAnswerItem => {
  const id = question.id
  if (answer === null) return { id, selected: [] }
  if (typeof answer === "string") {
    return question.options?.some((option) => option.label === answer)
      ? { id, selected: [answer] }
      : { id, selected: [], custom: answer }
  }
  if (Array.isArray(answer)) return { id, selected: answer }
  const item = answer as { readonly selected?: ReadonlyArray<string>; readonly custom?: string }
  return item.custom === undefined
    ? { id, selected: item.selected ?? [] }
    : { id, selected: item.selected ?? [], custom: item.custom }
}

const decodeAnswersFile = Schema.decodeUnknownExit(AnswersFile)

/**
 * Reads and decodes an answers file; `InvalidRequest` (exit 2) when it cannot
 * be read or does not decode.
 *
 * @since 0.1.0
 */
export const readAnswersFile = (path: string): Effect.Effect<AnswersFile, InvalidRequest> =>
  Effect.try({
    try: () => JSON.parse(readFileSync(path, "utf8")) as unknown,
    catch: (cause) =>
      new InvalidRequest({ message: `Cannot read answers file ${path}: ${(cause as Error).message}`, cause })
  }).pipe(
    Effect.flatMap((json) => {
      const exit = decodeAnswersFile(json)
      if (exit._tag === "Success") return Effect.succeed(exit.value)
      const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error
      return Effect.fail(
        new InvalidRequest({
          message: `Invalid answers file ${path}: ${error ? formatIssue(error.issue) : "could not decode"}`,
          cause: error
        })
      )
    })
  )

/**
 * A provider that answers from the answers file at `path` (read once, when
 * the layer is built).
 *
 * @since 0.1.0
 */
export const scriptedAnswersLayer = (path: string): Layer.Layer<UserInteractionProvider, InvalidRequest> =>
  Layer.unwrap(Effect.map(readAnswersFile(path), (file) =>
    ScriptedProvider.layer((request) =>
      Effect.forEach(request.questions, (question) => {
        if (!Object.hasOwn(file, question.id)) {
          return Effect.fail(
            new ProviderFailed({ message: `The answers file ${path} has no answer for question "${question.id}".` })
          )
        }
        return Effect.succeed(answerItem(question, file[question.id] ?? null))
      }).pipe(Effect.map((answers) => ({ answers })))
    )
  ))
