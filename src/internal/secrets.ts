/**
 * How the answer to a secret question travels. In Effect it is a `Redacted`
 * string, so that printing, logging or `JSON.stringify` shows `<redacted>`.
 * From JSON (a web page's POST, an answers file, a Promise provider) it may
 * come as a plain string: the answer rules' check wraps it before anything
 * else reads it (decision 096). Out of the process it goes two ways: to the
 * model as `"received"`, never the value; to the caller (`ask-user`'s
 * stdout) as the value itself.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { InvalidRequest, ProviderFailed } from "../UserInteractionError.js"
import { defaultedNote } from "./onTimeout.js"

/** The index of the first secret question of a request; -1 when it has none. */
export const secretQuestionIndex = (request: AskUserQuestionRequest): number =>
  request.questions.findIndex((question) => question.secret === true)

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * `answer` with every `secret` given as a plain string wrapped in
 * `Redacted`; the input itself when there is none (the usual case), so that
 * answers without secrets are not copied.
 */
export const wrapSecrets = (answer: unknown): unknown => {
  if (!isRecord(answer) || !Array.isArray(answer.answers)) return answer
  const items: ReadonlyArray<unknown> = answer.answers
  if (!items.some((item) => isRecord(item) && typeof item.secret === "string")) return answer
  return {
    ...answer,
    answers: items.map((item) =>
      isRecord(item) && typeof item.secret === "string" ? { ...item, secret: Redacted.make(item.secret) } : item
    )
  }
}

/**
 * The answer as its caller reads it in JSON (`ask-user`'s stdout): each
 * secret as its text. Nowhere else may a secret be written out.
 */
export const callerJson = (answer: AskUserQuestionAnswer): object =>
  answer.answers.some((item) => item.secret !== undefined)
    ? {
      ...answer,
      answers: answer.answers.map((item) => item.secret === undefined ? item : { ...item, secret: Redacted.value(item.secret) })
    }
    : answer

/** What the model is told a secret answer was: that it arrived, not what it is. */
export const secretReceived = "received" as const

/**
 * The answer as the model reads it: a secret question's item is `{ id,
 * secret: "received" }`; a defaulted answer keeps `defaulted: true` and gets
 * a `note` saying the human did not answer and the recommended options were
 * taken.
 */
export const modelJson = (answer: AskUserQuestionAnswer): ModelAnswerJson => {
  const answers = answer.answers.map((item): ModelAnswerItem =>
    item.secret !== undefined
      ? { id: item.id, secret: secretReceived }
      : item.custom === undefined
      ? { id: item.id, selected: item.selected }
      : { id: item.id, selected: item.selected, custom: item.custom }
  )
  return answer.defaulted === true ? { answers, defaulted: true, note: defaultedNote } : { answers }
}

/** One item of the answer as the model reads it. */
export type ModelAnswerItem =
  | { readonly id: string; readonly selected: ReadonlyArray<string>; readonly custom?: string }
  | { readonly id: string; readonly secret: typeof secretReceived }

/** The answer JSON the model reads (see `modelJson`). */
export interface ModelAnswerJson {
  readonly answers: ReadonlyArray<ModelAnswerItem>
  readonly defaulted?: true
  readonly note?: string
}

/**
 * Why a request cannot be asked through a form on `surface` ("MCP", "ACP"):
 * a form field is no place for a secret (the client shows, keeps and may log
 * what is typed into it); only a secret page (URL-mode elicitation) can take
 * one. Undefined when the request has no secret question.
 */
export const formRefusal = (request: AskUserQuestionRequest, surface: string): ProviderFailed | undefined => {
  const index = secretQuestionIndex(request)
  return index < 0 ? undefined : new ProviderFailed({
    message: `The question "${request.questions[index]!.id}" is secret: asking it through ${surface} needs a secret page ` +
      "(URL-mode elicitation), and this provider has none; nothing was sent."
  })
}

/** Why a request with a secret question cannot be asked durably; undefined when it has none. */
export const storeRefusal = (request: AskUserQuestionRequest): InvalidRequest | undefined => {
  const index = secretQuestionIndex(request)
  return index < 0 ? undefined : new InvalidRequest({
    message: `Invalid request: questions[${index}].secret: ` +
      "a secret cannot be kept in the store; ask it live, not durably."
  })
}
