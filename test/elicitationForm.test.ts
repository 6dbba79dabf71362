import type * as acp from "@agentclientprotocol/sdk"
import { describe, expect, it } from "@effect/vitest"
import { ElicitRequestSchema, type ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js"
import { Result } from "effect"
import {
  type AskUserQuestionRequest,
  checkAnswer,
  fromElicitationContent,
  toElicitationContent,
  toElicitationForm
} from "effect-user-interaction"
import { formRequests, formRequestsWithAnswers } from "./support/arbitraries.js"
import { batch, batchAnswer } from "./support/requests.js"

const success = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) throw new Error(`expected a success, got ${String(r.failure)}`)
  return r.success
}
const failure = <A, E>(r: Result.Result<A, E>): E => {
  if (Result.isSuccess(r)) throw new Error(`expected a failure, got ${JSON.stringify(r.success)}`)
  return r.failure
}

describe("toElicitationForm", () => {
  const form = toElicitationForm({ ...batch, agent: { id: "s1", name: "Claude" } })

  it("maps each kind of question to its field, with titled options and an Other field", () => {
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: {
        question_1: {
          type: "string",
          title: "Which database?",
          description: "Storage",
          oneOf: [
            { const: "Postgres (Recommended)", title: "Postgres (Recommended)", description: "Relational" },
            { const: "SQLite", title: "SQLite" }
          ],
          // Second edition: a label ending " (Recommended)" is the recommended option, the field's default.
          default: "Postgres (Recommended)"
        },
        question_1_custom: { type: "string", title: "Other", description: expect.stringContaining("question 1") },
        question_2: {
          type: "array",
          title: "Which features?",
          items: { anyOf: ["auth", "billing", "search"].map((l) => ({ const: l, title: l })) }
        },
        question_2_custom: { type: "string", title: "Other", description: expect.stringContaining("question 2") },
        question_3: { type: "string", title: "Project name?" }
      },
      required: ["question_3"]
    })
  })

  it("lists the questions in the message, numbered, with headers and who asks", () => {
    expect(form.message.split("\n")).toEqual([
      "Claude asks 3 questions:",
      "1. [Storage] Which database?",
      "2. Which features?",
      "3. Project name?"
    ])
  })

  it("is accepted by both SDKs' types, and MCP's own schema check", () => {
    const acpParams: acp.CreateElicitationRequest = { sessionId: "s1", mode: "form", ...form }
    const mcpParams: ElicitRequestFormParams = { mode: "form", ...form }
    const parsed = ElicitRequestSchema.safeParse({ method: "elicitation/create", params: mcpParams })
    expect(parsed.success).toBe(true)
    expect(acpParams.message).toBe(form.message)
  })

  it.prop("has exactly the fields the questions call for", [formRequests], ([request]) => {
    const { properties, required } = toElicitationForm(request).requestedSchema
    const expected = request.questions.flatMap((q, i) =>
      q.options !== undefined && q.options.length > 0 ? [`question_${i + 1}`, `question_${i + 1}_custom`] : [`question_${i + 1}`]
    )
    expect(Object.keys(properties)).toEqual(expected)
    expect(required).toEqual(
      request.questions.flatMap((q, i) => q.options !== undefined && q.options.length > 0 ? [] : [`question_${i + 1}`])
    )
    request.questions.forEach((q, i) => {
      const field = properties[`question_${i + 1}`]!
      const labels = q.options?.map((o) => o.label) ?? []
      if (labels.length === 0) expect(field).not.toHaveProperty("oneOf")
      else if (q.multiSelect === true) expect("items" in field && field.items.anyOf.map((o) => o.const)).toEqual(labels)
      else expect("oneOf" in field && field.oneOf.map((o) => o.const)).toEqual(labels)
    })
  })
})

describe("fromElicitationContent", () => {
  it("reads choices, multi choices and typed text", () => {
    const answer = success(fromElicitationContent(batch, {
      question_1: "Postgres (Recommended)",
      question_2: ["search", "auth"],
      question_3: "atlas"
    }))
    expect(answer).toEqual({ answers: [batchAnswer.answers[0], { id: "features", selected: ["search", "auth"] }, batchAnswer.answers[2]] })
  })

  it("lets non-empty Other text override the choice, and ignores blank Other text", () => {
    const answer = success(fromElicitationContent(batch, {
      question_1: "SQLite",
      question_1_custom: "DuckDB",
      question_2: ["billing"],
      question_2_custom: "  ",
      question_3: "x"
    }))
    expect(answer.answers[0]).toEqual({ id: "db", selected: [], custom: "DuckDB" })
    expect(answer.answers[1]).toEqual({ id: "features", selected: ["billing"] })
  })

  it("treats empty and absent fields, and absent content, as skips", () => {
    const skipped = { answers: batch.questions.map((q) => ({ id: q.id, selected: [] })) }
    expect(success(fromElicitationContent(batch, { question_1: "", question_2: [], question_3: "" }))).toEqual(skipped)
    expect(success(fromElicitationContent(batch, {}))).toEqual(skipped)
    expect(success(fromElicitationContent(batch, undefined))).toEqual(skipped)
    expect(success(fromElicitationContent(batch, null))).toEqual(skipped)
  })

  it("ignores properties the client names its own way", () => {
    const answer = success(fromElicitationContent(batch, { question_1: "SQLite", comment: "x", _meta: { a: 1 }, question: 2 }))
    expect(answer.answers[0]).toEqual({ id: "db", selected: ["SQLite"] })
  })

  it.each([
    ["a question the request does not have", { question_1: "SQLite", question_9: "x" }, "question_9"],
    ["Other on a question without options", { question_3_custom: "atlas" }, "question_3_custom"],
    ["a question number written another way", { question_01: "SQLite" }, "question_01"],
    ["a 2025-06-18 checkbox on this form", { question_2_option_1: true }, "question_2_option_1"]
  ])("refuses %s: the client answered another form", (_, content, field) => {
    const error = failure(fromElicitationContent(batch, content))
    expect(error._tag).toBe("InvalidAnswer")
    expect(error.message).toBe(`The form's answer is malformed: "${field}" is not a field of the form.`)
  })

  it.each([
    ["content that is not an object", ["x"], "not an object"],
    ["a number for a choice", { question_1: 3 }, "question_1"],
    ["a list for a single-select question", { question_1: ["SQLite"] }, "question_1"],
    ["a string for a multi-select question", { question_2: "auth" }, "question_2"],
    ["a list with a non-string", { question_2: ["auth", 1] }, "question_2"],
    ["a boolean for Other", { question_1_custom: true }, "question_1_custom"],
    ["a list for free text", { question_3: ["atlas"] }, "question_3"],
    ["a label that is not an option", { question_1: "MySQL" }, "MySQL"],
    ["a label chosen twice", { question_2: ["auth", "auth"] }, "twice"]
  ])("refuses %s as InvalidAnswer", (_, content, mentions) => {
    const error = failure(fromElicitationContent(batch, content))
    expect(error._tag).toBe("InvalidAnswer")
    expect(error.code).toBe("INVALID_ANSWER")
    expect(error.message).toContain(mentions)
  })

  it("refuses two labels for a single-select question", () => {
    const request: AskUserQuestionRequest = {
      questions: [{ id: "a", question: "A?", options: [{ label: "x" }, { label: "y" }] }]
    }
    // A client ignoring the schema could only send one string; a comma is part of the label, not a separator.
    expect(failure(fromElicitationContent(request, { question_1: "x,y" }))._tag).toBe("InvalidAnswer")
  })

  it.prop("round-trips any valid answer through the form's content", [formRequestsWithAnswers], ([{ request, answer }]) => {
    const expected = success(checkAnswer(request, answer))
    const content = toElicitationContent(request, answer)
    expect(success(fromElicitationContent(request, content))).toEqual(expected)
  })
})
