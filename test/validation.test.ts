import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Result, Schema } from "effect"
import { checkAnswer, decodeRequest, decodeRequestJson } from "effect-user-interaction"
import { requests, requestsWithAnswers } from "./support/arbitraries.js"
import { batch, batchAnswer } from "./support/requests.js"
import { isCheckedFor, markChecked } from "../src/internal/wellFormed.js"

const failure = <E>(r: Result.Result<unknown, E>): E => {
  if (Result.isSuccess(r)) throw new Error("expected a failure")
  return r.failure
}

describe("decodeRequest", () => {
  it("accepts a valid batch unchanged", () => {
    expect(decodeRequest(batch)).toEqual(Result.succeed(batch))
  })

  it.each([
    [{ questions: [{ id: "a", question: "A?" }, { id: "b", question: "B?", options: [{ label: "" }] }] }, "questions[1].options[0].label"],
    [{ questions: [{ id: "a" }] }, "questions[0].question"],
    [{ questions: [{ id: "", question: "A?" }] }, "questions[0].id"],
    [{ questions: [{ id: "a", question: "A?", multiSelect: "yes" }] }, "questions[0].multiSelect"],
    [{ questions: "a" }, "questions"],
    [{ questions: [{ id: "a", question: "A?" }], agent: { name: "x" } }, "agent.id"],
    [null, "(root)"]
  ])("names the path of what does not decode: %j", (input, path) => {
    const error = failure(decodeRequest(input))
    expect(error._tag).toBe("InvalidRequest")
    expect(error.message).toContain(path)
  })

  it("refuses repeated question ids and repeated labels, naming where", () => {
    const ids = failure(decodeRequest({ questions: [{ id: "a", question: "1" }, { id: "a", question: "2" }] }))
    expect(ids._tag).toBe("InvalidRequest")
    expect(ids.message).toContain("questions[1].id")
    const labels = failure(decodeRequest({
      questions: [{ id: "a", question: "1", options: [{ label: "x" }, { label: "y" }, { label: "x" }] }]
    }))
    expect(labels._tag).toBe("InvalidRequest")
    expect(labels.message).toContain("questions[0].options[2].label")
  })

  it("refuses a question text that is only white space, naming where", () => {
    for (const blank of [" ", "\t\n", "\u00a0 \u3000"]) {
      const error = failure(decodeRequest({ questions: [{ id: "a", question: "A?" }, { id: "b", question: blank }] }))
      expect(error._tag).toBe("InvalidRequest")
      expect(error.message).toContain("questions[1].question: is only white space")
    }
    const empty = failure(decodeRequest({ questions: [{ id: "a", question: "" }] }))
    expect(empty.message).toContain("questions[0].question: is empty")
  })

  it("is EmptyQuestions for an empty batch", () => {
    expect(failure(decodeRequest({ questions: [] }))._tag).toBe("EmptyQuestions")
  })
})

describe("decodeRequestJson", () => {
  it("accepts multi_select and multiSelect", () => {
    const snake = decodeRequestJson({ questions: [{ id: "a", question: "A?", options: [{ label: "x" }], multi_select: true }] })
    const camel = decodeRequestJson({ questions: [{ id: "a", question: "A?", options: [{ label: "x" }], multiSelect: true }] })
    const expected = { questions: [{ id: "a", question: "A?", options: [{ label: "x" }], multiSelect: true }] }
    expect(snake).toEqual(Result.succeed(expected))
    expect(camel).toEqual(Result.succeed(expected))
  })

  it("refuses multi_select and multiSelect that disagree; agreeing ones are fine", () => {
    for (const [snake, camel] of [[true, false], [false, true]]) {
      const error = failure(decodeRequestJson({
        questions: [{ id: "a", question: "A?" }, { id: "b", question: "B?", options: [{ label: "x" }], multi_select: snake, multiSelect: camel }]
      }))
      expect(error._tag).toBe("InvalidRequest")
      expect(error.message).toContain("questions[1].multi_select")
    }
    expect(Result.isSuccess(decodeRequestJson({
      questions: [{ id: "a", question: "A?", options: [{ label: "x" }], multi_select: true, multiSelect: true }]
    }))).toBe(true)
  })

  it("refuses a question text that is only white space", () => {
    expect(failure(decodeRequestJson({ questions: [{ id: "a", question: "   " }] })).message).toContain("questions[0].question")
  })

  it("keeps the agent and names bad paths", () => {
    expect(decodeRequestJson({ questions: [{ id: "a", question: "A?" }], agent: { id: "s1", name: "Coder" } }))
      .toEqual(Result.succeed({ questions: [{ id: "a", question: "A?" }], agent: { id: "s1", name: "Coder" } }))
    expect(failure(decodeRequestJson({ questions: [{ id: "a", question: "A?", multi_select: 1 }] })).message)
      .toContain("questions[0].multi_select")
  })
})

describe("checkAnswer", () => {
  it("returns the answer in question order, whatever order the provider used", () => {
    const shuffled = { answers: [batchAnswer.answers[2]!, batchAnswer.answers[0]!, batchAnswer.answers[1]!] }
    expect(checkAnswer(batch, shuffled)).toEqual(Result.succeed(batchAnswer))
  })

  it("drops blank custom text, leaving an explicit skip", () => {
    const answer = { answers: [{ id: "db", selected: [], custom: "   " }, { id: "features", selected: [] }, { id: "name", selected: [], custom: "" }] }
    expect(checkAnswer(batch, answer)).toEqual(Result.succeed({
      answers: [{ id: "db", selected: [] }, { id: "features", selected: [] }, { id: "name", selected: [] }]
    }))
  })

  const broken = (answers: ReadonlyArray<unknown>) => failure(checkAnswer(batch, { answers }))
  const base = batchAnswer.answers
  it.each([
    ["a missing answer", [base[0], base[1]], "no answer"],
    ["an unknown id", [...base, { id: "zzz", selected: [] }], "zzz"],
    ["an unknown id in place of a question's", [base[0], base[1], { id: "zzz", selected: [] }], "\"zzz\" is not a question of the request"],
    ["a repeated id", [...base, base[0]], "twice"],
    ["a label of another question", [{ id: "db", selected: ["auth"] }, base[1], base[2]], "not an option"],
    ["a repeated label", [base[0], { id: "features", selected: ["auth", "auth"] }, base[2]], "selected twice"],
    ["two labels on a single-select", [{ id: "db", selected: ["SQLite", "Postgres (Recommended)"] }, base[1], base[2]], "single-select"],
    ["custom text with choices", [{ id: "db", selected: ["SQLite"], custom: "Mongo" }, base[1], base[2]], "both"],
    ["a label on an optionless question", [base[0], base[1], { id: "name", selected: ["atlas"] }], "not an option"]
  ])("refuses %s", (_, answers, reason) => {
    const error = broken(answers)
    expect(error._tag).toBe("InvalidAnswer")
    expect(error.message).toContain(reason)
  })

  it("refuses what is not an answer at all", () => {
    expect(failure(checkAnswer(batch, { answers: "yes" }))._tag).toBe("InvalidAnswer")
    expect(failure(checkAnswer(batch, undefined))._tag).toBe("InvalidAnswer")
  })
})

// The checks decode through Effect's schema JIT (AskValidation.ts): compiled decoders must keep
// every field of what is valid, and turn anything else into the contract's errors, never a throw.
describe("the compiled decoders", () => {
  it.prop("decode any valid request to an equal request", [requests], ([request]) => {
    expect(decodeRequest(request)).toEqual(Result.succeed(request))
  })

  it.prop("check any valid answer to itself, in question order", [requestsWithAnswers], ([{ answer, request }]) => {
    const checked = checkAnswer(request, answer)
    expect(Result.isSuccess(checked)).toBe(true)
    expect(Result.getOrThrow(checked).answers.map((a) => a.id)).toEqual(request.questions.map((q) => q.id))
  })

  // The seam does not decode again what the package decoded from a tool call or a prompt itself.
  it.prop("pass what decodeRequestJson decodes, unchanged, to decodeRequest", [requests, Arbitrary.schema(Schema.Json)], ([request, json]) => {
    const spelled = { ...request, questions: request.questions.map(({ multiSelect, ...q }) => multiSelect === undefined ? q : { ...q, multi_select: multiSelect }) }
    for (const input of [request, spelled, json]) {
      const fromJson = decodeRequestJson(input)
      if (Result.isSuccess(fromJson)) expect(decodeRequest(fromJson.success)).toEqual(fromJson)
    }
  })

  it.prop("turn any JSON into a result: a request or INVALID_REQUEST / EMPTY_QUESTIONS", [Arbitrary.schema(Schema.Json)], ([json]) => {
    const decoded = decodeRequest(json as never)
    if (Result.isFailure(decoded)) expect(["InvalidRequest", "EmptyQuestions"]).toContain(decoded.failure._tag)
    const fromJson = decodeRequestJson(json)
    if (Result.isFailure(fromJson)) expect(["InvalidRequest", "EmptyQuestions"]).toContain(fromJson.failure._tag)
    const checked = checkAnswer(batch, json)
    if (Result.isFailure(checked)) expect(checked.failure._tag).toBe("InvalidAnswer")
  })
})

// Providers of this package mark the answers they read back from a form, so the seam does not check them twice.
describe("answers marked as checked", () => {
  it("count as checked for the very request object they were checked against, and for no other", () => {
    const answer = markChecked(Result.getOrThrow(checkAnswer(batch, batchAnswer)), batch)
    expect(isCheckedFor(answer, batch)).toBe(true)
    expect(isCheckedFor(answer, structuredClone(batch))).toBe(false)
    expect(isCheckedFor(structuredClone(answer), batch)).toBe(false)
    expect(isCheckedFor(undefined, batch)).toBe(false)
  })
})
