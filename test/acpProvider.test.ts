import * as acp from "@agentclientprotocol/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Context, type Duration, Effect, Exit, Fiber, Layer, Schema, Scope, Stream } from "effect"
import {
  Answerer,
  type AskUserQuestionRequest,
  isAnswerableBy,
  toElicitationContent,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { AcpProvider, type AcpProviderOptions } from "effect-user-interaction/acp"
import { clientAnswerer } from "../src/internal/answeredBy.js"
import { type Answerer as ClientAnswers, inProcess, neverAnswers, sessionOf, waitFor } from "./acpHarness.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

const inSession = (request: AskUserQuestionRequest, sessionId = "s1"): AskUserQuestionRequest => ({
  ...request,
  agent: { id: sessionId }
})

/** The seam with an AcpProvider on a fresh in-process connection to a scripted client. */
const rig = (answer: ClientAnswers, options: { readonly form?: boolean; readonly timeout?: Duration.Input } = {}) =>
  Effect.gen(function*() {
    const pair = yield* inProcess(answer, options)
    const providerOptions: AcpProviderOptions = {
      client: pair.agent.client,
      clientCapabilities: pair.capabilities,
      clientInfo: pair.clientInfo
    }
    const context = yield* Layer.build(UserInteraction.layerWith(
      AcpProvider.layer(providerOptions),
      options.timeout === undefined ? {} : { timeout: options.timeout }
    ))
    const ask = (request: AskUserQuestionRequest) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
    const inSeam = <A, E>(effect: Effect.Effect<A, E, UserInteraction>) => Effect.provideContext(effect, context)
    return { ...pair, context, ask, inSeam }
  })

const accept = (content: Record<string, acp.ElicitationContentValue>): ClientAnswers => () => ({ action: "accept", content })

describe("AcpProvider", () => {
  it.live("sends one form per request to the ask's session and returns the accepted answer", () =>
    Effect.gen(function*() {
      const { ask, seen, updates } = yield* rig(accept(toElicitationContent(batch, batchAnswer)))
      expect(yield* ask(inSession(batch, "session-7"))).toEqual(batchAnswer)
      expect(seen).toHaveLength(1)
      const params = seen[0]!.params
      expect(params).toMatchObject({ sessionId: "session-7", mode: "form", toolCallId: expect.any(String) })
      // The ask is a tool call the client can show: announced pending, then completed with the answer.
      const toolCallId = (params as { toolCallId: string }).toolCallId
      yield* waitFor(() => updates.length === 2, "the tool call's two updates")
      expect(updates.map((u) => u.sessionId)).toEqual(["session-7", "session-7"])
      expect(updates[0]!.update).toMatchObject({
        sessionUpdate: "tool_call",
        toolCallId,
        status: "pending",
        title: "Storage (+2 more)",
        rawInput: { questions: batch.questions }
      })
      expect(updates[1]!.update).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: JSON.stringify(batchAnswer) } }],
        rawOutput: batchAnswer
      })
      expect(params.message).toContain("1. [Storage] Which database?")
      expect(Object.keys((params as { requestedSchema: acp.ElicitationSchema }).requestedSchema.properties ?? {}))
        .toEqual(["question_1", "question_1_custom", "question_2", "question_2_custom", "question_3"])
    }))

  it.live("reads Other text over the choice, and empty fields as skips", () =>
    Effect.gen(function*() {
      const { ask } = yield* rig(accept({ question_1: "SQLite", question_1_custom: "DuckDB", question_2: [], question_3: "" }))
      expect(yield* ask(inSession(batch))).toEqual({
        answers: [{ id: "db", selected: [], custom: "DuckDB" }, { id: "features", selected: [] }, { id: "name", selected: [] }]
      })
    }))

  it.live("routes by AcpProvider.withSession, inside the caller's tool call (which the caller reports), over agent.id", () =>
    Effect.gen(function*() {
      const { ask, seen, updates } = yield* rig(accept({ question_1: "yes" }))
      yield* ask(inSession(single, "from-agent")).pipe(AcpProvider.withSession({ sessionId: "s9", toolCallId: "call-3" }))
      expect(seen[0]!.params).toMatchObject({ sessionId: "s9", toolCallId: "call-3" })
      yield* ask(inSession(single, "from-agent")).pipe(AcpProvider.withSession({ sessionId: "s9" }))
      // Only the second ask, which had no tool call of its own, was announced (and finished).
      yield* waitFor(() => updates.length === 2, "the second ask's tool call")
      expect(updates.map((u) => u.update.sessionUpdate)).toEqual(["tool_call", "tool_call_update"])
      expect(updates.every((u) => u.sessionId === "s9" && "toolCallId" in u.update && u.update.toolCallId !== "call-3"))
        .toBe(true)
    }))

  it.live("ends a failed ask's tool call failed, with the error's name, code and message", () =>
    Effect.gen(function*() {
      const { ask, updates } = yield* rig(() => ({ action: "decline" }))
      const error = yield* Effect.flip(ask(inSession(single)))
      expect(error.code).toBe("ASK_DECLINED")
      yield* waitFor(() => updates.length === 2, "the tool call's end")
      const failure = { name: "UserInteractionError", code: "ASK_DECLINED", message: error.message }
      expect(updates[1]!.update).toMatchObject({
        sessionUpdate: "tool_call_update",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: JSON.stringify(failure) } }]
      })
    }))

  it.live("keeps the client's own reason for cancelling or declining (_meta.message) in the error", () =>
    Effect.gen(function*() {
      for (const action of ["cancel", "decline"] as const) {
        const { ask } = yield* rig(() => ({ action, _meta: { message: "elicitation handler is unavailable" } }))
        const error = yield* Effect.flip(ask(inSession(single)))
        expect(error.code).toBe(action === "cancel" ? "ASK_CANCELLED" : "ASK_DECLINED")
        expect(error.message).toContain("elicitation handler is unavailable")
        expect(error.message).not.toContain("The human")
      }
    }))

  it.live("fails PROVIDER_FAILED and sends nothing without a session to ask in", () =>
    Effect.gen(function*() {
      const { ask, seen } = yield* rig(accept({ question_1: "yes" }))
      const error = yield* Effect.flip(ask(single))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("session")
      expect(seen).toEqual([])
    }))

  it.live("fails PROVIDER_FAILED with no form when the client lacks form elicitation, shown as a failed tool call", () =>
    Effect.gen(function*() {
      const { ask, seen, updates } = yield* rig(accept({ question_1: "yes" }), { form: false })
      const error = yield* Effect.flip(ask(inSession(single)))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("elicitation.form")
      expect(seen).toEqual([])
      yield* waitFor(() => updates.length === 2, "the tool call's two updates")
      const [started, finished] = updates.map((u) => u.update)
      expect(started).toMatchObject({ sessionUpdate: "tool_call", status: "pending", title: "Deploy now?" })
      expect(finished).toMatchObject({
        sessionUpdate: "tool_call_update",
        toolCallId: (started as { toolCallId: string }).toolCallId,
        status: "failed",
        rawOutput: { code: "PROVIDER_FAILED", message: error.message }
      })
    }))

  it.live("without form elicitation inside the caller's own tool call, reports nothing: the caller does", () =>
    Effect.gen(function*() {
      const { ask, updates } = yield* rig(accept({ question_1: "yes" }), { form: false })
      const error = yield* Effect.flip(ask(single).pipe(AcpProvider.withSession({ sessionId: "s1", toolCallId: "call-3" })))
      expect(error.code).toBe("PROVIDER_FAILED")
      yield* Effect.sleep("50 millis")
      expect(updates).toEqual([])
    }))

  it.live("maps decline, cancel and an unknown action", () =>
    Effect.gen(function*() {
      for (
        const [action, code] of [["decline", "ASK_DECLINED"], ["cancel", "ASK_CANCELLED"], ["_snooze", "ASK_CANCELLED"]]
      ) {
        const { ask } = yield* rig(() => ({ action: action! }))
        expect((yield* Effect.flip(ask(inSession(single)))).code).toBe(code)
      }
    }))

  it.live("refuses accepted content that breaks the rules as INVALID_ANSWER", () =>
    Effect.gen(function*() {
      for (const content of [{ question_1: "maybe" }, { question_1: ["yes", "no"] }, { question_1: 1 }]) {
        const { ask } = yield* rig(accept(content as Record<string, acp.ElicitationContentValue>))
        expect((yield* Effect.flip(ask(inSession(single)))).code).toBe("INVALID_ANSWER")
      }
      const { ask } = yield* rig(() => ({ action: "accept", content: "yes" }) as unknown as acp.CreateElicitationResponse)
      expect((yield* Effect.flip(ask(inSession(single)))).code).toBe("INVALID_ANSWER")
    }))

  it.live("fails PROVIDER_FAILED for a result that is not a response (null, undefined, an array, text, no action), and keeps asking", () =>
    Effect.gen(function*() {
      for (const result of [null, undefined, [1], "accept", { content: {} }, { action: 1 }]) {
        let first = true
        const { ask, updates } = yield* rig(() => {
          const answer = first ? result : { action: "accept", content: { question_1: "yes" } }
          first = false
          return answer as acp.CreateElicitationResponse
        })
        const error = yield* Effect.flip(ask(inSession(single)))
        expect(error.code, JSON.stringify(result)).toBe("PROVIDER_FAILED")
        yield* waitFor(() => updates.length === 2, "the tool call's end")
        expect(updates[1]!.update).toMatchObject({ status: "failed", rawOutput: { code: "PROVIDER_FAILED" } })
        expect(yield* ask(inSession(single))).toEqual(singleAnswer)
      }
    }))

  it.live("a null result after cancelSession settles as the session's cancel", () =>
    Effect.gen(function*() {
      const answers: Array<(response: acp.CreateElicitationResponse) => void> = []
      const { ask, context, seen, updates } = yield* rig(() => new Promise((resolve) => answers.push(resolve)))
      const fiber = yield* Effect.forkChild(ask(inSession(single, "s1")))
      yield* waitFor(() => seen.length === 1, "the elicitation")
      const cancelling = yield* Effect.forkChild(AcpProvider.use((p) => p.cancelSession("s1")).pipe(Effect.provideContext(context)))
      yield* Effect.sleep("20 millis")
      const answered = Date.now()
      answers[0]!(null as unknown as acp.CreateElicitationResponse)
      expect(yield* Fiber.join(cancelling)).toBe(1)
      // Settled by the client's answer, not by the grace running out.
      expect(Date.now() - answered).toBeLessThan(400)
      expect((yield* Effect.flip(Fiber.join(fiber))).code).toBe("ASK_CANCELLED")
      expect(updates.map((u) => u.update.sessionUpdate)).toEqual(["tool_call"])
    }))

  it.live("fails PROVIDER_FAILED with the JSON-RPC error the client answered", () =>
    Effect.gen(function*() {
      const { ask } = yield* rig(() => {
        throw acp.RequestError.invalidParams(undefined, "no such session")
      })
      const error = yield* Effect.flip(ask(inSession(single)))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("-32602")
      expect(error.cause).toBeInstanceOf(acp.RequestError)
    }))

  it.live("fails PROVIDER_FAILED, without hanging, when the connection closes mid-ask", () =>
    Effect.gen(function*() {
      const { agent, ask, seen } = yield* rig(neverAnswers)
      const fiber = yield* Effect.forkChild(ask(inSession(single)))
      yield* waitFor(() => seen.length === 1, "the elicitation")
      agent.close()
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("closed")
      // Once closed, a new ask fails at once too.
      expect((yield* Effect.flip(ask(inSession(single)))).code).toBe("PROVIDER_FAILED")
    }))

  it.live("on interruption sends $/cancel_request and settles without the client's reply", () =>
    Effect.gen(function*() {
      // This client never answers, not even the cancellation: the ask must not wait for it.
      const { ask, seen } = yield* rig(() => new Promise(() => {}))
      const fiber = yield* Effect.forkChild(ask(inSession(single)))
      yield* waitFor(() => seen.length === 1, "the elicitation")
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      expect(Exit.hasInterrupts(exit)).toBe(true)
      yield* waitFor(() => seen[0]!.signal.aborted, "the client to see $/cancel_request")
    }))

  it.live("closing the provider's scope fails its pending ask PROVIDER_CLOSED and cancels the form on the wire", () =>
    Effect.gen(function*() {
      const pair = yield* inProcess(neverAnswers)
      const seam = yield* Layer.build(UserInteraction.layer)
      const providerScope = yield* Scope.make()
      yield* Layer.buildWithScope(
        UserInteraction.provide(AcpProvider.layer({ client: pair.agent.client, clientCapabilities: pair.capabilities })),
        providerScope
      ).pipe(Effect.provideContext(seam))
      const fiber = yield* Effect.forkChild(UserInteraction.ask(inSession(single)).pipe(Effect.provideContext(seam)))
      yield* waitFor(() => pair.seen.length === 1, "the elicitation")
      yield* Scope.close(providerScope, Exit.void)
      expect((yield* Effect.flip(Fiber.join(fiber))).code).toBe("PROVIDER_CLOSED")
      yield* waitFor(() => pair.seen[0]!.signal.aborted, "the client to see $/cancel_request")
    }))

  it.live("used without the seam, closing its scope cancels open forms and refuses later asks", () =>
    Effect.gen(function*() {
      const pair = yield* inProcess(neverAnswers)
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        AcpProvider.layer({ client: pair.agent.client, clientCapabilities: pair.capabilities }),
        scope
      )
      const provider = Context.get(context, UserInteractionProvider)
      const fiber = yield* Effect.forkChild(provider.ask(inSession(single)))
      yield* waitFor(() => pair.seen.length === 1, "the elicitation")
      yield* Scope.close(scope, Exit.void)
      expect((yield* Effect.flip(Fiber.join(fiber))).code).toBe("PROVIDER_CLOSED")
      yield* waitFor(() => pair.seen[0]!.signal.aborted, "the client to see $/cancel_request")
      expect((yield* Effect.flip(provider.ask(inSession(single)))).code).toBe("PROVIDER_CLOSED")
      expect(pair.seen).toHaveLength(1)
    }))

  it.live("the seam's timeout cancels the elicitation on the wire and ends the tool call failed ASK_TIMEOUT", () =>
    Effect.gen(function*() {
      const { ask, seen, updates } = yield* rig(neverAnswers, { timeout: "200 millis" })
      expect((yield* Effect.flip(ask(inSession(single)))).code).toBe("ASK_TIMEOUT")
      yield* waitFor(() => seen[0]?.signal.aborted === true, "the client to see $/cancel_request")
      yield* waitFor(() => updates.length === 2, "the tool call's end")
      expect(updates[1]!.update).toMatchObject({ status: "failed", rawOutput: { code: "ASK_TIMEOUT" } })
    }))

  it.live("cancelSession lets the client answer its open form, keeping its reason, and then sends no $/cancel_request", () =>
    Effect.gen(function*() {
      const answers: Array<(response: acp.CreateElicitationResponse) => void> = []
      const { agentWrote, ask, context, seen, updates } = yield* rig(() => new Promise((resolve) => answers.push(resolve)))
      const fiber = yield* Effect.forkChild(ask(inSession(single, "s1")))
      yield* waitFor(() => seen.length === 1, "the elicitation")
      const cancelling = yield* Effect.forkChild(AcpProvider.use((p) => p.cancelSession("s1")).pipe(Effect.provideContext(context)))
      // The client does what ACP asks after session/cancel: it answers its open form itself.
      yield* Effect.sleep("20 millis")
      answers[0]!({ action: "cancel", _meta: { message: "turn stopped by the user" } })
      expect(yield* Fiber.join(cancelling)).toBe(1)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.code).toBe("ASK_CANCELLED")
      expect(error.message).toContain("turn stopped by the user")
      yield* Effect.sleep("700 millis")
      expect(agentWrote().filter((m) => m.method === "$/cancel_request")).toEqual([])
      // No failure is reported for a cancelled session: only the announcement went out.
      expect(updates.map((u) => u.update.sessionUpdate)).toEqual(["tool_call"])
    }))

  for (const how of ["the seam's timeout", "the caller's interruption"] as const) {
    it.live(`after cancelSession, an ask taken down by ${how} within the grace reports no failed tool call`, () =>
      Effect.gen(function*() {
        const { ask, context, seen, updates } = yield* rig(neverAnswers, { timeout: "300 millis" })
        const fiber = yield* Effect.forkChild(ask(inSession(single, "s1")))
        yield* waitFor(() => seen.length === 1, "the elicitation")
        yield* Effect.forkChild(AcpProvider.use((p) => p.cancelSession("s1")).pipe(Effect.provideContext(context)))
        yield* Effect.sleep("100 millis")
        if (how === "the caller's interruption") yield* Fiber.interrupt(fiber)
        else expect((yield* Effect.flip(Fiber.join(fiber))).code).toBe("ASK_TIMEOUT")
        yield* waitFor(() => seen[0]!.signal.aborted, "the client to see $/cancel_request")
        yield* Effect.sleep("100 millis")
        expect(updates.map((u) => u.update.sessionUpdate)).toEqual(["tool_call"])
      }))
  }

  it.live("cancelSession with no grace cancels open forms on the wire at once", () =>
    Effect.gen(function*() {
      const { ask, context, seen, updates } = yield* rig(neverAnswers)
      const fiber = yield* Effect.forkChild(ask(inSession(single, "s1")))
      yield* waitFor(() => seen.length === 1, "the elicitation")
      const started = Date.now()
      expect(yield* AcpProvider.use((p) => p.cancelSession("s1", { grace: 0 })).pipe(Effect.provideContext(context))).toBe(1)
      expect(Date.now() - started).toBeLessThan(400)
      expect((yield* Effect.flip(Fiber.join(fiber))).code).toBe("ASK_CANCELLED")
      yield* waitFor(() => seen[0]!.signal.aborted, "the client to see $/cancel_request")
      expect(updates.map((u) => u.update.sessionUpdate)).toEqual(["tool_call"])
    }))

  it.live("cancelSession ends that session's asks as ASK_CANCELLED and leaves other sessions asking", () =>
    Effect.gen(function*() {
      const release: Array<() => void> = []
      const { ask, context, seen } = yield* rig(({ params, signal }) =>
        new Promise((resolve, reject) => {
          signal.addEventListener("abort", () => reject(acp.RequestError.requestCancelled()))
          release.push(() => resolve({ action: "accept", content: { question_1: sessionOf(params) === "s2" ? "no" : "yes" } }))
        })
      )
      const first = yield* Effect.forkChild(ask(inSession(single, "s1")))
      const second = yield* Effect.forkChild(ask(inSession(single, "s2")))
      yield* waitFor(() => seen.length === 2, "both elicitations")
      const ended = yield* AcpProvider.use((p) => p.cancelSession("s1")).pipe(Effect.provideContext(context))
      expect(ended).toBe(1)
      expect((yield* Effect.flip(Fiber.join(first))).code).toBe("ASK_CANCELLED")
      const cancelled = seen.find((s) => sessionOf(s.params) === "s1")!
      yield* waitFor(() => cancelled.signal.aborted, "s1's $/cancel_request")
      release.forEach((f) => f())
      expect(yield* Fiber.join(second)).toEqual({ answers: [{ id: "go", selected: ["no"] }] })
      expect(yield* AcpProvider.use((p) => p.cancelSession("s1")).pipe(Effect.provideContext(context))).toBe(0)
    }))

  it.live("many sessions asking at once never get each other's answers", () =>
    Effect.gen(function*() {
      const { ask } = yield* rig(async ({ params }) => {
        // Answer in a scrambled order: later sessions first.
        const id = sessionOf(params)!
        await new Promise((r) => setTimeout(r, 40 - Number(id.slice(1))))
        return { action: "accept", content: { question_1: Number(id.slice(1)) % 2 === 0 ? "yes" : "no" } }
      })
      const answers = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => `s${i}`),
        (id) => Effect.map(ask(inSession(single, id)), (a) => [id, a.answers[0]!.selected[0]] as const),
        { concurrency: "unbounded" }
      )
      for (const [id, label] of answers) expect(label).toBe(Number(id.slice(1)) % 2 === 0 ? "yes" : "no")
    }))
})

describe("AcpProvider: who answers", () => {
  const client = { id: "acp:test-client", name: "Test Client" }

  it.live("the client declared at initialize answers, cancels and declines: acp:<clientInfo.name>, its title as name", () =>
    Effect.gen(function*() {
      let next: acp.CreateElicitationResponse = { action: "accept", content: { question_1: "yes" } }
      const { inSeam } = yield* rig(() => next)
      const { receipt } = yield* inSeam(UserInteraction.askWithReceipt(inSession(single)))
      expect(receipt).toMatchObject({ surface: "acp", by: client })
      const settled = yield* inSeam(Effect.gen(function*() {
        const events = yield* UserInteraction.subscribe
        for (const action of ["cancel", "decline"] as const) {
          next = { action }
          yield* Effect.exit(UserInteraction.ask(inSession(single)))
        }
        return yield* events.pipe(Stream.filter((event) => event._tag === "Settled"), Stream.take(2), Stream.runCollect)
      }).pipe(Effect.scoped))
      expect(settled).toMatchObject([
        { outcome: "ASK_CANCELLED", surface: "acp", by: client },
        { outcome: "ASK_DECLINED", surface: "acp", by: client }
      ])
    }))

  it.live("an ask the client may not settle fails NOT_AUTHORIZED before any tool call or form; one it may is asked", () =>
    Effect.gen(function*() {
      const { ask, seen, updates } = yield* rig(accept({ question_1: "yes" }))
      const error = yield* Effect.flip(ask({ ...inSession(single), answerableBy: ["os:ana@*"] }))
      expect(error.code).toBe("NOT_AUTHORIZED")
      expect(error.message).toBe("Only os:ana@* may settle this ask; Test Client (acp:test-client) may not.")
      expect(seen).toEqual([])
      expect(updates).toEqual([])
      expect(yield* ask({ ...inSession(single), answerableBy: ["acp:*"] })).toEqual(singleAnswer)
      expect(seen).toHaveLength(1)
    }))

  it.live("a client that declared no clientInfo is nobody known: it answers open asks, and no ask with answerableBy", () =>
    Effect.gen(function*() {
      const pair = yield* inProcess(accept({ question_1: "yes" }))
      const context = yield* Layer.build(UserInteraction.layerWith(
        AcpProvider.layer({ client: pair.agent.client, clientCapabilities: pair.capabilities })
      ))
      const asked = (request: AskUserQuestionRequest) => UserInteraction.askWithReceipt(request).pipe(Effect.provideContext(context))
      const { receipt } = yield* asked(inSession(single))
      expect(receipt.surface).toBe("acp")
      expect(receipt.by).toBeUndefined()
      const error = yield* Effect.flip(asked({ ...inSession(single), answerableBy: ["*"] }))
      expect(error.code).toBe("NOT_AUTHORIZED")
      expect(error.message).toContain("this surface cannot say who is answering")
      expect(pair.seen).toHaveLength(1)
    }))
})

describe("a protocol client as an answerer", () => {
  const isAnswerer = Schema.is(Answerer)

  it.prop(
    "any declared name is a valid answerer id that its own exact pattern and kind:* allow; no name is nobody known",
    { name: Schema.String, title: Schema.optionalKey(Schema.String) },
    ({ name, title }) => {
      for (const kind of ["mcp", "acp"] as const) {
        const by = clientAnswerer(kind, title === undefined ? { name } : { name, title })
        if (name === "") {
          expect(by).toBeUndefined()
          continue
        }
        expect(by?.id).toBe(`${kind}:${name}`)
        expect(isAnswerer(by)).toBe(true)
        expect(by?.name).toBe(title === "" ? undefined : title)
        expect(isAnswerableBy([`${kind}:*`], by)).toBe(true)
        // An exact pattern is the id itself, when it is a pattern at all (no *).
        if (!name.includes("*")) expect(isAnswerableBy([`${kind}:${name}`], by)).toBe(true)
        expect(isAnswerableBy([`${kind === "mcp" ? "acp" : "mcp"}:*`], by)).toBe(false)
      }
    }
  )
})
