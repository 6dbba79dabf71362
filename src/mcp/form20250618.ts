/**
 * The request's form in the MCP 2025-06-18 revision's elicitation schema, for
 * clients that negotiated that revision, and the way back to the answer.
 *
 * That revision has no titled `oneOf` and no arrays: a single-select question
 * is a string with `enum` (the labels) and `enumNames` (the same labels, the
 * shown names), and a multi-select question becomes one boolean property per
 * option (`question_<n>_option_<k>`, titled with the option's label, its
 * description and preview as the property's description, `default: true`
 * when recommended: that revision has defaults on booleans only, so a
 * recommended single-select option is not preselected). Free-text fields are the same
 * as in the shared form (`ElicitationForm`). The content a client sends back
 * is folded into the shared form's content and read by
 * `fromElicitationContent`, so both forms answer under the same rules.
 *
 * @internal
 */
import * as Result from "effect/Result"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import {
  type ElicitationTextProperty,
  fromElicitationContent,
  questionField,
  toElicitationContent,
  toElicitationForm
} from "../ElicitationForm.js"
import { InvalidAnswer } from "../UserInteractionError.js"

/** A single-select question in 2025-06-18 terms. */
export interface EnumProperty {
  readonly type: "string"
  readonly title: string
  readonly description?: string
  readonly enum: Array<string>
  readonly enumNames: Array<string>
}

/** One option of a multi-select question: a checkbox, ticked to start with when recommended. */
export interface CheckboxProperty {
  readonly type: "boolean"
  readonly title: string
  readonly description?: string
  readonly default?: boolean
}

/** Any property of the 2025-06-18 form. */
export type Property = ElicitationTextProperty | EnumProperty | CheckboxProperty

/** The 2025-06-18 form: no `mode`, only that revision's primitive properties. */
export interface Form20250618 {
  readonly message: string
  readonly requestedSchema: {
    readonly type: "object"
    readonly properties: Record<string, Property>
    readonly required: Array<string>
  }
}

/** The checkbox property of option k (1-based) of question n (1-based). */
export const optionField = (n: number, k: number): string => `${questionField(n)}_option_${k}`

const labelsOf = (request: AskUserQuestionRequest, index: number): ReadonlyArray<{ label: string; description?: string }> =>
  request.questions[index]?.options ?? []

/**
 * The 2025-06-18 form of a request: the shared form with its select
 * properties rewritten; property order and the free-text fields unchanged.
 */
export const toForm20250618 = (request: AskUserQuestionRequest): Form20250618 => {
  const shared = toElicitationForm(request)
  const properties: Record<string, Property> = {}
  for (const [name, property] of Object.entries(shared.requestedSchema.properties)) {
    const { title, description } = property
    const base = description === undefined ? { title } : { title, description }
    if ("oneOf" in property) {
      const labels = property.oneOf.map((o) => o.const)
      properties[name] = { type: "string", ...base, enum: labels, enumNames: labels }
    } else if (property.type === "array") {
      const n = Number(name.slice("question_".length))
      // The shared form's options: their descriptions carry the previews. A recommended option's
      // box starts ticked: that revision allows a default on booleans only.
      const recommended = new Set(property.default)
      property.items.anyOf.forEach((o, k) => {
        const box: CheckboxProperty = o.description === undefined
          ? { type: "boolean", title: o.const }
          : { type: "boolean", title: o.const, description: o.description }
        properties[optionField(n, k + 1)] = recommended.has(o.const) ? { ...box, default: true } : box
      })
    } else {
      properties[name] = property
    }
  }
  return { message: shared.message, requestedSchema: { ...shared.requestedSchema, properties } }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Folds 2025-06-18 content into the shared form's content: a multi-select
 * question's checked boxes become its list of labels (none checked: a skip).
 * Anything else passes through, so malformed content is still refused by
 * `fromElicitationContent` naming the field.
 */
const toSharedContent = (request: AskUserQuestionRequest, content: unknown): unknown => {
  if (!isRecord(content)) return content
  const shared: Record<string, unknown> = { ...content }
  request.questions.forEach((question, index) => {
    if (question.multiSelect !== true || question.options === undefined || question.options.length === 0) return
    const n = index + 1
    const chosen = question.options.filter((_, k) => content[optionField(n, k + 1)] === true).map((o) => o.label)
    question.options.forEach((_, k) => delete shared[optionField(n, k + 1)])
    if (chosen.length > 0) shared[questionField(n)] = chosen
  })
  return shared
}

/**
 * The first checkbox whose value is neither a boolean nor absent: `"yes"` or
 * `1` for a box would otherwise read as unchecked, and the human's choices
 * would be lost without a word.
 */
const badCheckbox = (request: AskUserQuestionRequest, content: Readonly<Record<string, unknown>>): string | undefined => {
  for (const [index, question] of request.questions.entries()) {
    if (question.multiSelect !== true) continue
    for (const k of (question.options ?? []).keys()) {
      const value = content[optionField(index + 1, k + 1)]
      if (value !== undefined && value !== null && typeof value !== "boolean") return optionField(index + 1, k + 1)
    }
  }
  return undefined
}

/** Reads accepted 2025-06-18 content back into an answer, under the shared form's rules. */
export const fromContent20250618 = (
  request: AskUserQuestionRequest,
  content: unknown
): Result.Result<AskUserQuestionAnswer, InvalidAnswer> => {
  const field = isRecord(content) ? badCheckbox(request, content) : undefined
  return field === undefined
    ? fromElicitationContent(request, toSharedContent(request, content))
    : Result.fail(new InvalidAnswer({ message: `The form's answer is malformed: "${field}" must be true or false.` }))
}

/** The content a 2025-06-18 client would send to give `answer` (for scripted clients and tests). */
export const toContent20250618 = (
  request: AskUserQuestionRequest,
  answer: AskUserQuestionAnswer
): Record<string, string | boolean> => {
  const shared = toElicitationContent(request, answer)
  const content: Record<string, string | boolean> = {}
  for (const [name, value] of Object.entries(shared)) {
    if (typeof value === "string") {
      content[name] = value
      continue
    }
    const n = Number(name.slice("question_".length))
    labelsOf(request, n - 1).forEach((o, k) => {
      content[optionField(n, k + 1)] = value.includes(o.label)
    })
  }
  return content
}
