/**
 * `ask-user acp` driven by the SDK's own client app, over two transports:
 * the agent in this process on paired NDJSON streams, and the built program
 * (`node dist/bin/ask-user.js acp`) as a subprocess over real stdio.
 */
import * as acp from "@agentclientprotocol/sdk"
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, type Scope } from "effect"
import { toElicitationContent } from "effect-user-interaction"
import { demoRequest } from "../src/cli/demo.js"
import { parseTimeout } from "../src/cli/options.js"
import { serve } from "../src/acp/agent.js"
import { type Answerer, driveAgent, neverAnswers, pipePair, sessionOf, spawnAgent, waitFor } from "./acpHarness.js"
import { batch, batchAnswer, single } from "./support/requests.js"

interface Transport {
  readonly stream: acp.Stream
  /** Ends the client's side of the connection. */
  readonly disconnect: () => Promise<void>
  /** What the agent reported about failed turns (its stderr, or its onFailure hook). */
  readonly diagnostics: () => string
  /** Resolves when the agent stopped serving (the process exited, or `serve` returned). */
  readonly stopped: Promise<unknown>
  /** Every line the program wrote on stdout (subprocess only). */
  readonly stdoutLines?: () => ReadonlyArray<string>
}

type Connect = (args: { readonly timeout?: string | undefined }) => Effect.Effect<Transport, never, Scope.Scope>

const inProcessAgent: Connect = ({ timeout }) =>
  Effect.gen(function*() {
    const pair = pipePair()
    const failures: Array<string> = []
    const fiber = yield* Effect.forkScoped(serve(pair.agent, {
      timeout: timeout === undefined ? undefined : Option.getOrUndefined(parseTimeout(timeout)),
      demoRequest,
      version: "test",
      onFailure: (error) => failures.push(error.code)
    }))
    return {
      stream: pair.client,
      disconnect: pair.disconnect,
      diagnostics: () => failures.join("\n"),
      stopped: Effect.runPromise(Fiber.await(fiber))
    }
  })

const subprocessAgent: Connect = ({ timeout }) =>
  Effect.map(
    spawnAgent(timeout === undefined ? [] : ["--timeout", timeout]),
    ({ disconnect, exited, stderr, stdoutLines, stream }) => ({
      stream,
      disconnect,
      diagnostics: () => stderr.join(""),
      stopped: exited,
      stdoutLines
    })
  )

const accept = (content: Record<string, acp.ElicitationContentValue>): Answerer => () => ({ action: "accept", content })
const reply = (text: string) => JSON.parse(text) as unknown

/** One agent and client for many tests; each test works in its own session and sets how the client answers. */
class Shared extends Context.Service<Shared, {
  readonly agent: Effect.Success<ReturnType<typeof driveAgentOn>>
  readonly answerWith: (answer: Answerer) => void
}>()("test/acpAgent/Shared") {}

const driveAgentOn = (connect: Connect, answer: Answerer, options: { readonly form?: boolean; readonly timeout?: string } = {}) =>
  Effect.gen(function*() {
    const transport = yield* connect(options.timeout === undefined ? {} : { timeout: options.timeout })
    const client = yield* driveAgent(transport.stream, answer, options)
    return { ...transport, ...client, seenIn: (sessionId: string) => client.seen.filter((s) => sessionOf(s.params) === sessionId) }
  })

const sharedLayer = (connect: Connect) =>
  Layer.effect(
    Shared,
    Effect.gen(function*() {
      let current: Answerer = neverAnswers
      const agent = yield* driveAgentOn(connect, (seen) => current(seen))
      return { agent, answerWith: (answer: Answerer) => void (current = answer) }
    })
  )

/** A fresh session on the shared agent, whose elicitations `answer` answers. */
const sessionAnswering = (answer: Answerer) =>
  Effect.gen(function*() {
    const { agent, answerWith } = yield* Shared
    answerWith(answer)
    const sessionId = yield* agent.newSession()
    return {
      sessionId,
      prompt: (text: string) => agent.prompt(sessionId, text),
      seen: () => agent.seenIn(sessionId),
      agent
    }
  })

describe.each([["in process", inProcessAgent], ["subprocess over stdio", subprocessAgent]] as const)(
  "ask-user acp (%s)",
  (_, connect) => {
    layer(sharedLayer(connect), { timeout: "60 seconds", excludeTestServices: true })("one connection, a session per test", (it) => {
      it.effect("answers a JSON request in its own session, streaming the answer JSON and ending the turn", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept(toElicitationContent(batch, batchAnswer)))
          // The request's own agent id never redirects the form to another session.
          const turn = yield* session.prompt(JSON.stringify({ ...batch, agent: { id: "elsewhere", name: "Planner" } }))
          expect(turn.stopReason).toBe("end_turn")
          expect(reply(turn.reply)).toEqual(batchAnswer)
          expect(session.seen()).toHaveLength(1)
          expect(session.seen()[0]!.params.message).toContain("Planner asks 3 questions")
        }))

      it.effect("reads multi_select, Other text over a choice, and skips", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(
            accept({ question_1_custom: "DuckDB", question_1: "SQLite", question_2: ["billing", "auth"] })
          )
          const request = {
            questions: batch.questions.map(({ multiSelect, ...q }) =>
              multiSelect === undefined ? q : { ...q, multi_select: multiSelect }
            )
          }
          const turn = yield* session.prompt(JSON.stringify(request))
          expect(reply(turn.reply)).toEqual({
            answers: [
              { id: "db", selected: [], custom: "DuckDB" },
              { id: "features", selected: ["billing", "auth"] },
              { id: "name", selected: [] }
            ]
          })
        }))

      it.effect("asks the demo batch for any other prompt text", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({ question_1: "SQLite", question_3: "atlas" }))
          const turn = yield* session.prompt("hello, what can you do?")
          expect(turn.stopReason).toBe("end_turn")
          expect(reply(turn.reply)).toEqual({
            answers: [
              { id: "database", selected: ["SQLite"] },
              { id: "features", selected: [] },
              { id: "name", selected: [], custom: "atlas" }
            ]
          })
        }))

      it.effect("reads a JSON request that starts with a byte-order mark", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({ question_1: "yes" }))
          const turn = yield* session.prompt(`\ufeff${JSON.stringify(single)}`)
          expect(reply(turn.reply)).toEqual({ answers: [{ id: "go", selected: ["yes"] }] })
          expect(session.seen()[0]!.params.message).toContain("Deploy now?")
        }))

      it.effect("reports a form answered with no result (the SDK client's handler returned nothing) as PROVIDER_FAILED, and keeps serving", () =>
        Effect.gen(function*() {
          let answered = false
          const session = yield* sessionAnswering(() => {
            const result = answered ? { action: "accept", content: { question_1: "yes" } } : undefined
            answered = true
            return result as unknown as acp.CreateElicitationResponse
          })
          const turn = yield* session.prompt(JSON.stringify(single))
          expect(turn.stopReason).toBe("end_turn")
          expect(reply(turn.reply)).toMatchObject({ code: "PROVIDER_FAILED" })
          expect(reply((yield* session.prompt(JSON.stringify(single))).reply)).toEqual({ answers: [{ id: "go", selected: ["yes"] }] })
          expect(session.agent.diagnostics()).not.toContain("TypeError")
        }))

      it.effect("reports a bad request as INVALID_REQUEST without asking", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({}))
          const turn = yield* session.prompt(JSON.stringify({ questions: [{ id: "a", question: "" }] }))
          expect(turn.stopReason).toBe("end_turn")
          expect(reply(turn.reply)).toMatchObject({ name: "UserInteractionError", code: "INVALID_REQUEST" })
          expect((reply(turn.reply) as { message: string }).message).toContain("questions[0].question")
          expect(session.seen()).toEqual([])
        }))

      it.effect("answers as the client it declared at initialize: an ask for acp:test-client is asked, one for os:ana@* is NOT_AUTHORIZED unasked", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({ question_1: "yes" }))
          const allowed = yield* session.prompt(JSON.stringify({ ...single, answerableBy: ["acp:test-client"] }))
          expect(reply(allowed.reply)).toEqual({ answers: [{ id: "go", selected: ["yes"] }] })
          const refused = yield* session.prompt(JSON.stringify({ ...single, answerableBy: ["os:ana@*"] }))
          expect(refused.stopReason).toBe("end_turn")
          expect(reply(refused.reply)).toEqual({
            name: "UserInteractionError",
            code: "NOT_AUTHORIZED",
            message: "Only os:ana@* may settle this ask; Test Client (acp:test-client) may not."
          })
          expect(session.seen()).toHaveLength(1)
        }))

      it.effect("a prompt that opens like a request but is not JSON is INVALID_REQUEST, not the demo; other JSON is the demo", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({ question_1: "SQLite" }))
          const cut = JSON.stringify(single).slice(0, -2)
          for (const text of [cut, `\ufeff${cut}`, `\n  ${cut}`]) {
            const turn = yield* session.prompt(text)
            expect(turn.stopReason).toBe("end_turn")
            const failure = reply(turn.reply) as { code: string; message: string }
            expect(failure.code).toBe("INVALID_REQUEST")
            expect(failure.message).toMatch(/^Invalid request: the prompt is not JSON \(/)
          }
          expect(session.seen()).toEqual([])
          for (const text of ["[1, 2]", "42", "null"]) {
            const answer = reply((yield* session.prompt(text)).reply) as { answers: ReadonlyArray<unknown> }
            expect(answer.answers[0]).toEqual({ id: "database", selected: ["SQLite"] })
          }
        }))

      it.effect("keeps hostile text in a failure inert: JSON in the reply, no raw escapes on stderr", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({}))
          const label = "\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u202eevil"
          const turn = yield* session.prompt(JSON.stringify({
            questions: [{ id: "a", question: "Pick", options: [{ label }, { label }] }]
          }))
          expect(reply(turn.reply)).toMatchObject({ code: "INVALID_REQUEST" })
          expect((reply(turn.reply) as { message: string }).message).toContain(label)
          yield* waitFor(() => session.agent.diagnostics().includes("INVALID_REQUEST"), "the diagnostic")
          expect(session.agent.diagnostics()).not.toMatch(/[\u001b\u0007\u202e]/)
        }))

      it.effect("cuts a failure's message to one line of at most 300 characters, in the reply and the failed tool call", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(() => ({ action: "accept", content: { question_1: `Z${"z\n".repeat(1500)}` } }))
          const turn = yield* session.prompt(JSON.stringify(single))
          const failure = reply(turn.reply) as { code: string; message: string }
          expect(failure.code).toBe("INVALID_ANSWER")
          expect(failure.message).toHaveLength(300)
          expect(failure.message).not.toContain("\n")
          const failed = session.agent.updates.flatMap((n) =>
            n.sessionId === session.sessionId && n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed"
              ? [n.update.rawOutput as { message: string }]
              : []
          )
          expect(failed.map((output) => output.message)).toEqual([failure.message])
        }))

      it.effect("refuses a prompt for a session it never opened", () =>
        Effect.gen(function*() {
          const { agent } = yield* Shared
          const error = yield* Effect.flip(Effect.tryPromise(() =>
            agent.connection.agent.request(acp.methods.agent.session.prompt, {
              sessionId: "not-a-session",
              prompt: [{ type: "text", text: JSON.stringify(single) }]
            })
          ))
          expect(error.cause).toMatchObject({ code: -32602 })
          expect(agent.seenIn("not-a-session")).toEqual([])
        }))

      it.effect("reports decline as ASK_DECLINED and cancel as ASK_CANCELLED", () =>
        Effect.gen(function*() {
          let action = "decline"
          const session = yield* sessionAnswering(() => ({ action }))
          expect(reply((yield* session.prompt(JSON.stringify(single))).reply)).toEqual({
            name: "UserInteractionError",
            code: "ASK_DECLINED",
            message: expect.any(String)
          })
          action = "cancel"
          const turn = yield* session.prompt(JSON.stringify(single))
          expect(turn.stopReason).toBe("end_turn")
          expect(reply(turn.reply)).toMatchObject({ code: "ASK_CANCELLED" })
        }))

      it.effect("reports content that breaks the rules as INVALID_ANSWER", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(accept({ question_1: ["yes", "no"] }))
          const turn = yield* session.prompt(JSON.stringify(single))
          expect(reply(turn.reply)).toMatchObject({ code: "INVALID_ANSWER" })
        }))

      it.effect("on session/cancel sends $/cancel_request first, then ends the turn cancelled", () =>
        Effect.gen(function*() {
          const session = yield* sessionAnswering(neverAnswers)
          const turn = yield* Effect.forkChild(session.prompt(JSON.stringify(single)))
          yield* waitFor(() => session.seen().length === 1, "the elicitation")
          yield* session.agent.cancel(session.sessionId)
          const ended = yield* Fiber.join(turn)
          expect(ended.stopReason).toBe("cancelled")
          // Messages arrive in order: the cancellation was already seen when the turn's reply came.
          expect(session.seen()[0]!.signal.aborted).toBe(true)
          expect(ended.reply).toBe("")
        }))

      it.effect("keeps two sessions asking at once apart", () =>
        Effect.gen(function*() {
          const gates: Array<() => void> = []
          const first = yield* sessionAnswering(({ params }) =>
            new Promise((resolve) => {
              gates.push(() =>
                resolve({ action: "accept", content: { question_1: params.message.includes("first") ? "yes" : "no" } })
              )
            })
          )
          const { agent } = yield* Shared
          const second = yield* agent.newSession()
          const ask = (who: string) => JSON.stringify({ ...single, agent: { id: who, name: who } })
          const one = yield* Effect.forkChild(first.prompt(ask("first")))
          const two = yield* Effect.forkChild(agent.prompt(second, ask("second")))
          yield* waitFor(() => gates.length === 2, "both elicitations")
          // Answer the later one first.
          gates[1]!()
          gates[0]!()
          expect(reply((yield* Fiber.join(one)).reply)).toEqual({ answers: [{ id: "go", selected: ["yes"] }] })
          expect(reply((yield* Fiber.join(two)).reply)).toEqual({ answers: [{ id: "go", selected: ["no"] }] })
          expect(first.seen()).toHaveLength(1)
          expect(agent.seenIn(second)).toHaveLength(1)
        }))
    })

    it.live("reports PROVIDER_FAILED, sending no elicitation, to a client without form elicitation, and a failed tool call", () =>
      Effect.gen(function*() {
        const agent = yield* driveAgentOn(connect, accept({ question_1: "yes" }), { form: false })
        const sessionId = yield* agent.newSession()
        const turn = yield* agent.prompt(sessionId, JSON.stringify(single))
        expect(reply(turn.reply)).toMatchObject({ code: "PROVIDER_FAILED" })
        expect(agent.seen).toEqual([])
        // The SDK writes in order: the tool call's updates went out before the turn's reply.
        const statuses = agent.updates
          .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate !== "agent_message_chunk")
          .map((n) => "status" in n.update ? n.update.status : undefined)
        expect(statuses).toEqual(["pending", "failed"])
        yield* waitFor(() => agent.diagnostics().includes("PROVIDER_FAILED"), "the diagnostic")
      }))

    it.live("on --timeout cancels the elicitation on the wire and reports ASK_TIMEOUT", () =>
      Effect.gen(function*() {
        const agent = yield* driveAgentOn(connect, neverAnswers, { timeout: "300ms" })
        const turn = yield* agent.prompt(yield* agent.newSession(), JSON.stringify(single))
        expect(reply(turn.reply)).toMatchObject({ code: "ASK_TIMEOUT" })
        yield* waitFor(() => agent.seen[0]?.signal.aborted === true, "$/cancel_request")
        expect(agent.diagnostics()).toContain("ASK_TIMEOUT")
        // stdout carries nothing but JSON-RPC messages (the diagnostics went to stderr).
        for (const line of agent.stdoutLines?.() ?? []) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" })
      }))

    it.live("when the client disconnects mid-ask, fails the ask PROVIDER_FAILED and stops without hanging", () =>
      Effect.gen(function*() {
        const agent = yield* driveAgentOn(connect, neverAnswers)
        yield* Effect.forkChild(agent.prompt(yield* agent.newSession(), JSON.stringify(single)))
        yield* waitFor(() => agent.seen.length === 1, "the elicitation")
        yield* Effect.promise(() => agent.disconnect())
        yield* Effect.promise(() => agent.stopped)
        expect(agent.diagnostics()).toContain("PROVIDER_FAILED")
      }))
  }
)
