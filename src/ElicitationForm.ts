/**
 * The one form a request becomes when it is asked through a protocol's form
 * elicitation (ACP `elicitation/create`, MCP `elicitation/create`), and the
 * way back from the form's content to an answer.
 *
 * Both protocols accept the same restricted JSON Schema: a flat object of
 * primitive properties, with titled single-select (`oneOf`) and titled
 * multi-select (`items.anyOf`) enums. For question n (1-based) the form has a
 * property `question_<n>` and, when the question has options, an optional
 * free-text property `question_<n>_custom` ("Other"). A recommended option
 * is its field's `default`; an option's preview is appended to its
 * description, cut to 500 characters. A secret question has no place in a
 * form (the client shows and keeps what is typed there): `formRefusal` says
 * so before anything is sent, and `toElicitationForm` refuses it. Pure
 * functions, no SDK imports: the shapes below are structurally assignable to
 * both SDKs' types.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type { AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest } from "./AskUserQuestion.js"
import { type AskUserQuestionOption, isRecommended } from "./AskUserQuestion.js"
import { checkAnswer } from "./AskValidation.js"
import { formRefusal as secretRefusal } from "./internal/secrets.js"
import { InvalidAnswer, type ProviderFailed } from "./UserInteractionError.js"

/**
 * One titled choice of a select property: `const` is the option's label (what
 * comes back), `title` what the human reads.
 *
 * @since 0.1.0
 */
export interface ElicitationOption {
  readonly const: string
  readonly title: string
  readonly description?: string
}

/**
 * A free-text field: an optionless question, or the "Other" field of a
 * question with options.
 *
 * @since 0.1.0
 */
export interface ElicitationTextProperty {
  readonly type: "string"
  readonly title: string
  readonly description?: string
}

/**
 * A single-select question: a string that is one of the titled options.
 *
 * @since 0.1.0
 */
export interface ElicitationSingleSelectProperty {
  readonly type: "string"
  readonly title: string
  readonly description?: string
  readonly oneOf: Array<ElicitationOption>
  /** The recommended option's label (since 0.3.0). */
  readonly default?: string
}

/**
 * A multi-select question: an array of titled options.
 *
 * @since 0.1.0
 */
export interface ElicitationMultiSelectProperty {
  readonly type: "array"
  readonly title: string
  readonly description?: string
  readonly items: { readonly anyOf: Array<ElicitationOption> }
  /** The recommended options' labels (since 0.3.0). */
  readonly default?: Array<string>
}

/**
 * Any property of the form.
 *
 * @since 0.1.0
 */
export type ElicitationProperty =
  | ElicitationTextProperty
  | ElicitationSingleSelectProperty
  | ElicitationMultiSelectProperty

/**
 * The form of a request: the message shown above it and the restricted JSON
 * Schema of its fields.
 *
 * @since 0.1.0
 */
export interface ElicitationForm {
  readonly message: string
  readonly requestedSchema: {
    readonly type: "object"
    readonly properties: Record<string, ElicitationProperty>
    readonly required: Array<string>
  }
}

/**
 * What a client sends back on accept: property name to value.
 *
 * @since 0.1.0
 */
export type ElicitationContent = Record<string, string | Array<string>>

/**
 * The name of question n's property (n is 1-based).
 *
 * @since 0.1.0
 */
export const questionField = (n: number): string => `question_${n}`

/**
 * The name of question n's free-text "Other" property (n is 1-based).
 *
 * @since 0.1.0
 */
export const customField = (n: number): string => `question_${n}_custom`

const hasOptions = (question: AskUserQuestionItem): question is AskUserQuestionItem & {
  readonly options: NonNullable<AskUserQuestionItem["options"]>
} => question.options !== undefined && question.options.length > 0

const nonBlank = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

// Optional keys are left out rather than set to undefined (exactOptionalPropertyTypes, and clean JSON).
const withDescription = <A extends object>(value: A, description: string | undefined): A & { description?: string } =>
  nonBlank(description) ? { ...value, description } : value

/** How much of a preview a form shows. */
export const maxPreviewInForm = 500

/** `preview` cut to `maxPreviewInForm` characters, an ellipsis marking the cut, never half a surrogate pair. */
const previewInForm = (preview: string): string => {
  if (preview.length <= maxPreviewInForm) return preview
  const cut = preview.slice(0, maxPreviewInForm - 1)
  return `${/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut}…`
}

/** An option's description as a form shows it: its description, then its preview (cut), a blank line between. */
const optionDescription = (o: AskUserQuestionOption): string | undefined => {
  const preview = nonBlank(o.preview) ? previewInForm(o.preview) : undefined
  if (preview === undefined) return o.description
  return nonBlank(o.description) ? `${o.description}\n\n${preview}` : preview
}

const option = (o: AskUserQuestionOption): ElicitationOption =>
  withDescription({ const: o.label, title: o.label }, optionDescription(o))

/**
 * Why `request` cannot be asked through a form on `surface` (`"MCP"`,
 * `"ACP"`): it has a secret question, which only a secret page (URL-mode
 * elicitation) may take. A provider checks this before anything is sent and
 * fails with it (`PROVIDER_FAILED`); undefined when the request fits a form.
 *
 * @since 0.3.0
 */
export const formRefusal = (request: AskUserQuestionRequest, surface: string): ProviderFailed | undefined =>
  secretRefusal(request, surface)

const messageOf = (request: AskUserQuestionRequest): string => {
  const who = nonBlank(request.agent?.name) ? request.agent.name : undefined
  const count = request.questions.length
  const intro = `${who ?? "The agent"} asks ${count === 1 ? "a question" : `${count} questions`}:`
  const lines = request.questions.map((q, i) => `${i + 1}. ${nonBlank(q.header) ? `[${q.header}] ` : ""}${q.question}`)
  return [intro, ...lines].join("\n")
}

/**
 * The form for a request: `question_<n>` per question (single-select: a
 * string with titled `oneOf` options; multi-select: an array with titled
 * `items.anyOf`; optionless: a required string) and `question_<n>_custom`
 * for questions with options. The message lists the questions, numbered, with
 * their headers; each property's title is its question and its description
 * the header. A recommended option is the property's `default` (a
 * multi-select's: every recommended label); an option's preview follows its
 * description, cut to 500 characters.
 *
 * Throws the `ProviderFailed` of `formRefusal` for a request with a secret
 * question: check `formRefusal` first.
 *
 * @since 0.1.0
 */
export const toElicitationForm = (request: AskUserQuestionRequest): ElicitationForm => {
  const refused = formRefusal(request, "a form")
  if (refused !== undefined) throw refused
  const properties: Record<string, ElicitationProperty> = {}
  const required: Array<string> = []
  request.questions.forEach((question, index) => {
    const n = index + 1
    const base = withDescription({ title: question.question }, question.header)
    if (!hasOptions(question)) {
      properties[questionField(n)] = { type: "string", ...base }
      required.push(questionField(n))
      return
    }
    const options = question.options.map(option)
    const recommended = question.options.filter(isRecommended).map((o) => o.label)
    const [first] = recommended
    properties[questionField(n)] = question.multiSelect === true
      ? recommended.length === 0
        ? { type: "array", ...base, items: { anyOf: options } }
        : { type: "array", ...base, items: { anyOf: options }, default: recommended }
      : first === undefined
      ? { type: "string", ...base, oneOf: options }
      : { type: "string", ...base, oneOf: options, default: first }
    properties[customField(n)] = {
      type: "string",
      title: "Other",
      description: `Your own answer to question ${n}; when filled in, it replaces the choice above.`
    }
  })
  return { message: messageOf(request), requestedSchema: { type: "object", properties, required } }
}

const malformed = (field: string, expected: string) =>
  Result.fail(new InvalidAnswer({ message: `The form's answer is malformed: "${field}" must be ${expected}.` }))

const isAbsent = (value: unknown): value is undefined | null => value === undefined || value === null

/** A name in the form's own scheme: `question_<n>`, `question_<n>_custom`, or a 2025-06-18 checkbox. */
const ownFieldName = /^question_(\d+)(_custom|_option_\d+)?$/

/**
 * The first key named like one of the form's fields that this form does not
 * have (`question_9` on a form of three questions, a checkbox no question
 * has): the client answered some other form, and what it says cannot be
 * trusted to be about these questions. Keys of other names are the client's
 * own and are left alone.
 */
const strangerField = (request: AskUserQuestionRequest, fields: Readonly<Record<string, unknown>>): string | undefined => {
  for (const key in fields) {
    const match = ownFieldName.exec(key)
    if (match === null) continue
    const n = Number(match[1])
    const question = request.questions[n - 1]
    // `question_01` is not `question_1`: the client did not take the name from this form.
    const isField = question !== undefined && match[1] === String(n) &&
      (match[2] === undefined || (match[2] === "_custom" && hasOptions(question)))
    if (!isField) return key
  }
  return undefined
}

/**
 * Reads the content of an accepted form back into an answer: non-empty
 * "Other" text overrides the choice (`selected` becomes `[]`); an absent or
 * empty field is a skip; an optionless question's text becomes `custom`.
 * The answer is then held to the answer rules (`checkAnswer`); content of the
 * wrong shape, labels that are not options, or several labels for a
 * single-select question are `InvalidAnswer`, and so is a property named like
 * the form's own that this form does not have (`question_9`, a 2025-06-18
 * checkbox left over); properties of other names are the client's and are
 * ignored.
 *
 * @since 0.1.0
 */
export const fromElicitationContent = (
  request: AskUserQuestionRequest,
  content: unknown
): Result.Result<AskUserQuestionAnswer, InvalidAnswer> => {
  if (!isAbsent(content) && (typeof content !== "object" || Array.isArray(content))) {
    return Result.fail(new InvalidAnswer({ message: "The form's answer is malformed: its content is not an object." }))
  }
  const fields = (content ?? {}) as Readonly<Record<string, unknown>>
  const stranger = strangerField(request, fields)
  if (stranger !== undefined) {
    return Result.fail(new InvalidAnswer({ message: `The form's answer is malformed: "${stranger}" is not a field of the form.` }))
  }
  const answers: Array<{ id: string; selected: Array<string>; custom?: string }> = []
  for (let index = 0; index < request.questions.length; index++) {
    const question = request.questions[index]!
    const n = index + 1
    const value = fields[questionField(n)]
    if (!hasOptions(question)) {
      if (isAbsent(value)) answers.push({ id: question.id, selected: [] })
      else if (typeof value === "string") answers.push({ id: question.id, selected: [], custom: value })
      else return malformed(questionField(n), "text")
      continue
    }
    const custom = fields[customField(n)]
    if (!isAbsent(custom) && typeof custom !== "string") return malformed(customField(n), "text")
    if (typeof custom === "string" && nonBlank(custom)) {
      answers.push({ id: question.id, selected: [], custom })
      continue
    }
    if (isAbsent(value) || value === "") answers.push({ id: question.id, selected: [] })
    else if (question.multiSelect === true) {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
        return malformed(questionField(n), "a list of option labels")
      }
      answers.push({ id: question.id, selected: value })
    } else if (typeof value === "string") answers.push({ id: question.id, selected: [value] })
    else return malformed(questionField(n), "one option label")
  }
  return checkAnswer(request, { answers })
}

/**
 * The content a client would send to give `answer` through the request's
 * form: the inverse of `fromElicitationContent`, for scripted clients and
 * tests. A skipped optionless question is sent as `""`, since its field is
 * required.
 *
 * @since 0.1.0
 */
export const toElicitationContent = (
  request: AskUserQuestionRequest,
  answer: AskUserQuestionAnswer
): ElicitationContent => {
  const byId = new Map(answer.answers.map((item) => [item.id, item]))
  const content: ElicitationContent = {}
  request.questions.forEach((question, index) => {
    const n = index + 1
    const item = byId.get(question.id)
    if (!hasOptions(question)) {
      content[questionField(n)] = item?.custom ?? ""
      return
    }
    if (item === undefined) return
    if (nonBlank(item.custom)) content[customField(n)] = item.custom
    else if (question.multiSelect === true) content[questionField(n)] = [...item.selected]
    else if (item.selected[0] !== undefined) content[questionField(n)] = item.selected[0]
  })
  return content
}
