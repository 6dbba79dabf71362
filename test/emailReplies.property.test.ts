/**
 * Reading a mail reply (`src/email/replies.ts`) over random requests: no
 * reply, however odd, is read as an answer that breaks the answer rules (it
 * is an answer the seam accepts, a cancel or decline, or a reason sent back);
 * every answer a person could give, written as the mail tells them (numbers,
 * `skip`, their own text), reads back as that answer; and quoting the whole
 * ask mail above or below it changes nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Result, Schema } from "effect"
import { type AskUserQuestionAnswerItem, type AskUserQuestionRequest, checkAnswer } from "effect-user-interaction"
import { askMail } from "../src/email/render.js"
import { ownLines, readReply } from "../src/email/replies.js"
import { formRequests, formRequestsWithAnswers } from "./support/arbitraries.js"

/** The lines a person writes for `answers`, as the mail tells them to; their own text as `Own answer N`. */
const written = (request: AskUserQuestionRequest, answers: ReadonlyArray<AskUserQuestionAnswerItem>) =>
  answers.map((item, i) => {
    const labels = request.questions[i]!.options?.map((o) => o.label) ?? []
    if (item.custom !== undefined) return `Own answer ${i}`
    if (item.selected.length === 0) return "skip"
    return item.selected.map((label) => labels.indexOf(label) + 1).join(",")
  })

/** What `written` means, read back: the same answers with each own text as written. */
const meant = (answers: ReadonlyArray<AskUserQuestionAnswerItem>) =>
  answers.map((item, i) =>
    item.custom !== undefined ? { id: item.id, selected: [], custom: `Own answer ${i}` } : { id: item.id, selected: item.selected }
  )

const quote = (text: string) => text.split("\n").map((line) => `> ${line}`).join("\n")

describe("reading a mail reply", () => {
  it.effect("an answer written as the mail says reads back as that answer, with the ask quoted above or below", () =>
    Effect.gen(function*() {
      const samples = yield* Arbitrary.sampleEffect(formRequestsWithAnswers, { count: 300, seed: 35 })
      for (const { request, answer } of samples) {
        const lines = written(request, answer.answers)
        const ask = askMail(request, "0".repeat(24), "https://inbox.example/").text
        const expected = { _tag: "Answer", answers: meant(answer.answers) }
        expect(readReply(request, ownLines(lines.join("\n")))).toEqual(expected)
        expect(readReply(request, ownLines(`${lines.join("\r\n")}\r\n\r\nOn Sun, Agent wrote:\r\n${quote(ask)}`))).toEqual(expected)
        expect(readReply(request, ownLines(`On Sun, Agent wrote:\n${quote(ask)}\n\n${lines.join("\n")}\n-- \nAna`))).toEqual(expected)
      }
    }))

  it.effect("no reply is read as an answer the seam would refuse", () =>
    Effect.gen(function*() {
      const Line = Schema.Union([Schema.String, Schema.Literals(["1", "2", "3,1", "10", "0", "1 1", "skip", "cancel", "decline", "> 2", ""])])
      const samples = yield* Arbitrary.sampleEffect(
        formRequests.pipe(Arbitrary.flatMap((request) =>
          Arbitrary.array(Arbitrary.schema(Line), { maxLength: 6 }).pipe(Arbitrary.map((lines) => [request, lines] as const))
        )),
        { count: 500, seed: 36 }
      )
      for (const [request, lines] of samples) {
        const reading = readReply(request, ownLines(lines.join("\n")))
        if (reading._tag === "Answer") expect(Result.isSuccess(checkAnswer(request, { answers: reading.answers }))).toBe(true)
        if (reading._tag === "Unusable") expect(reading.reason).not.toBe("")
      }
    }))
})
