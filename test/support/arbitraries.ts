/**
 * Random valid requests and rule-abiding answers for property tests:
 * schema-generated, then made to pass the request checks.
 */
import { Arbitrary, Redacted, Schema } from "effect"
import {
  Agent,
  type AskUserQuestionAnswer,
  type AskUserQuestionAnswerItem,
  AskUserQuestionItem,
  type AskUserQuestionRequest
} from "effect-user-interaction"

/** Valid requests: unique question ids, unique labels within a question, no blank question text. */
export const requests: Arbitrary.Arbitrary<AskUserQuestionRequest> = Arbitrary.schema(Schema.Struct({
  questions: Schema.NonEmptyArray(AskUserQuestionItem),
  agent: Schema.optionalKey(Agent)
})).pipe(Arbitrary.map((raw): AskUserQuestionRequest => ({
  ...raw,
  questions: raw.questions.map((q, i) => {
    const question = { ...q, id: `${q.id}#${i}`, question: q.question.trim() === "" ? `${q.question}?` : q.question }
    if (q.options === undefined) return question
    const seen = new Set<string>()
    return { ...question, options: q.options.filter((o) => !seen.has(o.label) && seen.add(o.label)) }
  })
})))

// One random way a human could answer a question: skip, choose, or type.
const Pick = Schema.Struct({
  mode: Schema.Literals(["skip", "choose", "type"]),
  bits: Schema.Array(Schema.Boolean),
  text: Schema.String
})
const answerItem = (
  q: AskUserQuestionRequest["questions"][number],
  pick: typeof Pick.Type
): AskUserQuestionAnswerItem => {
  const labels = q.options?.map((o) => o.label) ?? []
  if (q.secret === true) {
    return pick.mode === "skip" ? { id: q.id, selected: [] } : { id: q.id, selected: [], secret: Redacted.make(pick.text) }
  }
  if (pick.mode === "type" || labels.length === 0) {
    return pick.mode === "skip" ? { id: q.id, selected: [] } : { id: q.id, selected: [], custom: pick.text }
  }
  if (pick.mode === "skip") return { id: q.id, selected: [] }
  const chosen = labels.filter((_, i) => pick.bits[i] === true)
  return { id: q.id, selected: q.multiSelect === true ? chosen : [chosen[0] ?? labels[0]!] }
}
/** Each request with an answer that keeps every answer rule. */
const withAnswers = (requests: Arbitrary.Arbitrary<AskUserQuestionRequest>) =>
  requests.pipe(Arbitrary.flatMap((request) =>
    Arbitrary.array(Arbitrary.schema(Pick), {
      minLength: request.questions.length,
      maxLength: request.questions.length
    }).pipe(Arbitrary.map((picks) => ({
      request,
      answer: { answers: request.questions.map((q, i) => answerItem(q, picks[i]!)) } satisfies AskUserQuestionAnswer
    })))
  ))

/** A valid request with an answer that keeps every answer rule. */
export const requestsWithAnswers = withAnswers(requests)

/** Valid requests a form can carry: no secret question (a form refuses those before anything is sent). */
export const formRequests: Arbitrary.Arbitrary<AskUserQuestionRequest> = requests.pipe(Arbitrary.map((request) => ({
  ...request,
  questions: request.questions.map(({ secret: _secret, ...question }) => question)
})))

/** A request a form can carry, with an answer that keeps every answer rule. */
export const formRequestsWithAnswers = withAnswers(formRequests)
