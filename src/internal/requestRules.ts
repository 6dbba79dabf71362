/**
 * The rules of the second edition's request fields that relate one field to
 * another: at most one recommended option on a single-select question, a
 * secret only on an optionless question, a preview of at most 8 KiB, a
 * `timeout` that reads as a duration. Each refusal names the field it is
 * about, relative to the question (`options[1].recommended`), so that the
 * request's decoder reports `questions[0].options[1].recommended: …`.
 *
 * They run as Schema filters: on the request schema, on the outside JSON's
 * schema (where `multi_select` may stand for `multiSelect`), and so in the
 * arbitraries property tests draw from those schemas.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { durationExpected, parseTimeout } from "./duration.js"

/** The longest preview, in UTF-8 bytes (8 KiB). */
export const maxPreviewBytes = 8192

// As models write it: "Postgres (Recommended)", any case, white space around.
const recommendedSuffix = /\s\(recommended\)\s*$/i

/** True when a label itself says it is recommended (ends " (Recommended)", any case): surfaces that mark the option do not mark it twice. */
export const labelSaysRecommended = (label: string): boolean => recommendedSuffix.test(label)

/**
 * True when an option is the one its question recommends: `recommended:
 * true`, or, when the field is absent, a label ending " (Recommended)" (any
 * case). An explicit `recommended: false` wins over the label.
 */
export const isRecommended = (option: { readonly label: string; readonly recommended?: boolean | undefined }): boolean =>
  option.recommended ?? recommendedSuffix.test(option.label)

/** A preview of at most 8 KiB in UTF-8. */
export const isPreviewSize = Schema.makeFilter<string>(
  (preview) =>
    // Three bytes per UTF-16 unit at most: most previews are decided without counting.
    preview.length * 3 <= maxPreviewBytes || Buffer.byteLength(preview, "utf8") <= maxPreviewBytes
      ? undefined
      : `is longer than ${maxPreviewBytes} bytes (8 KiB) in UTF-8`,
  { expected: "a preview of at most 8 KiB" }
)

/** A request's `timeout`: a duration a person wrote; arbitraries draw the short forms. */
export const isTimeoutText = Schema.makeFilter<string>(
  (text) => Option.isSome(parseTimeout(text)) ? undefined : `expected ${durationExpected}`,
  {
    expected: durationExpected,
    arbitraryConstraint: { patterns: [{ source: "^[1-9][0-9]{0,2}(s|m|h)$", flags: "" }] }
  }
)

interface QuestionShape {
  readonly options?: ReadonlyArray<{ readonly label: string; readonly recommended?: boolean | undefined }> | undefined
  readonly multiSelect?: boolean | undefined
  readonly multi_select?: boolean | undefined
  readonly secret?: boolean | undefined
}

/** How an option came to be recommended, for the message: the field, or its label. */
const recommendedBy = (option: { readonly recommended?: boolean | undefined }): "recommended" | "label" =>
  option.recommended === true ? "recommended" : "label"

/**
 * What is wrong with one question's second-edition fields, at the path of
 * the field to blame; undefined when nothing is. `multi_select` counts as
 * `multiSelect` (the outside JSON's name; it wins, as when it is read).
 */
export const questionIssue = (question: QuestionShape): Schema.FilterIssue | undefined => {
  const options = question.options ?? []
  const multiSelect = (question.multi_select ?? question.multiSelect) === true
  if (question.secret === true) {
    if (options.length > 0) {
      return { path: ["secret"], issue: "a secret question cannot have options (it is answered with masked text only)" }
    }
    if (multiSelect) {
      return { path: ["secret"], issue: "a secret question cannot be multiSelect (it is answered with masked text only)" }
    }
  }
  if (multiSelect) return undefined
  let first = -1
  for (let o = 0; o < options.length; o++) {
    const option = options[o]!
    if (!isRecommended(option)) continue
    if (first < 0) {
      first = o
      continue
    }
    const by = recommendedBy(option)
    return {
      path: ["options", o, by],
      issue: `a single-select question recommends at most one option, and options[${first}] is recommended already` +
        (by === "label" ? " (a label ending \" (Recommended)\" counts)" : "")
    }
  }
  return undefined
}

/** `questionIssue` as a Schema filter on a question struct. */
export const isQuestionConsistent = Schema.makeFilter<QuestionShape>(
  (question) => questionIssue(question),
  { expected: "a question whose fields agree" }
)
