/**
 * McpProvider and the `ask_user_question` MCP tool, in process: the SDK's own
 * `Client` (its elicitation handler plays the human) linked to the server with
 * `InMemoryTransport`.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  InMemoryTransport,
  type JSONRPCMessage,
  McpServer,
  type Transport
} from "@modelcontextprotocol/server"
import { Arbitrary, Effect, Exit, Fiber, Layer, ManagedRuntime, Schema, Scope, Stream } from "effect"
import { Tool } from "effect/ai"
import { type AskUserQuestionAnswer, AskUserQuestionItem, type AskUserQuestionRequest, AskUserQuestionTool, toElicitationContent, UserInteraction } from "effect-user-interaction"
import { McpProvider } from "effect-user-interaction/mcp"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { vi } from "vitest"
import { brief } from "../src/internal/brief.js"
import { causeOf, sdkRequestTimeoutMillis } from "../src/mcp/elicit.js"
import { serveAskUser } from "../src/mcp/server.js"
import { toContent20250618 } from "../src/mcp/form20250618.js"
import {
  connectClient,
  connectedServer,
  type Era,
  eras,
  type Human,
  inProcess,
  rawClient,
  recordedPair,
  type Reply,
  waitFor
} from "./support/mcpClient.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

const accept = (content: Record<string, unknown>): Reply => ({ action: "accept", content })
const answering = (request: AskUserQuestionRequest, answer: Parameters<typeof toElicitationContent>[1]): Human => () =>
  accept(toElicitationContent(request, answer))
const isRequest = (method: string) => (m: JSONRPCMessage): m is JSONRPCMessage & { id: number } =>
  "method" in m && m.method === method && "id" in m
const errorCode = (json: any) => ({ name: json.name, code: json.code })

/**
 * An app's own MCP server on `transport`, wired with McpProvider, serving one tool `deploy` whose
 * handler runs through `McpProvider.handleToolCall`; closed with the test's scope.
 */
const serveAppTool = (
  transport: Transport,
  description: string,
  handler: Effect.Effect<CallToolResult, unknown, UserInteraction>
) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const handle = serveStdio(() => {
      const server = new McpServer({ name: "deployer", version: "1.0.0" })
      const runtime = ManagedRuntime.make(UserInteraction.layerWith(McpProvider.layer(server)))
      server.registerTool("deploy", { description }, (ctx) => runtime.runPromise(McpProvider.handleToolCall(ctx, handler)))
      server.server.onclose = () => void runtime.dispose()
      return server
    }, { transport })
    yield* Scope.addFinalizer(scope, Effect.promise(() => handle.close()))
  })

describe("ask_user_question over MCP (in process)", () => {
  it.live("lists one tool whose input schema is AskUserQuestionTool's, generated from AskUserQuestionArgs", () =>
    Effect.gen(function*() {
      const h = yield* inProcess()
      const { tools } = yield* Effect.promise(() => h.listTools())
      expect(tools.map((t) => t.name)).toEqual(["ask_user_question"])
      expect(tools[0]!.inputSchema).toEqual(Tool.getJsonSchema(AskUserQuestionTool))
      expect(tools[0]!.description).toBe(Tool.getDescription(AskUserQuestionTool))
      expect(JSON.stringify(tools[0]!.inputSchema)).toContain("multi_select")
    }))

  it.live("accepted form: single, multi and optionless questions come back as the answer, in question order", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ human: answering(batch, batchAnswer) })
      const outcome = yield* Effect.promise(() => h.ask(batch))
      expect(outcome).toEqual({ isError: false, json: batchAnswer })
      const form = h.forms[0]!
      expect(form.message).toContain("Which database?")
      expect(Object.keys(form.requestedSchema.properties)).toEqual([
        "question_1",
        "question_1_custom",
        "question_2",
        "question_2_custom",
        "question_3"
      ])
      expect(form.requestedSchema.required).toEqual(["question_3"])
      expect(form.requestedSchema.properties.question_1).toMatchObject({
        type: "string",
        // The server sends the option's description; SDK 1.32.2 clients drop it (their schema has no such field).
        oneOf: [{ const: "Postgres (Recommended)", title: "Postgres (Recommended)" }, { const: "SQLite", title: "SQLite" }]
      })
      expect(form.requestedSchema.properties.question_2).toMatchObject({ type: "array", items: { anyOf: expect.any(Array) } })
      // On the wire the option keeps its description (docs/mcp.md: which clients show it).
      const sent = h.sent.find(isRequest("elicitation/create")) as any
      expect(sent.params.requestedSchema.properties.question_1.oneOf[0]).toEqual({
        const: "Postgres (Recommended)",
        title: "Postgres (Recommended)",
        description: "Relational"
      })
    }))

  it.live("each elicitation is sent as related to its tools/call (Streamable HTTP routes by it)", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ human: answering(single, singleAnswer) })
      yield* Effect.promise(() => h.ask(single))
      const toolCall = h.received.find(isRequest("tools/call"))!
      const index = h.sent.findIndex(isRequest("elicitation/create"))
      expect(h.relatedTo[index]).toBe(toolCall.id)
    }))

  it.live("custom text overrides the choice; empty fields are skips; multiSelect and multi_select are both accepted", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({
        human: () => accept({ question_1: "SQLite", question_1_custom: "DuckDB, actually", question_3: "" })
      })
      const args = {
        questions: [
          batch.questions[0],
          { ...batch.questions[1], multiSelect: undefined, multi_select: true },
          batch.questions[2]
        ]
      }
      const outcome = yield* Effect.promise(() => h.ask(JSON.parse(JSON.stringify(args))))
      expect(outcome).toEqual({
        isError: false,
        json: {
          answers: [
            { id: "db", selected: [], custom: "DuckDB, actually" },
            { id: "features", selected: [] },
            { id: "name", selected: [] }
          ]
        }
      })
      expect(h.forms[0]!.requestedSchema.properties.question_2).toMatchObject({ type: "array" })
    }))

  it.live("decline is ASK_DECLINED and cancel is ASK_CANCELLED, as { name, code, message } tool errors", () =>
    Effect.gen(function*() {
      const declined = yield* inProcess({ human: () => ({ action: "decline" }) })
      const d = yield* Effect.promise(() => declined.ask(single))
      expect(d.isError).toBe(true)
      expect(Object.keys(d.json).sort()).toEqual(["code", "message", "name"])
      expect(errorCode(d.json)).toEqual({ name: "UserInteractionError", code: "ASK_DECLINED" })
      const cancelled = yield* inProcess({ human: () => ({ action: "cancel" }) })
      const c = yield* Effect.promise(() => cancelled.ask(single))
      expect(c.isError).toBe(true)
      expect(errorCode(c.json)).toEqual({ name: "UserInteractionError", code: "ASK_CANCELLED" })
    }))

  it.live("a client without the elicitation capability gets PROVIDER_FAILED and is sent nothing", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ elicitation: false })
      const outcome = yield* Effect.promise(() => h.ask(single))
      expect(outcome.isError).toBe(true)
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(h.sent.filter((m) => "method" in m && "id" in m)).toEqual([])
    }))

  it.live("`elicitation: {}` (the older spelling) counts as form support", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ elicitation: {}, human: answering(single, singleAnswer) })
      expect(yield* Effect.promise(() => h.ask(single))).toEqual({ isError: false, json: singleAnswer })
    }))

  it.live("content that breaks the form or the answer rules is INVALID_ANSWER", () =>
    Effect.gen(function*() {
      const contents: Array<Record<string, unknown>> = [
        { question_1: "maybe" }, // not an option
        { question_1: 5 }, // wrong type
        { question_1: ["yes", "no"] } // a list for a single-select question
      ]
      for (const content of contents) {
        const h = yield* inProcess({ human: () => accept(content) })
        const outcome = yield* Effect.promise(() => h.ask(single))
        expect(outcome.isError).toBe(true)
        expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
      }
      // A label chosen twice.
      const twice = yield* inProcess({ human: () => accept({ question_2: ["auth", "auth"], question_3: "x" }) })
      const outcome = yield* Effect.promise(() => twice.ask(batch))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
      expect(outcome.json.message).toContain("twice")
    }))

  it.live("arguments that do not decode are INVALID_REQUEST naming the path, or EMPTY_QUESTIONS; nothing is asked", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ human: answering(single, singleAnswer) })
      const bad = yield* Effect.promise(() => h.ask({ questions: [{ id: "a", question: "Q?", options: [{}] }] }))
      expect(errorCode(bad.json)).toEqual({ name: "UserInteractionError", code: "INVALID_REQUEST" })
      expect(bad.json.message).toContain("questions[0].options[0].label")
      const missing = yield* Effect.promise(() => h.ask(undefined))
      expect(errorCode(missing.json)).toEqual({ name: "UserInteractionError", code: "INVALID_REQUEST" })
      const empty = yield* Effect.promise(() => h.ask({ questions: [] }))
      expect(errorCode(empty.json)).toEqual({ name: "UserInteractionError", code: "EMPTY_QUESTIONS" })
      expect(h.forms).toEqual([])
    }))

  it.live("an unknown tool is a protocol error", () =>
    Effect.gen(function*() {
      const h = yield* inProcess()
      const exit = yield* Effect.exit(Effect.promise(() => h.callTool("nope", {})))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("Unknown tool: nope")
    }))

  it.live("the client cancelling the tool call cancels the first elicitation on the wire (never request id 0)", () =>
    Effect.gen(function*() {
      let shown = 0
      const h = yield* inProcess({
        human: (form, signal) =>
          shown++ === 0
            ? new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)))
            : answering(single, singleAnswer)(form, signal)
      })
      const abort = new AbortController()
      const call = h.ask(single, { signal: abort.signal })
      call.catch(() => undefined)
      yield* waitFor(() => h.forms.length === 1)
      abort.abort("the agent moved on")
      yield* waitFor(() => h.cancelled.length === 1)
      const elicitation = h.sent.find(isRequest("elicitation/create"))!
      expect(elicitation.id).not.toBe(0)
      expect(h.sent).toContainEqual(expect.objectContaining({
        method: "notifications/cancelled",
        params: expect.objectContaining({ requestId: elicitation.id })
      }))
      // The same server carries on: the next call is answered.
      expect(yield* Effect.promise(() => h.ask(single))).toEqual({ isError: false, json: singleAnswer })
    }))

  it.live("two concurrent tool calls get their own answers, whatever order the human answers in", () =>
    Effect.gen(function*() {
      const first: AskUserQuestionRequest = { questions: [{ id: "one", question: "First?", options: [{ label: "a" }, { label: "b" }] }] }
      const second: AskUserQuestionRequest = { questions: [{ id: "two", question: "Second?", options: [{ label: "c" }, { label: "d" }] }] }
      const pending = new Map<string, (r: Reply) => void>()
      const h = yield* inProcess({
        human: (form) => new Promise((resolve) => pending.set(form.message.includes("First?") ? "first" : "second", resolve))
      })
      const calls = Promise.all([h.ask(first), h.ask(second)])
      yield* waitFor(() => pending.size === 2)
      pending.get("second")!(accept({ question_1: "d" }))
      pending.get("first")!(accept({ question_1: "b" }))
      const [one, two] = yield* Effect.promise(() => calls)
      expect(one.json).toEqual({ answers: [{ id: "one", selected: ["b"] }] })
      expect(two.json).toEqual({ answers: [{ id: "two", selected: ["d"] }] })
    }))
})

// Random valid requests: schema-generated, then made to pass the request checks
// (unique question ids, unique labels within a question, no blank question text), without
// secret questions, which no form may carry (they fail before anything is sent: tested above).
const requests: Arbitrary.Arbitrary<AskUserQuestionRequest> = Arbitrary.schema(Schema.Struct({
  questions: Schema.NonEmptyArray(AskUserQuestionItem)
})).pipe(Arbitrary.map((raw): AskUserQuestionRequest => ({
  questions: raw.questions.map(({ secret: _secret, ...q }, i) => {
    const question = { ...q, id: `${q.id}#${i}`, question: q.question.trim() === "" ? `${q.question}?` : q.question }
    if (q.options === undefined) return question
    const seen = new Set<string>()
    return { ...question, options: q.options.filter((o) => !seen.has(o.label) && seen.add(o.label)) }
  })
})))

/** Every option chosen (the first one for single-select), typed text for optionless questions. */
const everything = (request: AskUserQuestionRequest): AskUserQuestionAnswer => ({
  answers: request.questions.map((q) => {
    const labels = q.options?.map((o) => o.label) ?? []
    if (labels.length === 0) return { id: q.id, selected: [], custom: `typed for ${q.id}` }
    return { id: q.id, selected: q.multiSelect === true ? labels : [labels[0]!] }
  })
})

describe("random requests through the real SDK clients of every era", () => {
  it.live.each(eras)("%s: any valid request's form passes the client's own checks and its answer comes back intact", (era) =>
    Effect.gen(function*() {
      const samples = yield* Arbitrary.sampleEffect(requests, { count: 25, seed: 20261202 })
      let current: AskUserQuestionRequest = single
      const content = era === "2025-06-18" ? toContent20250618 : toElicitationContent
      const h = yield* inProcess({ era, human: () => accept(content(current, everything(current))) })
      for (const request of samples) {
        current = request
        const outcome = yield* Effect.promise(() => h.ask(JSON.parse(JSON.stringify(request))))
        expect(outcome, JSON.stringify(request)).toEqual({ isError: false, json: everything(request) })
      }
      expect(h.forms).toHaveLength(samples.length)
    }))
})

describe("ask-user's MCP server lifetime", () => {
  it.live("closing the server's scope takes pending forms down before the connection closes", () =>
    Effect.gen(function*() {
      const { client: clientTransport, server: serverTransport, sent } = recordedPair()
      const serverScope = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(serverScope, Exit.void))
      yield* serveAskUser(serverTransport).pipe(Scope.provide(serverScope))
      const h = yield* connectClient(clientTransport)
      const call = h.ask(single)
      call.catch(() => undefined)
      yield* waitFor(() => h.forms.length === 1)
      yield* Scope.close(serverScope, Exit.void)
      // On the wire, not merely the client noticing the connection close.
      const elicitation = sent.find(isRequest("elicitation/create"))!
      expect(sent).toContainEqual(expect.objectContaining({
        method: "notifications/cancelled",
        params: expect.objectContaining({ requestId: elicitation.id })
      }))
      expect(h.cancelled).toHaveLength(1)
      const exit = yield* Effect.exit(Effect.promise(() => call))
      expect(Exit.isFailure(exit)).toBe(true)
    }))
})

describe("McpProvider timing (fake timers drive the SDK's and the seam's timers)", () => {
  const fakeTimers = Effect.acquireRelease(
    Effect.sync(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })),
    () => Effect.sync(() => vi.useRealTimers())
  )

  it.live("an answer after 70 s of thinking still counts: no SDK request timeout is armed below the seam's", () =>
    Effect.gen(function*() {
      yield* fakeTimers
      let onShown!: () => void
      const shown = new Promise<void>((resolve) => (onShown = resolve))
      const h = yield* inProcess({
        timeout: "5 minutes",
        human: async () => {
          onShown()
          await new Promise((resolve) => setTimeout(resolve, 70_000))
          return accept(toElicitationContent(single, singleAnswer))
        }
      })
      const call = h.ask(single)
      yield* Effect.promise(() => shown)
      // Past the SDK's 60 s default, which would cancel the elicitation if it were armed.
      yield* Effect.promise(() => vi.advanceTimersByTimeAsync(70_000))
      expect(yield* Effect.promise(() => call)).toEqual({ isError: false, json: singleAnswer })
      expect(h.cancelled).toEqual([])
      expect(sdkRequestTimeoutMillis).toBeGreaterThan(24 * 24 * 3600_000)
    }))

  it.live("2026-07-28: a suspended call whose retry does not come within 24 hours is dropped and its state refused", () =>
    Effect.gen(function*() {
      yield* fakeTimers
      const h = yield* inProcess({ era: "2026-07-28" })
      const first: any = yield* Effect.promise(() =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true, timeout: 3_600_000 * 48 })
      )
      expect(first.resultType).toBe("input_required")
      // Date is not faked: the state itself still verifies, so only the dropped call can refuse it.
      yield* Effect.promise(() => vi.advanceTimersByTimeAsync(24 * 3_600_000 + 1_000))
      const late = yield* Effect.promise(() =>
        h.sdk.callTool(
          { name: "ask_user_question", arguments: single, inputResponses: { ask: { action: "accept", content: { question_1: "yes" } } }, requestState: first.requestState },
          { allowInputRequired: true, timeout: 3_600_000 * 48 }
        ).then(() => "answered", (error: any) => error.data?.reason ?? error.code)
      )
      expect(late).toBe("request_state_already_used")
    }))

  /** A server that speaks 2026-07-28, and the context of a first `tools/call` on it (no state, no reply yet). */
  const modernToolCall = () => {
    const modern = new McpServer({ name: "host", version: "1.0.0" })
    modern.server.getNegotiatedProtocolVersion = () => "2026-07-28"
    const ctx = {
      mcpReq: { id: 7, signal: new AbortController().signal, requestState: () => undefined, inputResponses: undefined,
        envelope: { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: { form: {} } } } }
    } as never
    return { ctx, modern }
  }

  it.live("2026-07-28: closing the provider's scope interrupts a suspended call's handler and leaves no timer armed", () =>
    Effect.gen(function*() {
      yield* fakeTimers
      const { ctx, modern } = modernToolCall()
      let interrupted = false
      const asks = UserInteraction.ask(single).pipe(
        Effect.as({ content: [] }),
        Effect.orDie,
        Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))
      )
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerWith(McpProvider.layer(modern)), scope)
      const round: any = yield* McpProvider.handleToolCall(ctx, asks).pipe(Effect.provideContext(context))
      expect(round.resultType).toBe("input_required")
      expect(vi.getTimerCount()).toBe(1)
      yield* Scope.close(scope, Exit.void)
      expect(interrupted).toBe(true)
      expect(vi.getTimerCount()).toBe(0)
    }))

  it.live("2026-07-28: closing the provider's scope refuses a timed-out ask's kept state and leaves no timer armed", () =>
    Effect.gen(function*() {
      yield* fakeTimers
      const { ctx, modern } = modernToolCall()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerWith(McpProvider.layer(modern), { timeout: "1 second" }), scope)
      const asks = UserInteraction.ask(single).pipe(Effect.as({ content: [] }), Effect.catch(() => Effect.succeed({ content: [], isError: true })))
      const round: any = yield* McpProvider.handleToolCall(ctx, asks).pipe(Effect.provideContext(context))
      expect(round.resultType).toBe("input_required")
      // The seam's timeout ends the ask; the round's state is kept (its 24-hour timer still armed) for the retry.
      yield* Effect.promise(() => vi.advanceTimersByTimeAsync(1_500))
      expect(vi.getTimerCount()).toBe(1)
      yield* Scope.close(scope, Exit.void)
      expect(vi.getTimerCount()).toBe(0)
    }))

  it.live("the seam's timeout ends the ask with ASK_TIMEOUT and cancels the elicitation on the wire", () =>
    Effect.gen(function*() {
      yield* fakeTimers
      const h = yield* inProcess({ timeout: "30 seconds" })
      const call = h.ask(single)
      yield* Effect.promise(() => vi.waitUntil(() => h.forms.length === 1))
      yield* Effect.promise(() => vi.advanceTimersByTimeAsync(30_000))
      const outcome = yield* Effect.promise(() => call)
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "ASK_TIMEOUT" })
      expect(h.cancelled).toHaveLength(1)
    }))
})

describe("McpProvider under the seam", () => {
  const connected = (human?: Human) => connectedServer(human === undefined ? {} : { human })

  it.live("an aborted request signal interrupts the elicitation: AskAborted, and the client sees the cancel", () =>
    Effect.gen(function*() {
      const { client, server } = yield* connected()
      const abort = new AbortController()
      const fiber = yield* Effect.forkChild(
        UserInteraction.ask({ ...single, signal: abort.signal }).pipe(
          Effect.provide(UserInteraction.layerWith(McpProvider.layer(server)))
        )
      )
      yield* waitFor(() => client.forms.length === 1)
      abort.abort()
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && exit.cause.reasons[0]).toMatchObject({ _tag: "Fail", error: { code: "ASK_ABORTED" } })
      yield* waitFor(() => client.cancelled.length === 1)
    }))

  it.live("the transport closing mid-ask is PROVIDER_FAILED", () =>
    Effect.gen(function*() {
      const { client, clientTransport, server } = yield* connected()
      const fiber = yield* Effect.forkChild(
        UserInteraction.ask(single).pipe(Effect.provide(UserInteraction.layerWith(McpProvider.layer(server.server))))
      )
      yield* waitFor(() => client.forms.length === 1)
      yield* Effect.promise(() => clientTransport.close())
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.code).toBe("PROVIDER_FAILED")
    }))

  it.live("an error from the client's form handler is PROVIDER_FAILED", () =>
    Effect.gen(function*() {
      const { server } = yield* connected(() => {
        throw new Error("the form crashed")
      })
      const error = yield* Effect.flip(
        UserInteraction.ask(single).pipe(Effect.provide(UserInteraction.layerWith(McpProvider.layer(server))))
      )
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("the form crashed")
    }))
})

describe("McpProvider across protocol eras (in process)", () => {
  it.live.each(eras)("%s: a client that advertises only URL-mode elicitation is told exactly that", (era) =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era, elicitation: { url: {} } })
      const outcome = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message).toBe(
        "The MCP client supports only URL-mode elicitation, not the form elicitation this question needs."
      )
      expect(h.forms).toEqual([])
    }))

  it.live.each(eras)("%s: a client without elicitation gets PROVIDER_FAILED naming capabilities.elicitation", (era) =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era, elicitation: false })
      const outcome = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message).toContain("capabilities.elicitation")
    }))

  // On 2026-07-28 a throwing form handler fails the client's own call: the server never hears of it.
  it.live.each(["2025-11-25", "2025-06-18"] as const)("%s: a form handler that throws a long dump is PROVIDER_FAILED in at most 300 characters", (era) =>
    Effect.gen(function*() {
      const dump = JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ code: "invalid_union", path: ["requestedSchema", `q${i}`] })), null, 2)
      const h = yield* inProcess({
        era,
        human: () => {
          throw new Error(`MCP error -32603: ${dump}`)
        }
      })
      const outcome = yield* Effect.promise(() => h.ask(batch))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message.length).toBeLessThanOrEqual(300)
      expect(outcome.json.message).toMatch(/^The MCP client's form failed/)
      expect(outcome.json.message).not.toContain("\n")
    }))

  it.live.each(eras)("%s: an empty choice with Other filled in is the Other answer; content breaking the form is INVALID_ANSWER", (era) =>
    Effect.gen(function*() {
      let content: Record<string, unknown> = {}
      const h = yield* inProcess({ era, human: () => accept(content) })
      content = { question_1: "", question_1_custom: "on Friday" }
      expect(yield* Effect.promise(() => h.ask(single))).toEqual({
        isError: false,
        json: { answers: [{ id: "go", selected: [], custom: "on Friday" }] }
      })
      content = { question_1: "perhaps" }
      const bad = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(bad.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
    }))

  it.live("2025-06-18: no checkbox ticked is a skip of the multi-select question", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({
        era: "2025-06-18",
        human: () => accept({ question_2_option_1: false, question_3: "atlas" })
      })
      expect((yield* Effect.promise(() => h.ask(batch))).json).toEqual({
        answers: [{ id: "db", selected: [] }, { id: "features", selected: [] }, { id: "name", selected: [], custom: "atlas" }]
      })
    }))

  it.live("2026-07-28: the seam's timeout settles an ask; a late retry gets ASK_TIMEOUT once, then its state is refused", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era: "2026-07-28", timeout: "200 millis" })
      const first: any = yield* Effect.promise(() =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true })
      )
      expect(first.resultType).toBe("input_required")
      yield* Effect.sleep("600 millis")
      const retry = (args: unknown) =>
        h.sdk.callTool(
          { name: "ask_user_question", arguments: args as never, inputResponses: { ask: { action: "accept", content: { question_1: "yes" } } }, requestState: first.requestState },
          { allowInputRequired: true }
        ).then((result: any) => result, (error: any) => error.data?.reason ?? error.code)
      // A retry of another call is still refused: the kept result is only for the call it belongs to.
      expect(yield* Effect.promise(() => retry({ questions: [{ id: "other", question: "Other?" }] }))).toBe("request_state_of_another_call")
      const late: any = yield* Effect.promise(() => retry(single))
      expect(late.isError).toBe(true)
      expect(errorCode(JSON.parse(late.content[0].text))).toEqual({ name: "UserInteractionError", code: "ASK_TIMEOUT" })
      expect(yield* Effect.promise(() => retry(single))).toBe("request_state_already_used")
    }))

  it.live("2026-07-28: an app's own tool asks twice in a row through McpProvider.handleToolCall, one round each", () =>
    Effect.gen(function*() {
      const pair = recordedPair()
      yield* serveAppTool(pair.server, "Deploy after two questions.", Effect.gen(function*() {
        const where = yield* UserInteraction.ask({ questions: [{ id: "where", question: "Where?", options: [{ label: "staging" }, { label: "production" }] }] })
        const sure = yield* UserInteraction.ask({ questions: [{ id: "sure", question: `Sure about ${where.answers[0]!.selected[0]}?` }] })
        return { content: [{ type: "text" as const, text: `${where.answers[0]!.selected[0]}: ${sure.answers[0]!.custom}` }] }
      }))
      const h = yield* connectClient(pair.client, {
        era: "2026-07-28",
        human: (form) => accept(form.message.includes("Where?") ? { question_1: "production" } : { question_1: "very" })
      })
      const result: any = yield* Effect.promise(() => h.callTool("deploy", {}))
      expect(result.content).toEqual([{ type: "text", text: "production: very" }])
      expect(h.forms.map((f) => f.message)).toEqual([expect.stringContaining("Where?"), expect.stringContaining("Sure about production?")])
      const rounds = pair.sent.filter((m: any) => m.result?.resultType === "input_required")
      expect(rounds).toHaveLength(2)
    }))
})

describe("replies no SDK client would send (JSON-RPC written by hand)", () => {
  const outcomeOf = (response: { result?: any }) => ({
    isError: response.result?.isError === true,
    json: JSON.parse(response.result.content[0].text)
  })

  it.live.each([
    ["never answers the ping", "no reply" as const],
    ["answers the ping with an error", { error: { code: -32601, message: "Method not found" } }]
  ] as const)("a client that %s still gets the first form, and its answer counts", ([, pingReply]) =>
    Effect.gen(function*() {
      const client = yield* rawClient("2025-11-25", (method) =>
        method === "ping" ? pingReply : { result: { action: "accept", content: toElicitationContent(single, singleAnswer) } })
      const outcome = outcomeOf(yield* Effect.promise(() => client.ask(single)))
      expect(outcome).toEqual({ isError: false, json: singleAnswer })
      expect(client.requests.map((r) => r.method)).toEqual(["ping", "elicitation/create"])
    }))

  it.live.each(["2025-11-25", "2025-06-18"] as const)(
    "%s: accepted content of the wrong shape is INVALID_ANSWER naming the field, as on 2026-07-28",
    (era) =>
      Effect.gen(function*() {
        let content: unknown
        const client = yield* rawClient(era, (method) =>
          method === "ping" ? { result: {} } : { result: { action: "accept", content } })
        for (const [sent, field] of [[{ question_1: { a: 1 } }, "question_1"], ["yes", "content"], [{ question_1_custom: 7 }, "question_1_custom"]] as const) {
          content = sent
          const outcome = outcomeOf(yield* Effect.promise(() => client.ask(single)))
          expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
          expect(outcome.json.message).toContain(field)
        }
      })
  )

  it.live("2025-11-25: content the client's own SDK refuses (-32602 \"Invalid elicitation result\") is INVALID_ANSWER", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era: "2025-11-25", human: () => accept({ question_1: { chosen: "yes" } }) })
      const outcome = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
      expect(outcome.json.message).toMatch(/^The MCP client refused the answer given in its form/)
      expect(outcome.json.message.length).toBeLessThanOrEqual(160)
    }))

  it.live("2025-06-18: a checkbox sent as anything but true or false is INVALID_ANSWER, not a silent skip", () =>
    Effect.gen(function*() {
      let box: unknown
      const client = yield* rawClient("2025-06-18", (method) =>
        method === "ping"
          ? { result: {} }
          : { result: { action: "accept", content: { question_2_option_1: box, question_3: "atlas" } } })
      for (const sent of ["true", "yes", 1]) {
        box = sent
        const outcome = outcomeOf(yield* Effect.promise(() => client.ask(batch)))
        expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
        expect(outcome.json.message).toContain("question_2_option_1")
      }
      box = true
      expect(outcomeOf(yield* Effect.promise(() => client.ask(batch))).json.answers[1]).toEqual({ id: "features", selected: ["auth"] })
    }))

  it.live("2025-06-18: a ticked checkbox the form does not have is INVALID_ANSWER naming it, not a skip", () =>
    Effect.gen(function*() {
      let content: Record<string, unknown> = {}
      const client = yield* rawClient("2025-06-18", (method) =>
        method === "ping" ? { result: {} } : { result: { action: "accept", content } })
      for (const stranger of ["question_2_option_9", "question_2_option_0", "question_1_option_1"]) {
        content = { [stranger]: true, question_3: "atlas" }
        const outcome = outcomeOf(yield* Effect.promise(() => client.ask(batch)))
        expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
        expect(outcome.json.message).toContain(`"${stranger}" is not a field of the form`)
      }
    }))

  it.live("a reply with no known action is PROVIDER_FAILED saying so in one short line, without a validator dump", () =>
    Effect.gen(function*() {
      const client = yield* rawClient("2025-11-25", (method) =>
        method === "ping" ? { result: {} } : { result: { action: "maybe" } })
      const outcome = outcomeOf(yield* Effect.promise(() => client.ask(single)))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message).toMatch(/^The MCP client's reply to the form is malformed: .*action/)
      expect(outcome.json.message).not.toMatch(/[[{]\s*[{"]/)
    }))

  it.live("2026-07-28: accepted content that is not an object is INVALID_ANSWER, not a form left empty", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era: "2026-07-28" })
      const first: any = yield* Effect.promise(() =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true })
      )
      const retry: any = yield* Effect.promise(() =>
        h.sdk.callTool(
          { name: "ask_user_question", arguments: single, inputResponses: { ask: { action: "accept", content: "yes" } }, requestState: first.requestState },
          { allowInputRequired: true }
        )
      )
      expect(retry.isError).toBe(true)
      expect(errorCode(JSON.parse(retry.content[0].text))).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
    }))

  it.live("2026-07-28: inputResponses with no elicitation result for the form (an unknown action, a roots result, none at all) is PROVIDER_FAILED, not the form again", () =>
    Effect.gen(function*() {
      const replies = [
        { ask: { action: "maybe" } },
        { ask: { roots: [] } },
        { ask: null },
        { ask: "accept" },
        { other: { action: "accept", content: { question_1: "yes" } } },
        {},
        [1],
        "x"
      ]
      for (const inputResponses of replies) {
        const h = yield* inProcess({ era: "2026-07-28" })
        const first: any = yield* Effect.promise(() =>
          h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true })
        )
        const retry: any = yield* Effect.promise(() =>
          h.sdk.callTool(
            { name: "ask_user_question", arguments: single, inputResponses: inputResponses as never, requestState: first.requestState },
            { allowInputRequired: true }
          )
        )
        expect(retry.resultType).not.toBe("input_required")
        expect(retry.isError).toBe(true)
        const failure = JSON.parse(retry.content[0].text)
        expect(errorCode(failure)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
        expect(failure.message).toContain("malformed")
      }
    }))

  it.live("2026-07-28: a retry that brings no inputResponses gets the same form again, under a new state", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era: "2026-07-28" })
      const first: any = yield* Effect.promise(() =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true })
      )
      const again: any = yield* Effect.promise(() =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single, requestState: first.requestState }, { allowInputRequired: true })
      )
      expect(again.resultType).toBe("input_required")
      expect(again.inputRequests).toEqual(first.inputRequests)
      expect(again.requestState).not.toBe(first.requestState)
    }))

  it.live("2026-07-28: a requestState retried with other arguments is refused, and still answers its own call", () =>
    Effect.gen(function*() {
      const h = yield* inProcess({ era: "2026-07-28" })
      const first: any = yield* Effect.promise(() =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true })
      )
      const yes = { ask: { action: "accept", content: { question_1: "yes" } } }
      const other = { questions: [{ id: "other", question: "Something else?" }] }
      const refused = yield* Effect.promise(() =>
        h.sdk.callTool(
          { name: "ask_user_question", arguments: other, inputResponses: yes, requestState: first.requestState },
          { allowInputRequired: true }
        ).then(() => undefined, (error: any) => ({ code: error.code, data: error.data }))
      )
      expect(refused).toEqual({ code: -32602, data: { reason: "request_state_of_another_call" } })
      // The same arguments with their keys in another order are the same call.
      const reordered = { questions: [{ options: single.questions[0]!.options, question: single.questions[0]!.question, id: "go" }] }
      const answered: any = yield* Effect.promise(() =>
        h.sdk.callTool(
          { name: "ask_user_question", arguments: reordered, inputResponses: yes, requestState: first.requestState },
          { allowInputRequired: true }
        )
      )
      expect(JSON.parse(answered.content[0].text)).toEqual(singleAnswer)
    }))
})

describe("failure messages for a model", () => {
  it("keep model text that spans lines, on one line", () => {
    expect(brief('The question "x\ny" repeats the label "a\n\tb".')).toBe('The question "x y" repeats the label "a b".')
    expect(brief("x".repeat(400))).toHaveLength(300)
  })

  it("name a validator dump's first issue and where it points, not the dump", () => {
    const dump = JSON.stringify([{ code: "invalid_union", path: ["content", "question_1"], message: "Invalid input" }], null, 2)
    expect(causeOf(`Invalid result for elicitation/create: ${dump}`)).toBe(
      "Invalid result for elicitation/create: Invalid input at content.question_1"
    )
    expect(causeOf(`MCP error -32603: ${JSON.stringify([{ code: "x" }])}`)).toBe("MCP error -32603")
    expect(causeOf("The connection closed.")).toBe("The connection closed.")
    // A zod error's own message is nothing but the dump.
    expect(causeOf(dump)).toBe("Invalid input at content.question_1")
  })
})

describe("McpProvider: who answers", () => {
  /**
   * An app's own tool on a server wired with McpProvider, answered by a client of `era` in process:
   * it asks three times (answered, refused for another client, cancelled) and reports the receipt,
   * the refusal's code and message, and the Settled events it saw.
   */
  const appTool = (era: Era) =>
    Effect.gen(function*() {
      const pair = recordedPair()
      yield* serveAppTool(pair.server, "Asks three times.", Effect.gen(function*() {
        const events = yield* UserInteraction.subscribe
        const { receipt } = yield* UserInteraction.askWithReceipt({ ...single, answerableBy: ["mcp:test-client-*"] })
        const refused = yield* Effect.flip(UserInteraction.ask({ ...single, answerableBy: ["mcp:claude-code"] }))
        yield* Effect.exit(UserInteraction.ask({ questions: [{ id: "stop", question: "Stop?" }] }))
        const settled = yield* events.pipe(Stream.filter((event) => event._tag === "Settled"), Stream.take(3), Stream.runCollect)
        const report = { receipt, refused: { code: refused.code, message: refused.message }, settled }
        return { content: [{ type: "text" as const, text: JSON.stringify(report) }] }
      }).pipe(Effect.scoped))
      const h = yield* connectClient(pair.client, {
        era,
        human: (form) => form.message.includes("Stop?") ? { action: "cancel" } : accept({ question_1: "yes" })
      })
      const result: any = yield* Effect.promise(() => h.callTool("deploy", {}))
      return { report: JSON.parse(result.content[0].text), forms: h.forms }
    })

  it.live.each(eras)("%s: the client's declared name answers and cancels; an ask for another client is NOT_AUTHORIZED, never sent", (era) =>
    Effect.gen(function*() {
      const { forms, report } = yield* appTool(era)
      const client = { id: `mcp:test-client-${era}` }
      expect(report.receipt).toMatchObject({ surface: "mcp", by: client })
      expect(report.refused).toEqual({
        code: "NOT_AUTHORIZED",
        message: `Only mcp:claude-code may settle this ask; mcp:test-client-${era} may not.`
      })
      expect(report.settled).toMatchObject([
        { outcome: "answered", surface: "mcp", by: client },
        { outcome: "NOT_AUTHORIZED", surface: "mcp" },
        { outcome: "ASK_CANCELLED", surface: "mcp", by: client }
      ])
      expect(report.settled[1].by).toBeUndefined()
      // Two forms: the refused ask never reached the client.
      expect(forms.map((form) => form.message)).toEqual([expect.stringContaining("Deploy now?"), expect.stringContaining("Stop?")])
    }))
})
