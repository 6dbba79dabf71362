import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { Chat, LanguageModel, type Prompt, Tool } from "effect/ai"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  AskingAgent,
  AskUserQuestionArgs,
  type AskUserQuestionAnswer,
  AskUserQuestionHandlers,
  type AskUserQuestionRequest,
  AskUserQuestionTool,
  AskUserQuestionToolkit,
  errorCodes,
  ScriptedProvider,
  UserInteraction,
  type UserInteractionError,
  UserInteractionErrorJson,
  type UserInteractionProvider
} from "effect-user-interaction"
import { askThroughModelTurn } from "../src/cli/toolScriptedTurn.js"
import { makeProbe, probeProvider } from "./support/providers.js"

/**
 * A fake language model: its first response calls `ask_user_question` with
 * `params`; later responses are plain text. It records every request it gets,
 * so a test can read the tool result the model receives on its next request.
 */
const scriptedModel = (params: unknown) =>
  Effect.gen(function*() {
    const requests: Array<LanguageModel.ProviderOptions> = []
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          requests.push(options)
          return requests.length === 1
            ? [{ type: "tool-call" as const, id: "call_1", name: "ask_user_question", params }]
            : [{ type: "text" as const, text: "thanks" }]
        }),
      streamText: () => Stream.empty
    })
    return { model, requests }
  })

/**
 * One model turn that calls the tool, then the model's next request: returns
 * the tool result the model receives, and the tool results the harness got.
 */
const turnWithTool = (params: unknown) =>
  Effect.gen(function*() {
    const { model, requests } = yield* scriptedModel(params)
    const chat = yield* Chat.empty
    const response = yield* chat.generateText({ prompt: "Set up the project", toolkit: AskUserQuestionToolkit }).pipe(
      Effect.provideService(LanguageModel.LanguageModel, model)
    )
    yield* chat.generateText({ prompt: [] }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
    const toolMessage = requests[1]?.prompt.content.find((message) => message.role === "tool")
    const part = toolMessage?.content.find((p): p is Prompt.ToolResultPart => p.type === "tool-result")
    if (part === undefined) return yield* Effect.die("the model received no tool result")
    expect(part).toMatchObject({ id: "call_1", name: "ask_user_question" })
    return { part, harnessResults: response.toolResults }
  })

/** The tool result the model receives on its next request. */
const toolResultSeenByModel = (params: unknown) => Effect.map(turnWithTool(params), ({ part }) => part)

const withProvider = (provider: Layer.Layer<UserInteractionProvider | ScriptedProvider>) =>
  Effect.provide(AskUserQuestionHandlers.pipe(Layer.provideMerge(UserInteraction.layerWith(provider))))

const answering = (answer: (request: AskUserQuestionRequest) => AskUserQuestionAnswer) =>
  withProvider(ScriptedProvider.layer((request) => Effect.sync(() => answer(request))))

const failingWith = (error: UserInteractionError) => withProvider(ScriptedProvider.layer(() => Effect.fail(error)))

const dbQuestion = {
  id: "db",
  question: "Which database?",
  options: [{ label: "Postgres (Recommended)", description: "Relational" }, { label: "SQLite" }]
}

/** Asserts the model received exactly `{ name, code, message }` as a failure. */
const expectModelError = (part: Prompt.ToolResultPart, code: string) => {
  expect(part.isFailure).toBe(true)
  expect(Object.keys(part.result as object)).toEqual(["name", "code", "message"])
  expect(part.result).toMatchObject({ name: "UserInteractionError", code })
  return part.result as { readonly message: string }
}

describe("AskUserQuestionTool: what the model is shown", () => {
  it("is named ask_user_question and fails with results the model reads", () => {
    expect(AskUserQuestionTool.name).toBe("ask_user_question")
    expect(AskUserQuestionTool.failureMode).toBe("return")
    expect(Object.keys(AskUserQuestionToolkit.tools)).toEqual(["ask_user_question"])
    // Optional keys are not strict-mode JSON Schema, so providers must not send it as strict.
    expect(Tool.getStrictMode(AskUserQuestionTool)).toBe(false)
  })

  it("shows a JSON Schema generated from AskUserQuestionArgs, snake case, without extra fields", () => {
    const schema = Tool.getJsonSchema(AskUserQuestionTool)
    expect(schema).toEqual(Tool.getJsonSchemaFromSchema(AskUserQuestionArgs))
    expect(schema).toMatchObject({
      type: "object",
      required: ["questions"],
      properties: {
        questions: {
          type: "array",
          items: {
            type: "object",
            required: ["id", "question"],
            properties: {
              id: { type: "string", minLength: 1 },
              question: { type: "string", minLength: 1 },
              header: { type: "string" },
              options: { type: "array", items: { $ref: "#/$defs/AskUserQuestionOption" } },
              multi_select: { type: "boolean" }
            }
          }
        }
      },
      $defs: {
        AskUserQuestionOption: {
          type: "object",
          required: ["label"],
          properties: { label: { type: "string", minLength: 1 }, description: { type: "string" } }
        }
      }
    })
    const json = schema as {
      readonly properties: { readonly questions: { readonly items: { readonly properties: object } } }
      readonly $defs: { readonly AskUserQuestionOption: { readonly properties: object } }
    }
    // Second edition: recommended, preview, secret, timeout and on_timeout; never answerableBy, agent or signal.
    expect(Object.keys(json.properties)).toEqual(["questions", "timeout", "on_timeout"])
    expect(Object.keys(json.properties.questions.items.properties)).toEqual([
      "id",
      "question",
      "header",
      "options",
      "multi_select",
      "secret"
    ])
    expect(Object.keys(json.$defs.AskUserQuestionOption.properties)).toEqual(["label", "description", "recommended", "preview"])
  })

  it("tells the model when and how to ask", () => {
    const text = Tool.getDescription(AskUserQuestionTool) ?? ""
    for (const rule of ["cannot proceed safely", "short", "snake_case id", "Prefer options", "\" (Recommended)\"", "Never add an \"Other\" option"]) {
      expect(text).toContain(rule)
    }
  })

  it.effect("is offered to the model on each request of a turn", () =>
    Effect.gen(function*() {
      const { model, requests } = yield* scriptedModel({ questions: [dbQuestion] })
      yield* LanguageModel.generateText({ prompt: "hi", toolkit: AskUserQuestionToolkit }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      expect(requests[0]?.tools.map((tool) => tool.name)).toEqual(["ask_user_question"])
    }).pipe(answering(() => ({ answers: [{ id: "db", selected: ["SQLite"] }] }))))
})

describe("AskUserQuestionTool: answers", () => {
  it.effect("maps multi_select (and multiSelect) to multiSelect for the provider", () =>
    Effect.gen(function*() {
      yield* toolResultSeenByModel({
        questions: [
          { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "billing" }], multi_select: true },
          { id: "extras", question: "Extras?", options: [{ label: "ci" }, { label: "docs" }], multiSelect: true },
          { id: "single", question: "Single?", header: "One", options: [{ label: "a" }], multi_select: false }
        ]
      })
      const [request] = yield* ScriptedProvider.requests
      expect(request?.questions).toEqual([
        { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "billing" }], multiSelect: true },
        { id: "extras", question: "Extras?", options: [{ label: "ci" }, { label: "docs" }], multiSelect: true },
        { id: "single", question: "Single?", header: "One", options: [{ label: "a" }], multiSelect: false }
      ])
    }).pipe(answering((request) => ({ answers: request.questions.map((q) => ({ id: q.id, selected: [] })) }))))

  it.effect("returns the answer as compact JSON: chosen label, multi-select, custom text and skip", () =>
    Effect.gen(function*() {
      const part = yield* toolResultSeenByModel({
        questions: [
          dbQuestion,
          { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "billing" }, { label: "search" }], multi_select: true },
          { id: "name", question: "Project name?" },
          { id: "license", question: "License?", options: [{ label: "MIT" }, { label: "Apache-2.0" }] },
          { id: "ci", question: "CI?", options: [{ label: "GitHub Actions" }] }
        ]
      })
      expect(part.isFailure).toBe(false)
      expect(JSON.stringify(part.result)).toBe(
        "{\"answers\":[{\"id\":\"db\",\"selected\":[\"Postgres (Recommended)\"]}," +
          "{\"id\":\"features\",\"selected\":[\"auth\",\"search\"]}," +
          "{\"id\":\"name\",\"selected\":[],\"custom\":\"atlas\"}," +
          "{\"id\":\"license\",\"selected\":[],\"custom\":\"BSD-3-Clause\"}," +
          "{\"id\":\"ci\",\"selected\":[]}]}"
      )
    }).pipe(answering(() => ({
      // In another order, with a blank custom on the skipped question: the seam normalizes both.
      answers: [
        { id: "ci", selected: [], custom: "  " },
        { id: "license", selected: [], custom: "BSD-3-Clause" },
        { id: "name", selected: [], custom: "atlas" },
        { id: "features", selected: ["auth", "search"] },
        { id: "db", selected: ["Postgres (Recommended)"] }
      ]
    }))))

  it.effect("passes the agent set around the turn, never one from the model's arguments", () =>
    Effect.gen(function*() {
      yield* toolResultSeenByModel({ questions: [dbQuestion], agent: { id: "model-made-this-up" } }).pipe(
        Effect.provideService(AskingAgent, { id: "session-7", name: "coder" })
      )
      yield* toolResultSeenByModel({ questions: [dbQuestion], agent: { id: "model-made-this-up" } })
      const requests = yield* ScriptedProvider.requests
      expect(requests.map((r) => r.agent)).toEqual([{ id: "session-7", name: "coder" }, undefined])
    }).pipe(answering(() => ({ answers: [{ id: "db", selected: ["SQLite"] }] }))))
})

describe("AskUserQuestionTool: failures reach the model as { name, code, message }", () => {
  it.effect("NO_PROVIDER", () =>
    Effect.gen(function*() {
      const error = expectModelError(yield* toolResultSeenByModel({ questions: [dbQuestion] }), "NO_PROVIDER")
      expect(error.message).toBe("No user interaction provider is registered.")
    }).pipe(Effect.provide(AskUserQuestionHandlers.pipe(Layer.provideMerge(UserInteraction.layer)))))

  it.effect("EMPTY_QUESTIONS, without calling the provider", () =>
    Effect.gen(function*() {
      expectModelError(yield* toolResultSeenByModel({ questions: [] }), "EMPTY_QUESTIONS")
      expect(yield* ScriptedProvider.requests).toEqual([])
    }).pipe(answering(() => ({ answers: [] }))))

  it.effect("INVALID_REQUEST naming the path of malformed arguments, without calling the provider", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ questions: [dbQuestion, { id: "x", question: "X?", options: [{ label: "" }] }] }, "questions[1].options[0].label"],
        [{ questions: [{ id: "db", question: "A?" }, { id: "db", question: "B?" }] }, "questions[1].id"],
        [{ questions: [{ id: 7, question: "A?" }] }, "questions[0].id"],
        [{ questions: "Which database?" }, "questions"],
        [{ question: "Which database?" }, "questions"],
        ["{\"questions\":[]}", "(root)"],
        [null, "(root)"]
      ]
      for (const [params, path] of cases) {
        const error = expectModelError(yield* toolResultSeenByModel(params), "INVALID_REQUEST")
        expect(error.message).toContain(path)
      }
      expect(yield* ScriptedProvider.requests).toEqual([])
    }).pipe(answering(() => ({ answers: [] }))))

  it.effect("ASK_CANCELLED when the human dismisses the request", () =>
    Effect.gen(function*() {
      const { harnessResults, part } = yield* turnWithTool({ questions: [dbQuestion] })
      expect(expectModelError(part, "ASK_CANCELLED").message).toBe("Esc pressed")
      // The harness itself gets the error class, for catchTag-style routing.
      expect(harnessResults[0]?.result).toBeInstanceOf(AskCancelled)
    }).pipe(failingWith(new AskCancelled({ message: "Esc pressed" }))))

  it.effect("ASK_DECLINED when the human refuses", () =>
    Effect.gen(function*() {
      expectModelError(yield* toolResultSeenByModel({ questions: [dbQuestion] }), "ASK_DECLINED")
    }).pipe(failingWith(new AskDeclined())))

  it.effect("ASK_ABORTED when the human aborts the prompt (Ctrl+C)", () =>
    Effect.gen(function*() {
      expectModelError(yield* toolResultSeenByModel({ questions: [dbQuestion] }), "ASK_ABORTED")
    }).pipe(failingWith(new AskAborted({ message: "Ctrl+C" }))))

  it.effect("INVALID_ANSWER when the provider breaks the answer rules, keeping the cause on the harness's side", () =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      const results = yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", { questions: [dbQuestion] }))
      const last = results.at(-1)
      expect(last?.isFailure).toBe(true)
      expect(last?.encodedResult).toEqual({
        name: "UserInteractionError",
        code: "INVALID_ANSWER",
        message: expect.stringContaining("\"MySQL\" is not an option of \"db\"")
      })
      // The harness gets the error class itself.
      expect(last?.result).toMatchObject({ _tag: "InvalidAnswer", code: "INVALID_ANSWER" })
    }).pipe(answering(() => ({ answers: [{ id: "db", selected: ["MySQL"] }] }))))

  it.effect("a message quoting the model's own long text reaches it as one line of at most 300 characters", () =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      const results = yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", { questions: [dbQuestion] }))
      const last = results.at(-1)
      const message = (last?.encodedResult as { message: string }).message
      expect(message).toMatch(/^The answer breaks the answer rules: "M+…$/)
      expect(message).toHaveLength(300)
      // The harness keeps the whole message.
      expect((last?.result as { message: string }).message.length).toBeGreaterThan(100_000)
    }).pipe(answering(() => ({ answers: [{ id: "db", selected: ["M".repeat(100_000)] }] }))))
})

describe("AskUserQuestionTool: interruption", () => {
  it.effect("interrupting the model turn takes the provider's prompt down", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const { model, requests } = yield* scriptedModel({ questions: [dbQuestion] })
      const turn = yield* LanguageModel.generateText({ prompt: "hi", toolkit: AskUserQuestionToolkit }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model),
        Effect.provide(AskUserQuestionHandlers.pipe(Layer.provideMerge(UserInteraction.layerWith(probeProvider(probe, "tty"))))),
        Effect.forkChild
      )
      yield* Deferred.await(probe.asked)
      expect(probe.finalized).toEqual([])
      const exit = yield* Fiber.interrupt(turn).pipe(Effect.andThen(Fiber.await(turn)))
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(probe.finalized).toEqual(["tty: prompt taken down", "tty: provider closed"])
      expect(requests).toHaveLength(1)
    }))
})

describe("AskUserQuestionTool: any arguments settle into an answer or exactly { name, code, message }", () => {
  const answerAll = answering((request) => ({
    answers: request.questions.map((q) =>
      q.options !== undefined && q.options.length > 0 ? { id: q.id, selected: [q.options[0]!.label] } : { id: q.id, selected: [], custom: "free text" }
    )
  }))
  const settles = (params: unknown) =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      const results = yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", params as never))
      expect(results).toHaveLength(1)
      const [result] = results
      if (result!.isFailure) {
        expect(Object.keys(result!.encodedResult as object)).toEqual(["name", "code", "message"])
        const error = Schema.decodeUnknownSync(UserInteractionErrorJson)(result!.encodedResult)
        expect(["INVALID_REQUEST", "EMPTY_QUESTIONS"]).toContain(error.code)
      } else {
        const questions = (params as { readonly questions: ReadonlyArray<{ readonly id: string }> }).questions
        expect((result!.encodedResult as AskUserQuestionAnswer).answers.map((a) => a.id)).toEqual(questions.map((q) => q.id))
      }
      return true
    }).pipe(answerAll)

  it.effect.prop("well-typed arguments", [AskUserQuestionArgs], ([args]) => settles(args), {
    arbitrary: { runs: 150, seed: 20 }
  })

  it.effect.prop("any JSON", [Schema.Json], ([json]) => settles(json), { arbitrary: { runs: 150, seed: 21 } })
})

describe("UserInteractionErrorJson", () => {
  it("round-trips every error code to its class and back to exactly { name, code, message }", () => {
    for (const code of errorCodes) {
      const json = { name: "UserInteractionError", code, message: `m ${code}` }
      const error = Schema.decodeUnknownSync(UserInteractionErrorJson)(json)
      expect(error.code).toBe(code)
      expect(Schema.encodeSync(UserInteractionErrorJson)(error)).toEqual(json)
    }
  })

  it("drops the cause from what the model reads", () => {
    const error = new AskCancelled({ message: "closed", cause: new Error("secret stack") })
    expect(Schema.encodeSync(UserInteractionErrorJson)(error)).toEqual({ name: "UserInteractionError", code: "ASK_CANCELLED", message: "closed" })
  })
})

describe("askThroughModelTurn (the demo agent's scripted model turn)", () => {
  const request: AskUserQuestionRequest = {
    agent: { id: "demo", name: "Demo agent" },
    questions: [dbQuestion, { id: "features", question: "Which?", options: [{ label: "auth" }, { label: "ci" }], multiSelect: true }]
  }

  it.effect("asks through the tool and returns the answer the model reads", () =>
    Effect.gen(function*() {
      const answer = yield* askThroughModelTurn(request)
      expect(answer).toEqual({ answers: [{ id: "db", selected: ["SQLite"] }, { id: "features", selected: ["auth", "ci"] }] })
      expect(yield* ScriptedProvider.requests).toEqual([request])
    }).pipe(answering(() => ({ answers: [{ id: "db", selected: ["SQLite"] }, { id: "features", selected: ["auth", "ci"] }] }))))

  it.effect("fails with the error class the model would read", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(askThroughModelTurn(request))
      expect(error).toBeInstanceOf(AskCancelled)
    }).pipe(failingWith(new AskCancelled())))
})
