import { afterEach, describe, expect, it } from "@effect/vitest"
import { getEventListeners } from "node:events"
import { Effect, Schema } from "effect"
import {
  AskCancelled,
  AskUserQuestionArgs,
  type AskUserQuestionAnswer,
  type AskUserQuestionRequest,
  HarnessError,
  makeUserInteractionClient,
  type PromiseProvider,
  type UserInteractionClient
} from "effect-user-interaction"

const dbArgs = {
  questions: [{ id: "db", question: "Which database?", options: [{ label: "Postgres (Recommended)" }, { label: "SQLite" }] }]
}

/**
 * A Promise-world tool runner as harnesses write them: it keeps `{ name, code, message }`
 * of whatever the tool throws and hands that to the model as the tool's error result.
 */
const runTool = async (tool: () => Promise<unknown>) => {
  try {
    return { isError: false, text: JSON.stringify(await tool()) }
  } catch (e) {
    const { code, message, name } = e as { name: string; code: string; message: string }
    return { isError: true, text: JSON.stringify({ name, code, message }) }
  }
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail("expected a rejection"),
    (error: unknown) => {
      expect(error).toBeInstanceOf(HarnessError)
      return error as HarnessError
    }
  )

/** A provider that records requests and answers with `answer`, or waits until its signal aborts. */
const recording = (answer?: (req: AskUserQuestionRequest) => unknown) => {
  const requests: Array<AskUserQuestionRequest & { readonly signal: AbortSignal }> = []
  const provider: PromiseProvider = {
    ask: (req) => {
      requests.push(req)
      if (answer !== undefined) return Promise.resolve().then(() => answer(req) as never)
      return new Promise((_, reject) => req.signal.addEventListener("abort", () => reject(req.signal.reason), { once: true }))
    }
  }
  return { provider, requests }
}

const waitFor = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(condition()).toBe(true)
}

describe("UserInteractionClient.executeAskUserQuestion", () => {
  let client: UserInteractionClient
  const fresh = () => (client = makeUserInteractionClient())
  afterEach(() => client?.dispose())

  it("resolves with the answer; the provider sees camel case and the runner's agent, never the model's", async () => {
    fresh()
    const { provider, requests } = recording((req) => ({ answers: req.questions.map((q) => ({ id: q.id, selected: [] })) }))
    client.registerProvider(provider)
    const args = {
      questions: [{ id: "features", question: "Which?", options: [{ label: "auth" }, { label: "ci" }], multi_select: true }],
      agent: { id: "forged" }
    }
    const answer = await client.executeAskUserQuestion(args, { agent: { id: "session-1" } })
    expect(answer).toEqual({ answers: [{ id: "features", selected: [] }] })
    expect(requests[0]?.questions[0]?.multiSelect).toBe(true)
    expect(requests[0]?.agent).toEqual({ id: "session-1" })
    expect(await client.executeAskUserQuestion(args)).toEqual(answer)
    expect(requests[1]?.agent).toBeUndefined()
  })

  it("rejects with the error classes, which a runner keeping { name, code } routes unchanged", async () => {
    fresh()
    expect(await runTool(() => client.executeAskUserQuestion(dbArgs))).toEqual({
      isError: true,
      text: "{\"name\":\"UserInteractionError\",\"code\":\"NO_PROVIDER\",\"message\":\"No user interaction provider is registered.\"}"
    })
    const dispose = client.registerProvider({ ask: () => Promise.reject(new AskCancelled({ message: "Esc pressed" })) })
    const cancelled = await rejection(client.executeAskUserQuestion(dbArgs))
    expect(cancelled).toBeInstanceOf(AskCancelled)
    expect(JSON.stringify(cancelled)).toBe("{\"name\":\"UserInteractionError\",\"code\":\"ASK_CANCELLED\",\"message\":\"Esc pressed\"}")
    dispose()
    client.registerProvider({ ask: () => Promise.reject(new Error("socket closed")) })
    const failed = await rejection(client.executeAskUserQuestion(dbArgs))
    expect(failed.code).toBe("PROVIDER_FAILED")
    expect(JSON.parse((await runTool(() => client.executeAskUserQuestion({ questions: [] }))).text)).toEqual({
      name: "UserInteractionError",
      code: "EMPTY_QUESTIONS",
      message: "The request has no questions."
    })
  })

  it("rejects malformed arguments with INVALID_REQUEST naming the path, without calling the provider", async () => {
    fresh()
    const { provider, requests } = recording(() => ({ answers: [] }))
    client.registerProvider(provider)
    const invalid = await rejection(client.executeAskUserQuestion({ questions: [{ id: "a", question: "A?", options: [{}] }] }))
    expect(invalid.code).toBe("INVALID_REQUEST")
    expect(invalid.message).toContain("questions[0].options[0].label")
    expect((await rejection(client.executeAskUserQuestion(undefined))).code).toBe("INVALID_REQUEST")
    expect(requests).toEqual([])
  })

  it("checks an aborted signal before the arguments, and never calls the provider", async () => {
    fresh()
    const { provider, requests } = recording(() => ({ answers: [] }))
    client.registerProvider(provider)
    const signal = AbortSignal.abort()
    expect((await rejection(client.executeAskUserQuestion({ questions: [] }, { signal }))).code).toBe("ASK_ABORTED")
    expect((await rejection(client.executeAskUserQuestion(dbArgs, { signal }))).code).toBe("ASK_ABORTED")
    expect(requests).toEqual([])
  })

  it("aborting the signal during the ask rejects ASK_ABORTED, aborts the provider's signal and removes listeners", async () => {
    fresh()
    const { provider, requests } = recording()
    client.registerProvider(provider)
    const controller = new AbortController()
    const pending = client.executeAskUserQuestion(dbArgs, { signal: controller.signal })
    await waitFor(() => requests.length === 1)
    expect(requests[0]?.signal.aborted).toBe(false)
    controller.abort()
    expect((await rejection(pending)).code).toBe("ASK_ABORTED")
    expect(requests[0]?.signal.aborted).toBe(true)
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
  })

  it("disposing the client rejects a pending call with ASK_ABORTED", async () => {
    fresh()
    const { provider, requests } = recording()
    client.registerProvider(provider)
    const pending = client.executeAskUserQuestion(dbArgs)
    await waitFor(() => requests.length === 1)
    await client.dispose()
    expect((await rejection(pending)).code).toBe("ASK_ABORTED")
    expect(requests[0]?.signal.aborted).toBe(true)
  })

  const ArgsOrJson = Schema.Union([AskUserQuestionArgs, Schema.Json])
  it.effect.prop("any arguments resolve an answer or reject with an error class", [ArgsOrJson], ([args]) =>
    Effect.promise(async () => {
      const local = makeUserInteractionClient()
      local.registerProvider({ ask: async (req) => ({ answers: req.questions.map((q) => ({ id: q.id, selected: [] })) }) })
      const outcome = await runTool(() => local.executeAskUserQuestion(args))
      await local.dispose()
      if (outcome.isError) {
        const error = JSON.parse(outcome.text) as { name: string; code: string }
        expect(error.name).toBe("UserInteractionError")
        expect(["INVALID_REQUEST", "EMPTY_QUESTIONS"]).toContain(error.code)
      } else {
        const ids = (args as AskUserQuestionArgs).questions.map((q) => q.id)
        expect((JSON.parse(outcome.text) as AskUserQuestionAnswer).answers.map((a) => a.id)).toEqual(ids)
      }
      return true
    }), { arbitrary: { runs: 150, seed: 22 } })
})
