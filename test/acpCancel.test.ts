/**
 * How a turn of `ask-user acp` ends when something other than the form's
 * answer ends it: `session/cancel` followed by a new prompt or by the
 * timeout, prompts piling up in one session, `$/cancel_request` for the
 * prompt, a signal to the process. The built program over real stdio, driven
 * by raw JSON-RPC lines so each test decides what goes out in one write.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { rawAgent, waitFor, type WireMessage } from "./acpHarness.js"
import { single } from "./support/requests.js"

type Raw = Effect.Success<ReturnType<typeof rawAgent>>

const accept = { action: "accept", content: { question_1: "yes" } }

/** The position of the first message matching `predicate` on the agent's stdout (-1 when none). */
const indexOf = (wire: ReadonlyArray<WireMessage>, predicate: (m: WireMessage) => boolean) => wire.findIndex(predicate)

const cancelRequestFor = (form: WireMessage) => (m: WireMessage) =>
  m.method === "$/cancel_request" && m.params.requestId === form.id

/** What a session's tool calls reported, as `id:status`. */
const toolCalls = (agent: Raw, sessionId: string) =>
  agent.updatesOf(sessionId).filter((u) => u.sessionUpdate !== "agent_message_chunk").map((u) => `${u.toolCallId}:${u.status}`)

const chunks = (agent: Raw, sessionId: string) =>
  agent.updatesOf(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk")

/** Prompts `single` and waits for its form; returns the prompt and the form. */
const openForm = (agent: Raw, sessionId: string) =>
  Effect.gen(function*() {
    const before = agent.forms().length
    const prompt = agent.prompt(sessionId, JSON.stringify(single))
    yield* agent.write(prompt)
    yield* agent.find(() => agent.forms().length > before, "the form")
    return { prompt, form: agent.forms()[before]! }
  })

describe("ask-user acp: a turn ended by the client, a newer prompt or a signal", () => {
  for (const gap of [undefined, 50, 200] as const) {
    it.live(`session/cancel then a new prompt ${gap === undefined ? "in the same write" : `${gap} ms later`}: the old turn ends cancelled with no failed tool call`, () =>
      Effect.gen(function*() {
        const agent = yield* rawAgent()
        const sessionId = yield* agent.newSession
        const first = yield* openForm(agent, sessionId)
        const second = agent.prompt(sessionId, JSON.stringify(single))
        if (gap === undefined) {
          yield* agent.write(agent.cancel(sessionId), second)
        } else {
          yield* agent.write(agent.cancel(sessionId))
          yield* Effect.sleep(gap)
          yield* agent.write(second)
        }
        expect((yield* agent.responseTo(first.prompt.id)).result).toEqual({ stopReason: "cancelled" })
        yield* agent.find(() => agent.forms().length === 2, "the second form")
        yield* agent.write({ id: agent.forms()[1]!.id, result: accept })
        expect((yield* agent.responseTo(second.id)).result).toEqual({ stopReason: "end_turn" })
        // The first tool call was announced and never reported failed; the only chunk is the second turn's answer.
        expect(toolCalls(agent, sessionId)).toEqual([
          "ask_user_question_1:pending",
          "ask_user_question_2:pending",
          "ask_user_question_2:completed"
        ])
        expect(chunks(agent, sessionId)).toHaveLength(1)
        const wire = agent.wire()
        const secondForm = agent.forms()[1]!
        expect(indexOf(wire, cancelRequestFor(first.form))).toBeLessThan(indexOf(wire, (m) => m.id === first.prompt.id && m.method === undefined))
        expect(indexOf(wire, (m) => m.id === first.prompt.id && m.method === undefined))
          .toBeLessThan(indexOf(wire, (m) => m.method === "elicitation/create" && m.id === secondForm.id))
        expect(agent.stderr.join("")).toBe("")
      }))
  }

  it.live("session/cancel, then the --timeout passes within the grace: the turn ends cancelled with no failed tool call", () =>
    Effect.gen(function*() {
      // The timeout must pass after the cancel and within its 500 ms grace: any
      // cancel between 200 ms and 700 ms does, so a slow machine has 450 ms.
      const agent = yield* rawAgent(["--timeout", "700ms"])
      const sessionId = yield* agent.newSession
      const { form, prompt } = yield* openForm(agent, sessionId)
      yield* Effect.sleep("250 millis")
      yield* agent.write(agent.cancel(sessionId))
      expect((yield* agent.responseTo(prompt.id)).result).toEqual({ stopReason: "cancelled" })
      yield* Effect.sleep("300 millis")
      expect(toolCalls(agent, sessionId)).toEqual(["ask_user_question_1:pending"])
      expect(chunks(agent, sessionId)).toEqual([])
      expect(agent.wire().some(cancelRequestFor(form))).toBe(true)
      expect(agent.stderr.join("")).toBe("")
    }))

  for (const spacing of ["one write", "2 ms apart"] as const) {
    it.live(`prompts piling up in one session (${spacing}): one turn at a time, each newer prompt ends the older ones first, 10 times`, () =>
      Effect.gen(function*() {
        const agent = yield* rawAgent()
        for (let run = 0; run < 10; run++) {
          const sessionId = yield* agent.newSession
          const first = yield* openForm(agent, sessionId)
          const second = agent.prompt(sessionId, JSON.stringify(single))
          const third = agent.prompt(sessionId, JSON.stringify(single))
          if (spacing === "one write") {
            yield* agent.write(second, third)
          } else {
            yield* agent.write(second)
            yield* Effect.sleep("2 millis")
            yield* agent.write(third)
          }
          // The newest prompt's form comes after the older prompts' replies.
          const replyTo = (id: unknown) => indexOf(agent.wire(), (m) => m.id === id && m.method === undefined)
          yield* agent.responseTo(second.id)
          yield* agent.find(
            (m) => m.method === "elicitation/create" && indexOf(agent.wire(), (n) => n.id === m.id && n.method === m.method) > replyTo(second.id),
            "the newest prompt's form"
          )
          // Give a wrongly started second form time to show.
          yield* Effect.sleep("100 millis")
          const wire = agent.wire()
          const forms = wire.filter((m) => m.method === "elicitation/create" && m.params.sessionId === sessionId)
          const formAt = (form: WireMessage) => wire.indexOf(form)
          // At most one form open at a time: each one is cancelled on the wire before the next goes out.
          for (let k = 1; k < forms.length; k++) {
            expect(indexOf(wire, cancelRequestFor(forms[k - 1]!))).toBeGreaterThanOrEqual(0)
            expect(indexOf(wire, cancelRequestFor(forms[k - 1]!))).toBeLessThan(formAt(forms[k]!))
          }
          const newest = formAt(forms[forms.length - 1]!)
          for (const older of [first.prompt, second]) {
            const reply = replyTo(older.id)
            expect(wire[reply]!.result).toEqual({ stopReason: "cancelled" })
            expect(reply).toBeLessThan(newest)
          }
          // The newest is the one that asks; a later session/cancel ends it, and nothing else is open.
          yield* agent.write(agent.cancel(sessionId))
          expect((yield* agent.responseTo(third.id)).result).toEqual({ stopReason: "cancelled" })
          expect(chunks(agent, sessionId)).toEqual([])
          expect(toolCalls(agent, sessionId).filter((call) => !call.endsWith(":pending"))).toEqual([])
        }
        expect(agent.stderr.join("")).toBe("")
      }), { timeout: 120_000 })
  }

  it.live("$/cancel_request for the prompt cancels its form on the wire and answers the prompt -32800", () =>
    Effect.gen(function*() {
      const agent = yield* rawAgent()
      const sessionId = yield* agent.newSession
      const { form, prompt } = yield* openForm(agent, sessionId)
      yield* agent.write({ method: "$/cancel_request", params: { requestId: prompt.id } })
      const reply = yield* agent.responseTo(prompt.id)
      expect(reply.error?.code).toBe(-32800)
      const wire = agent.wire()
      expect(indexOf(wire, cancelRequestFor(form))).toBeGreaterThanOrEqual(0)
      expect(indexOf(wire, cancelRequestFor(form))).toBeLessThan(indexOf(wire, (m) => m.id === prompt.id && m.method === undefined))
      expect(toolCalls(agent, sessionId)).toEqual(["ask_user_question_1:pending"])
      expect(chunks(agent, sessionId)).toEqual([])
      // The session asks again as usual.
      const next = yield* openForm(agent, sessionId)
      yield* agent.write({ id: next.form.id, result: accept })
      expect((yield* agent.responseTo(next.prompt.id)).result).toEqual({ stopReason: "end_turn" })
    }))

  // docs/acp.md: a form answered in the same breath as the cancel, in either order, counts as the cancel.
  const cancels = [
    {
      what: "session/cancel",
      message: (agent: Raw, sessionId: string, _prompt: WireMessage): object => agent.cancel(sessionId),
      ends: "the turn ends cancelled",
      check: (reply: WireMessage) => expect(reply.result).toEqual({ stopReason: "cancelled" })
    },
    {
      what: "$/cancel_request for the prompt",
      message: (_agent: Raw, _sessionId: string, prompt: WireMessage): object => ({ method: "$/cancel_request", params: { requestId: prompt.id } }),
      ends: "-32800",
      check: (reply: WireMessage) => expect(reply.error?.code).toBe(-32800)
    }
  ] as const
  for (const order of ["cancel first", "answer first"] as const) {
    for (const { check, ends, message, what } of cancels) {
      it.live(`${what} and an accepted form in one write (${order}): ${ends}, no answer streamed, 10 times`, () =>
        Effect.gen(function*() {
          const agent = yield* rawAgent()
          for (let run = 0; run < 10; run++) {
            const sessionId = yield* agent.newSession
            const { form, prompt } = yield* openForm(agent, sessionId)
            const answer = { id: form.id, result: accept }
            const cancel = message(agent, sessionId, prompt)
            yield* order === "cancel first" ? agent.write(cancel, answer) : agent.write(answer, cancel)
            check(yield* agent.responseTo(prompt.id))
            expect(chunks(agent, sessionId)).toEqual([])
            // Announced, never reported: a client marks a cancelled turn's tool calls itself.
            expect(toolCalls(agent, sessionId).filter((call) => call.startsWith(`${form.params.toolCallId}:`)))
              .toEqual([`${form.params.toolCallId}:pending`])
            // session/cancel leaves the client its grace to answer: an answered form is never cancelled on the
            // wire. $/cancel_request cancels the form at once, and may cross the answer already sent.
            if (what === "session/cancel") expect(agent.wire().some(cancelRequestFor(form))).toBe(false)
          }
          expect(agent.stderr.join("")).toBe("")
        }))
    }
  }

  it.live("$/cancel_request right behind its prompt (one write): no form, no tool call, the prompt answered -32800", () =>
    Effect.gen(function*() {
      const agent = yield* rawAgent()
      const sessionId = yield* agent.newSession
      const prompt = agent.prompt(sessionId, JSON.stringify(single))
      yield* agent.write(prompt, { method: "$/cancel_request", params: { requestId: prompt.id } })
      expect((yield* agent.responseTo(prompt.id)).error?.code).toBe(-32800)
      expect(agent.forms()).toEqual([])
      expect(toolCalls(agent, sessionId)).toEqual([])
      expect(chunks(agent, sessionId)).toEqual([])
    }))

  it.live("prompts for a fresh session in one write: only the newest opens a form, the older ones answered cancelled", () =>
    Effect.gen(function*() {
      const agent = yield* rawAgent()
      const sessionId = yield* agent.newSession
      const prompts = Array.from({ length: 8 }, () => agent.prompt(sessionId, JSON.stringify(single)))
      yield* agent.write(...prompts)
      for (const prompt of prompts.slice(0, -1)) {
        expect((yield* agent.responseTo(prompt.id)).result).toEqual({ stopReason: "cancelled" })
      }
      yield* agent.find((m) => m.method === "elicitation/create", "the newest prompt's form")
      expect(agent.forms()).toHaveLength(1)
      yield* agent.write({ id: agent.forms()[0]!.id, result: accept })
      expect((yield* agent.responseTo(prompts.at(-1)!.id)).result).toEqual({ stopReason: "end_turn" })
      expect(toolCalls(agent, sessionId)).toEqual(["ask_user_question_1:pending", "ask_user_question_1:completed"])
    }))

  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
    it.live(`on ${signal} with a form open, cancels the form and answers the prompt cancelled before it exits ${code}`, () =>
      Effect.gen(function*() {
        const agent = yield* rawAgent()
        const sessionId = yield* agent.newSession
        const { form, prompt } = yield* openForm(agent, sessionId)
        agent.child.kill(signal)
        expect(yield* Effect.promise(() => agent.exited)).toBe(code)
        const wire = agent.wire()
        const cancelled = indexOf(wire, cancelRequestFor(form))
        const reply = indexOf(wire, (m) => m.id === prompt.id && m.method === undefined)
        expect(cancelled).toBeGreaterThanOrEqual(0)
        expect(reply).toBeGreaterThan(cancelled)
        expect(wire[reply]!.result).toEqual({ stopReason: "cancelled" })
        expect(toolCalls(agent, sessionId)).toEqual(["ask_user_question_1:pending"])
        expect(agent.stderr.join("")).toBe("")
      }))
  }

  it.live("shows client-chosen text the SDK logs on stderr inert", () =>
    Effect.gen(function*() {
      const agent = yield* rawAgent()
      yield* agent.write({ id: "\u001b]0;PWNED\u0007\u001b[2J\u202e", result: {} })
      yield* waitFor(() => agent.stderr.join("").includes("PWNED"), "the SDK's log line")
      const stderr = agent.stderr.join("")
      expect(stderr).toContain("PWNED")
      expect(stderr).not.toMatch(/[\u001b\u0007\u202e]/)
    }))
})
