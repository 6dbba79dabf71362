/**
 * SPEC "Vocabulary, second edition", secrets, in the core: the answer item
 * of a secret question holds `secret` (an Effect `Redacted`), `selected: []`
 * and no `custom`; the model reads `{"id","secret":"received"}`; forms
 * (MCP, ACP) refuse a secret before anything is sent; a durable ask refuses
 * it; an answer from JSON (the web page's POST) may carry it as a string;
 * the caller's JSON holds the value.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Redacted, Result, Schema, Stream } from "effect"
import {
  type AskUserQuestionAnswer,
  AskUserQuestionHandlers,
  type AskUserQuestionRequest,
  AskUserQuestionResultJson,
  AskUserQuestionToolkit,
  checkAnswer,
  formRefusal,
  makeUserInteractionClient,
  ScriptedProvider,
  toElicitationForm,
  UserInteraction
} from "effect-user-interaction"
import { AcpProvider } from "effect-user-interaction/acp"
import { DurableInbox, DurableProvider, DurableStore } from "effect-user-interaction/durable"
import { WebProvider } from "effect-user-interaction/web"
import { callerJson } from "../src/internal/secrets.js"
import { inProcess as acpInProcess } from "./acpHarness.js"
import { eras, inProcess as mcpInProcess } from "./support/mcpClient.js"
import { openEvents, postJson } from "./support/webClient.js"

const value = "hunter2-correct-horse"

const request: AskUserQuestionRequest = {
  questions: [
    { id: "user", question: "User name?" },
    { id: "token", question: "Deploy token?", secret: true },
    { id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] }
  ]
}

const failureOf = (r: Result.Result<unknown, { readonly message: string }>) => {
  if (Result.isSuccess(r)) throw new Error("expected a failure")
  return r.failure.message
}

/** The value as checkAnswer returns it for the token question. */
const tokenOf = (answer: AskUserQuestionAnswer) => answer.answers.find((item) => item.id === "token")

describe("the answer rules for a secret question", () => {
  it("take the secret as a Redacted, or as a plain string from JSON, wrapping it; selected [] and no custom", () => {
    for (const secret of [Redacted.make(value), value]) {
      const checked = checkAnswer(request, {
        answers: [{ id: "user", selected: [], custom: "ana" }, { id: "token", selected: [], secret }, { id: "go", selected: ["yes"] }]
      })
      expect(Result.isSuccess(checked)).toBe(true)
      const item = tokenOf(Result.getOrThrow(checked))!
      expect(Object.keys(item)).toEqual(["id", "selected", "secret"])
      expect(Redacted.isRedacted(item.secret)).toBe(true)
      expect(Redacted.value(item.secret!)).toBe(value)
      expect(String(item.secret)).toBe("<redacted>")
      expect(JSON.stringify(Result.getOrThrow(checked))).not.toContain(value)
    }
  })

  it("turn custom text a provider gave (one that knows nothing of secrets) into the secret", () => {
    const checked = checkAnswer(request, {
      answers: [{ id: "user", selected: [] }, { id: "token", selected: [], custom: value }, { id: "go", selected: [] }]
    })
    const item = tokenOf(Result.getOrThrow(checked))!
    expect(item.custom).toBeUndefined()
    expect(Redacted.value(item.secret!)).toBe(value)
  })

  it("read an empty secret, or blank custom text, as a skip", () => {
    for (const token of [{ secret: "" }, { secret: Redacted.make("") }, { custom: "  " }, {}]) {
      const checked = checkAnswer(request, {
        answers: [{ id: "user", selected: [] }, { id: "token", selected: [], ...token }, { id: "go", selected: [] }]
      })
      expect(tokenOf(Result.getOrThrow(checked))).toEqual({ id: "token", selected: [] })
    }
  })

  it("refuse a secret on a question that is not secret, both a secret and custom text, and a choice; never quoting the value", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ answers: [{ id: "user", selected: [], secret: value }, { id: "token", selected: [] }, { id: "go", selected: [] }] },
        "\"user\" is not a secret question, but its answer holds a secret"],
      [{ answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: value, custom: "x" }, { id: "go", selected: [] }] },
        "\"token\" has both a secret and custom text"],
      [{ answers: [{ id: "user", selected: [] }, { id: "token", selected: [value] }, { id: "go", selected: [] }] },
        "is not an option of \"token\""],
      [{ answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: 42 }, { id: "go", selected: [] }] },
        "The answer does not decode: answers[1].secret"]
    ]
    for (const [answer, reason] of cases) {
      const message = failureOf(checkAnswer(request, answer))
      expect(message).toContain(reason)
      // A value offered as a choice is named as a label would be; as a secret it never is.
      if (!reason.includes("is not an option")) expect(message).not.toContain(value)
    }
  })
})

describe("asking a secret question", () => {
  const secretAnswer = { answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: Redacted.make(value) }, { id: "go", selected: ["no"] }] }

  it.effect("ScriptedProvider answers it; the caller gets the Redacted value", () =>
    Effect.gen(function*() {
      const answer = yield* UserInteraction.ask(request)
      expect(Redacted.value(tokenOf(answer)!.secret!)).toBe(value)
    }).pipe(Effect.provide(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(secretAnswer))))))

  it("a Promise-world provider may hand it as a plain string", async () => {
    const client = makeUserInteractionClient()
    client.registerProvider({
      ask: async () => ({ answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: value as never }, { id: "go", selected: [] }] })
    })
    const answer = await client.ask(request)
    expect(Redacted.value(tokenOf(answer)!.secret!)).toBe(value)
    await client.dispose()
  })

  it.effect("the model reads {\"id\",\"secret\":\"received\"}, never the value; the harness keeps it", () =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      const [result] = yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", {
        questions: request.questions
      } as never))
      expect(result?.isFailure).toBe(false)
      expect(result?.encodedResult).toEqual({
        answers: [{ id: "user", selected: [] }, { id: "token", secret: "received" }, { id: "go", selected: ["no"] }]
      })
      expect(JSON.stringify(result?.encodedResult)).not.toContain(value)
      const kept = result?.result as AskUserQuestionAnswer
      expect(Redacted.value(tokenOf(kept)!.secret!)).toBe(value)
    }).pipe(Effect.provide(AskUserQuestionHandlers.pipe(
      Layer.provideMerge(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed(secretAnswer))))
    ))))

  it("what the model read decodes back with the secret as Redacted(\"received\"): the value never left", () => {
    const decoded = Schema.decodeUnknownSync(AskUserQuestionResultJson)({
      answers: [{ id: "token", secret: "received" }, { id: "go", selected: ["no"] }],
      defaulted: true,
      note: "…"
    })
    expect(decoded.defaulted).toBe(true)
    expect(decoded.answers[1]).toEqual({ id: "go", selected: ["no"] })
    expect(Redacted.value(decoded.answers[0]!.secret!)).toBe("received")
  })

  it("the caller's JSON (ask-user's stdout) holds the value itself, and only for the secret item", () => {
    const json = callerJson(Result.getOrThrow(checkAnswer(request, secretAnswer)))
    expect(json).toEqual({ answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: value }, { id: "go", selected: ["no"] }] })
    const plain = { answers: [{ id: "go", selected: ["no"] }] }
    expect(callerJson(plain)).toBe(plain)
  })
})

describe("an answer from JSON", () => {
  it.live("the web page's POST may carry the secret as a string: the asker gets it Redacted, the event stream never", () =>
    Effect.gen(function*() {
      const token = "test-token"
      const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ token })))
      const web = Context.get(context, WebProvider)
      const events = yield* Effect.promise(() => openEvents(web.port, token))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(request).pipe(Effect.provideContext(context)))
      const asked = yield* Effect.promise(() => events.next((e) => e.event === "asked"))
      const id = (asked.data as { readonly id: string }).id
      const reply = yield* Effect.promise(() =>
        postJson(web.port, `/api/questions/${id}/answer`, token, {
          answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: value }, { id: "go", selected: ["yes"] }]
        })
      )
      expect(reply.status).toBe(200)
      const answer = yield* Fiber.join(fiber)
      expect(Redacted.value(tokenOf(answer)!.secret!)).toBe(value)
      const resolved = yield* Effect.promise(() => events.next((e) => e.event === "resolved"))
      expect(resolved.data).toEqual({ id, outcome: "answered" })
      expect(JSON.stringify([asked, resolved])).not.toContain(value)
      events.close()
    }))
})

describe("forms refuse a secret", () => {
  it("formRefusal names the question and the secret page it needs; toElicitationForm throws it", () => {
    const refused = formRefusal(request, "MCP")
    expect(refused?.code).toBe("PROVIDER_FAILED")
    expect(refused?.message).toBe(
      "The question \"token\" is secret: asking it through MCP needs a secret page (URL-mode elicitation), " +
        "and this provider has none; nothing was sent."
    )
    expect(() => toElicitationForm(request)).toThrow("needs a secret page")
    expect(formRefusal({ questions: [request.questions[0]!] }, "MCP")).toBeUndefined()
  })

  it.live.each(eras)("%s: McpProvider fails PROVIDER_FAILED and sends no form", (era) =>
    Effect.gen(function*() {
      const h = yield* mcpInProcess({ era, human: () => ({ action: "accept", content: {} }) })
      const outcome = yield* Effect.promise(() => h.ask({ questions: request.questions }))
      expect(outcome.isError).toBe(true)
      expect(outcome.json).toMatchObject({ code: "PROVIDER_FAILED", message: expect.stringContaining("needs a secret page") })
      expect(h.forms).toEqual([])
      expect(h.sent.some((message) => "method" in message && message.method === "elicitation/create")).toBe(false)
    }))

  it.live("AcpProvider fails PROVIDER_FAILED and sends no form, shown as a failed tool call", () =>
    Effect.gen(function*() {
      const pair = yield* acpInProcess(() => ({ action: "accept", content: {} }))
      const error = yield* UserInteraction.ask({ ...request, agent: { id: "s1" } }).pipe(
        Effect.flip,
        Effect.provide(UserInteraction.layerWith(AcpProvider.layer({ client: pair.agent.client, clientCapabilities: pair.capabilities })))
      )
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("through ACP needs a secret page")
      expect(pair.seen).toEqual([])
    }))
})

describe("a durable ask", () => {
  it.live("with a secret question is INVALID_REQUEST, and nothing is stored", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(UserInteraction.ask({ ...request, id: "s1" }))
      expect(error.code).toBe("INVALID_REQUEST")
      expect(error.message).toBe(
        "Invalid request: questions[1].secret: a secret cannot be kept in the store; ask it live, not durably."
      )
      expect(yield* (yield* DurableInbox).pending).toEqual([])
      expect((yield* Effect.flip((yield* DurableInbox).status("s1"))).code).toBe("UNKNOWN_ASK")
    }).pipe(Effect.provide(
      Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer()), DurableInbox.layer).pipe(
        Layer.provideMerge(DurableStore.layer("sqlite::memory:"))
      )
    )))
})
