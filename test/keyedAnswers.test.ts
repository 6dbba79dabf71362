/**
 * SPEC "Keyed answers" (`--answers FILE`, `ask-user answer ID FILE`): a
 * string equal to an option's label, or to exactly one label ignoring case,
 * picks that option; any other string is Other text, and whoever reads the
 * file hears of it; a string for a secret question is its secret.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import type { AskUserQuestionItem } from "effect-user-interaction"
import { answerItem, answersFromFile, labelNamed } from "../src/cli/answersFile.js"

const go: AskUserQuestionItem = { id: "go", question: "Go?", options: [{ label: "Yes" }, { label: "No (Recommended)" }] }
const twins: AskUserQuestionItem = { id: "db", question: "Which?", options: [{ label: "SQL" }, { label: "sql" }, { label: "Mongo" }] }
const token: AskUserQuestionItem = { id: "token", question: "Token?", secret: true }

describe("labelNamed", () => {
  it("is the label written, else the one label equal ignoring case; none when several or none match", () => {
    expect(labelNamed(go, "Yes")).toBe("Yes")
    expect(labelNamed(go, "yes")).toBe("Yes")
    expect(labelNamed(go, "NO (RECOMMENDED)")).toBe("No (Recommended)")
    // The suffix is part of the label here: "No" is not "No (Recommended)".
    expect(labelNamed(go, "No")).toBeUndefined()
    expect(labelNamed(twins, "sql")).toBe("sql")
    expect(labelNamed(twins, "Sql")).toBeUndefined()
    expect(labelNamed(twins, "mongo")).toBe("Mongo")
  })
})

describe("keyed answers", () => {
  it("a string naming a label picks it; any other string is Other text, told to onOther", () => {
    const told: Array<[string, string]> = []
    const onOther = (question: AskUserQuestionItem, text: string) => void told.push([question.id, text])
    expect(answerItem(go, "yes", onOther)).toEqual({ id: "go", selected: ["Yes"] })
    expect(answerItem(go, "Nope", onOther)).toEqual({ id: "go", selected: [], custom: "Nope" })
    expect(answerItem(twins, "Sql", onOther)).toEqual({ id: "db", selected: [], custom: "Sql" })
    expect(told).toEqual([["go", "Nope"], ["db", "Sql"]])
  })

  it("text for a question without options is its answer, not a notice", () => {
    const told: Array<string> = []
    expect(answerItem({ id: "why", question: "Why?" }, "because", () => told.push("told"))).toEqual({ id: "why", selected: [], custom: "because" })
    expect(told).toEqual([])
  })

  it("labels in a list are matched the same way; one that names none is left for the answer rules to refuse", () => {
    const features: AskUserQuestionItem = { id: "f", question: "F?", options: [{ label: "Auth" }, { label: "CI" }], multiSelect: true }
    expect(answerItem(features, ["auth", "ci"])).toEqual({ id: "f", selected: ["Auth", "CI"] })
    expect(answerItem(features, ["auth", "docs"])).toEqual({ id: "f", selected: ["Auth", "docs"] })
  })

  it("a string for a secret question is its secret, as is { secret }", () => {
    for (const entry of ["s3cret", { secret: "s3cret" }]) {
      const item = answerItem(token, entry)
      expect(item.custom).toBeUndefined()
      expect(Redacted.value(item.secret!)).toBe("s3cret")
    }
    expect(answerItem(token, null)).toEqual({ id: "token", selected: [] })
  })

  it("answersFromFile passes onOther through", () => {
    const told: Array<string> = []
    answersFromFile({ go: "Maybe", token: "x" }, [go, token], (question, text) => told.push(`${question.id}=${text}`))
    expect(told).toEqual(["go=Maybe"])
  })
})
