/**
 * `ask-user acp` as real ACP clients drive it (acpx, Zed): the built program
 * over real stdio, driven by the SDK 2.4.0 client app. A Stop sends
 * `session/cancel` and answers the open form `cancel` in the same breath; a
 * new prompt may arrive while a form is open; every ask is a tool call.
 */
import * as acp from "@agentclientprotocol/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { type Answerer, driveAgent, neverAnswers, rawAgent, sessionOf, spawnAgent, waitFor, type WriteMode } from "./acpHarness.js"
import { single, singleAnswer } from "./support/requests.js"

/** The agent subprocess and a client whose elicitations `answer` answers (settable per test). */
const rig = Effect.gen(function*() {
  const program = yield* spawnAgent()
  let answer: Answerer = neverAnswers
  const client = yield* driveAgent(program.stream, (seen) => answer(seen))
  const wire = () => program.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>)
  const updatesOf = (sessionId: string) => client.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update)
  return { ...program, ...client, wire, updatesOf, answerWith: (next: Answerer) => void (answer = next) }
})

type Rig = Effect.Success<typeof rig>

/**
 * acpx's Stop: on seeing the form, the client sends `session/cancel` and
 * answers the form `cancel` (with its reason), written as `mode` says.
 */
const stopWhileAsking = (agent: Rig, mode: WriteMode) =>
  Effect.gen(function*() {
    agent.setWriteMode(mode)
    agent.answerWith(async ({ params }) => {
      await agent.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId: sessionOf(params)! })
      return { action: "cancel", _meta: { message: "the user pressed Stop" } }
    })
    const sessionId = yield* agent.newSession()
    const turn = yield* agent.prompt(sessionId, JSON.stringify(single))
    return { sessionId, turn }
  })

describe("ask-user acp over stdio, as real clients drive it", () => {
  for (const mode of ["cancel-with-next", "cancel-then-pause"] as const) {
    it.live(`a Stop (session/cancel, then the form's cancel, ${mode === "cancel-with-next" ? "in one write" : "in two writes"}) ends the turn cancelled with no failure, 30 times`, () =>
      Effect.gen(function*() {
        const agent = yield* rig
        for (let run = 0; run < 30; run++) {
          const { sessionId, turn } = yield* stopWhileAsking(agent, mode)
          expect(turn).toEqual({ stopReason: "cancelled", reply: "" })
          // The tool call was announced and never reported failed: the client marks it cancelled itself.
          expect(agent.updatesOf(sessionId).map((u) => u.sessionUpdate)).toEqual(["tool_call"])
        }
        // The forms were answered: none was cancelled on the wire, and nothing failed on stderr.
        expect(agent.wire().filter((m) => m["method"] === "$/cancel_request")).toEqual([])
        expect(agent.stderr.join("")).not.toContain("ASK_CANCELLED")
      }), { timeout: 120_000 })
  }

  it.live("a new prompt while a form is open cancels that form and ends the old turn before the new form goes out", () =>
    Effect.gen(function*() {
      const agent = yield* rig
      const sessionId = yield* agent.newSession()
      agent.answerWith(neverAnswers)
      const first = yield* Effect.forkChild(agent.prompt(sessionId, JSON.stringify(single)))
      yield* waitFor(() => agent.seen.length === 1, "the first form")
      agent.answerWith(() => ({ action: "accept", content: { question_1: "yes" } }))
      const second = yield* agent.prompt(sessionId, JSON.stringify(single))
      expect((yield* Fiber.join(first)).stopReason).toBe("cancelled")
      expect(second.stopReason).toBe("end_turn")
      expect(JSON.parse(second.reply)).toEqual(singleAnswer)

      const wire = agent.wire()
      const at = (predicate: (m: Record<string, unknown>) => boolean, what: string) => {
        const index = wire.findIndex(predicate)
        expect(index, what).toBeGreaterThanOrEqual(0)
        return index
      }
      const forms = wire.filter((m) => m["method"] === "elicitation/create")
      expect(forms).toHaveLength(2)
      const oldCancel = at(
        (m) => m["method"] === "$/cancel_request" && (m["params"] as { requestId: unknown }).requestId === forms[0]!["id"],
        "the old form's $/cancel_request"
      )
      const oldEnd = at((m) => (m["result"] as { stopReason?: string } | undefined)?.stopReason === "cancelled", "the old turn's end")
      const newForm = at((m) => m === forms[1], "the new form")
      expect(oldCancel).toBeLessThan(oldEnd)
      expect(oldEnd).toBeLessThan(newForm)
    }))

  it.live("shows every ask as a tool call: pending before the form, then completed with the answer or failed with the error", () =>
    Effect.gen(function*() {
      const agent = yield* rig
      agent.answerWith(() => ({ action: "accept", content: { question_1: "yes" } }))
      const answered = yield* agent.newSession()
      yield* agent.prompt(answered, JSON.stringify({ questions: [{ ...single.questions[0]!, header: "Deploy" }] }))
      agent.answerWith(() => ({ action: "decline" }))
      const declined = yield* agent.newSession()
      const failure = JSON.parse((yield* agent.prompt(declined, JSON.stringify(single))).reply) as unknown

      const [announced, completed] = agent.updatesOf(answered).filter((u) => u.sessionUpdate !== "agent_message_chunk")
      expect(announced).toMatchObject({ sessionUpdate: "tool_call", status: "pending", title: "Deploy", kind: "other" })
      const toolCallId = (announced as { toolCallId: string }).toolCallId
      expect(completed).toMatchObject({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: JSON.stringify(singleAnswer) } }]
      })
      expect(failure).toMatchObject({ name: "UserInteractionError", code: "ASK_DECLINED" })
      const [declinedCall, declinedEnd] = agent.updatesOf(declined).filter((u) => u.sessionUpdate !== "agent_message_chunk")
      expect(declinedCall).toMatchObject({ sessionUpdate: "tool_call", title: "Deploy now?" })
      expect(declinedEnd).toMatchObject({
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: JSON.stringify(failure) } }]
      })

      // On the wire the form carries its tool call's id, and comes after the announcement.
      const wire = agent.wire()
      const form = wire.findIndex((m) => m["method"] === "elicitation/create" &&
        (m["params"] as { toolCallId?: string }).toolCallId === toolCallId)
      const call = wire.findIndex((m) => m["method"] === "session/update" &&
        (m["params"] as { update: { sessionUpdate: string; toolCallId?: string } }).update.toolCallId === toolCallId)
      expect(call).toBeGreaterThanOrEqual(0)
      expect(form).toBeGreaterThan(call)
    }))

  it.live("keeps the client's own reason for cancelling a form in the reported error", () =>
    Effect.gen(function*() {
      const agent = yield* rig
      agent.answerWith(() => ({ action: "cancel", _meta: { message: "elicitation handler is unavailable" } }))
      const turn = yield* agent.prompt(yield* agent.newSession(), JSON.stringify(single))
      expect(turn.stopReason).toBe("end_turn")
      const error = JSON.parse(turn.reply) as { code: string; message: string }
      expect(error.code).toBe("ASK_CANCELLED")
      expect(error.message).toContain("elicitation handler is unavailable")
    }))

  it.live("advertises what it does and refuses a relative cwd with -32602", () =>
    Effect.gen(function*() {
      const agent = yield* rig
      // The answer to the client's initialize, as it went on the wire.
      const first = agent.wire().find((m) => (m["result"] as { agentCapabilities?: unknown } | undefined)?.agentCapabilities !== undefined)
      expect((first!["result"] as { agentCapabilities: unknown }).agentCapabilities).toEqual({
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: false }
      })
      for (const cwd of ["relative/dir", "."]) {
        const error = yield* Effect.flip(Effect.tryPromise(() =>
          agent.connection.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })
        ))
        expect(error.cause).toMatchObject({ code: -32602 })
      }
    }))

  // The agent's turns rely on it: the seam is built by `initialize`.
  it.live("refuses a session or a prompt on a connection that was never initialized with -32600, and asks nothing", () =>
    Effect.gen(function*() {
      const agent = yield* rawAgent([], { initialize: false })
      expect((yield* agent.call("session/new", { cwd: process.cwd(), mcpServers: [] })).error).toMatchObject({ code: -32600 })
      expect((yield* agent.call("session/prompt", { sessionId: "s", prompt: [{ type: "text", text: JSON.stringify(single) }] })).error)
        .toMatchObject({ code: -32600 })
      expect(agent.forms()).toEqual([])
    }))

  describe("a client that goes away with a form open", () => {
    const goneWhileAsking = (closeStdin: boolean) =>
      Effect.gen(function*() {
        const agent = yield* rawAgent()
        const sessionId = yield* agent.newSession
        yield* agent.write(agent.prompt(sessionId, JSON.stringify(single)))
        yield* waitFor(() => agent.forms().length === 1, "the form")
        agent.child.stdout!.destroy()
        if (closeStdin) agent.child.stdin!.end()
        // With stdin open, the next prompt's writes meet the closed pipe (EPIPE).
        else yield* agent.write(agent.prompt(sessionId, JSON.stringify(single)))
        const code = yield* Effect.promise(() => agent.exited).pipe(Effect.timeout("5 seconds"))
        expect(code).toBe(0)
        const stderr = agent.stderr.join("")
        expect(stderr.split("\n").filter((line) => line !== "").length).toBeLessThanOrEqual(1)
        expect(stderr).not.toMatch(/^\s+at /m)
      })

    it.live("both pipes closed: the agent exits 0, with one line on stderr at most and no stack trace", () => goneWhileAsking(true))
    it.live("only its stdout closed: the agent exits 0 at the next write, with no stack trace", () => goneWhileAsking(false))
  })

  // The SDK's line reader answers these through the batched stdout's byte writer, in order with the rest.
  it.live("answers a line that is not JSON with -32700 and a JSON array with -32600, and goes on serving", () =>
    Effect.gen(function*() {
      const agent = yield* rawAgent()
      yield* Effect.promise(() => new Promise<void>((resolve) => agent.child.stdin!.write("{not json\n[1,2]\n", () => resolve())))
      yield* waitFor(() => agent.wire().filter((m) => m.id === null).length === 2, "the two refusals")
      expect(agent.wire().filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([-32700, -32600])
      const sessionId = yield* agent.newSession
      expect(sessionId).toEqual(expect.any(String))
    }))
})
