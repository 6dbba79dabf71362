/**
 * `ask-user mcp` end to end: the built program (`node dist/bin/ask-user.js
 * mcp`) as a subprocess, driven over real stdio by the MCP SDK's own `Client`
 * whose elicitation handler plays the human.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { Effect, Exit, Scope } from "effect"
import { type AskUserQuestionRequest, toElicitationContent } from "effect-user-interaction"
import { askUserBin, type Human, overStdio, type Reply, waitFor } from "./support/mcpClient.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

const accept = (content: Record<string, unknown>): Reply => ({ action: "accept", content })
const errorCode = (json: any) => ({ name: json.name, code: json.code })

/** A human who gives the scripted replies in turn. */
const inTurn = (...replies: Array<Human>): Human => {
  let next = 0
  return (form, signal) => replies[next++]!(form, signal)
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const optionless: AskUserQuestionRequest = { questions: [{ id: "why", question: "Why?" }] }

describe("ask-user mcp over stdio", () => {
  it.live("accept (single, multi, optionless, custom overriding, skip), decline, cancel, bad content and bad arguments", () =>
    Effect.gen(function*() {
      const h = yield* overStdio([], {
        human: inTurn(
          () => accept(toElicitationContent(batch, batchAnswer)),
          () => accept({ question_1: "yes", question_1_custom: "on Friday" }),
          () => accept({}),
          () => accept({ question_1: "" }),
          () => ({ action: "decline" }),
          () => ({ action: "cancel" }),
          () => accept({ question_1: "perhaps" })
        )
      })
      expect(yield* Effect.promise(() => h.ask(batch))).toEqual({ isError: false, json: batchAnswer })
      expect(yield* Effect.promise(() => h.ask(single))).toEqual({
        isError: false,
        json: { answers: [{ id: "go", selected: [], custom: "on Friday" }] }
      })
      expect(yield* Effect.promise(() => h.ask(single))).toEqual({
        isError: false,
        json: { answers: [{ id: "go", selected: [] }] }
      })
      expect(yield* Effect.promise(() => h.ask(optionless))).toEqual({
        isError: false,
        json: { answers: [{ id: "why", selected: [] }] }
      })
      const declined = yield* Effect.promise(() => h.ask(single))
      expect(declined.isError).toBe(true)
      expect(errorCode(declined.json)).toEqual({ name: "UserInteractionError", code: "ASK_DECLINED" })
      const cancelled = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(cancelled.json)).toEqual({ name: "UserInteractionError", code: "ASK_CANCELLED" })
      const invalid = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(invalid.json)).toEqual({ name: "UserInteractionError", code: "INVALID_ANSWER" })
      const badArgs = yield* Effect.promise(() => h.ask({ questions: [{ id: "", question: "?" }] }))
      expect(errorCode(badArgs.json)).toEqual({ name: "UserInteractionError", code: "INVALID_REQUEST" })
      expect(badArgs.json.message).toContain("questions[0].id")
      expect(h.forms).toHaveLength(7)
    }))

  it.live("a client without elicitation gets PROVIDER_FAILED", () =>
    Effect.gen(function*() {
      const blind = yield* overStdio([], { elicitation: false })
      const failed = yield* Effect.promise(() => blind.ask(single))
      expect(errorCode(failed.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(failed.json.message).toContain("elicitation")
    }))

  it.live("the client cancelling the tool call aborts its first elicitation; the server answers the next call", () =>
    Effect.gen(function*() {
      const h = yield* overStdio([], {
        human: inTurn(
          (_form, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
          () => accept(toElicitationContent(single, singleAnswer))
        )
      })
      const abort = new AbortController()
      const call = h.ask(single, { signal: abort.signal })
      call.catch(() => undefined)
      yield* waitFor(() => h.forms.length === 1)
      abort.abort("never mind")
      yield* waitFor(() => h.cancelled.length === 1)
      expect(yield* Effect.promise(() => h.ask(single))).toEqual({ isError: false, json: singleAnswer })
    }))

  it.live("two concurrent tool calls never get each other's answers; closing the client ends the server", () =>
    Effect.gen(function*() {
      const waiting: Array<{ readonly message: string; readonly reply: (r: Reply) => void }> = []
      const scope = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
      const h = yield* overStdio([], {
        human: (form) => new Promise((reply) => waiting.push({ message: form.message, reply }))
      }).pipe(Scope.provide(scope))
      const red: AskUserQuestionRequest = { questions: [{ id: "red", question: "Red?", options: [{ label: "r1" }, { label: "r2" }] }] }
      const blue: AskUserQuestionRequest = { questions: [{ id: "blue", question: "Blue?", options: [{ label: "b1" }, { label: "b2" }] }] }
      const calls = Promise.all([h.ask(red), h.ask(blue)])
      yield* waitFor(() => waiting.length === 2)
      for (const { message, reply } of [...waiting].reverse()) {
        reply(accept({ question_1: message.includes("Red?") ? "r2" : "b1" }))
      }
      const [r, b] = yield* Effect.promise(() => calls)
      expect(r.json).toEqual({ answers: [{ id: "red", selected: ["r2"] }] })
      expect(b.json).toEqual({ answers: [{ id: "blue", selected: ["b1"] }] })
      expect(isAlive(h.pid)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      yield* waitFor(() => !isAlive(h.pid))
    }))

  it.live("--timeout ends an unanswered ask with ASK_TIMEOUT and cancels its elicitation", () =>
    Effect.gen(function*() {
      const h = yield* overStdio(["--timeout", "1s"])
      const outcome = yield* Effect.promise(() => h.ask(single))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "ASK_TIMEOUT" })
      yield* waitFor(() => h.cancelled.length === 1)
    }))

  it.live("stdout carries only protocol messages, and the server exits 0 when stdin ends", () =>
    Effect.gen(function*() {
      const child = spawn(process.execPath, [askUserBin, "mcp"], { stdio: ["pipe", "pipe", "pipe"] })
      yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
      })
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
      yield* waitFor(() => stdout.split("\n").filter(Boolean).length === 2)
      child.stdin.end()
      expect(yield* Effect.promise(() => exited)).toBe(0)
      const lines = stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line))
      expect(lines.map((m) => [m.jsonrpc, m.id])).toEqual([["2.0", 1], ["2.0", 2]])
      expect(lines[1].result.tools.map((t: { name: string }) => t.name)).toEqual(["ask_user_question"])
    }))
})
