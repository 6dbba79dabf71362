/**
 * SPEC "Vocabulary, second edition" on the MCP and ACP forms: a recommended
 * option is its field's `default` (single-select: the label; multi-select:
 * the list of them), and an option's preview is appended to its
 * description, cut to 500 characters. In the 2025-06-18 form, whose schema
 * has defaults on booleans only, a recommended checkbox starts ticked.
 */
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { ElicitRequestSchema as ElicitRequest117 } from "mcp-sdk-1-17/types.js"
import { describe, expect, it } from "@effect/vitest"
import { type AskUserQuestionRequest, toElicitationForm } from "effect-user-interaction"
import { toForm20250618 } from "../src/mcp/form20250618.js"

const request: AskUserQuestionRequest = {
  questions: [
    {
      id: "db",
      question: "Which database?",
      options: [
        { label: "SQLite", preview: "One file, no server." },
        { label: "Postgres", description: "Relational", preview: "## Postgres\nRuns as a service.", recommended: true }
      ]
    },
    {
      id: "features",
      question: "Which features?",
      options: [{ label: "auth (Recommended)" }, { label: "billing" }, { label: "search", recommended: true }],
      multiSelect: true
    },
    { id: "region", question: "Region?", options: [{ label: "eu" }, { label: "us" }] }
  ]
}

const properties = toElicitationForm(request).requestedSchema.properties as Record<string, any>

describe("the shared form (ACP, MCP 2025-11-25 and 2026-07-28)", () => {
  it("sends a recommended option as its field's default: the label, or for a multi-select every recommended label", () => {
    expect(properties.question_1.default).toBe("Postgres")
    expect(properties.question_2.default).toEqual(["auth (Recommended)", "search"])
    expect(properties.question_3).not.toHaveProperty("default")
  })

  it("appends an option's preview to its description, after a blank line", () => {
    expect(properties.question_1.oneOf).toEqual([
      { const: "SQLite", title: "SQLite", description: "One file, no server." },
      { const: "Postgres", title: "Postgres", description: "Relational\n\n## Postgres\nRuns as a service." }
    ])
  })

  it("cuts a preview to 500 characters, the last an ellipsis, never inside a surrogate pair", () => {
    const cut = (preview: string) =>
      (toElicitationForm({ questions: [{ id: "q", question: "Q?", options: [{ label: "a", preview }] }] })
        .requestedSchema.properties.question_1 as any).oneOf[0].description as string
    expect(cut("x".repeat(500))).toBe("x".repeat(500))
    expect(cut("x".repeat(501))).toBe(`${"x".repeat(499)}…`)
    // A pair would straddle the cut: it goes whole.
    expect(cut(`${"x".repeat(498)}😀${"y".repeat(10)}`)).toBe(`${"x".repeat(498)}…`)
  })

  it("passes the MCP SDK's (1.32.2) own schema check with its defaults", () => {
    const parsed = ElicitRequestSchema.safeParse({ method: "elicitation/create", params: { mode: "form", ...toElicitationForm(request) } })
    expect(parsed.success).toBe(true)
  })
})

describe("the 2025-06-18 form", () => {
  const form = toForm20250618(request)
  const fields = form.requestedSchema.properties as Record<string, any>

  it("ticks a recommended checkbox to start with; a single-select gets no default, which that revision does not have", () => {
    expect(fields.question_2_option_1).toMatchObject({ type: "boolean", title: "auth (Recommended)", default: true })
    expect(fields.question_2_option_2).not.toHaveProperty("default")
    expect(fields.question_2_option_3).toMatchObject({ type: "boolean", title: "search", default: true })
    expect(fields.question_1).toEqual({ type: "string", title: "Which database?", enum: ["SQLite", "Postgres"], enumNames: ["SQLite", "Postgres"] })
  })

  it("puts a checkbox's preview in its description, and passes that revision's own schema check", () => {
    const previewed: AskUserQuestionRequest = {
      questions: [{ id: "f", question: "F?", options: [{ label: "a", description: "A", preview: "more about a" }, { label: "b" }], multiSelect: true }]
    }
    expect((toForm20250618(previewed).requestedSchema.properties as Record<string, any>).question_1_option_1).toEqual({
      type: "boolean",
      title: "a",
      description: "A\n\nmore about a"
    })
    const parsed = ElicitRequest117.safeParse({ method: "elicitation/create", params: form })
    expect(parsed.success).toBe(true)
  })
})
