/**
 * `ask-user mcp` end to end: the built program (`node dist/bin/ask-user.js
 * mcp`) as a subprocess, driven over real stdio by the MCP SDK's own `Client`
 * whose elicitation handler plays the human.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { Effect, Exit, Scope } from "effect"
import { type AskUserQuestionRequest, toElicitationContent } from "effect-user-interaction"
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { toContent20250618 } from "../src/mcp/form20250618.js"
import { askUserBin, type Era, eras, type Form, type Human, overStdio, type Reply, waitFor } from "./support/mcpClient.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"
import { tempDir } from "./cliHarness.js"

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

  it.live("a reply the SDK cannot read (`\"result\": null`) fails that ask PROVIDER_FAILED at once, and the server goes on", () =>
    Effect.gen(function*() {
      const child = spawn(process.execPath, [askUserBin, "mcp"], { stdio: ["pipe", "pipe", "pipe"] })
      yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      const messages = () => stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line))
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
      send({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo: { name: "raw", version: "1" } }
      })
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      for (const [call, reply] of [["first", null], ["second", "accept"]] as const) {
        send({ jsonrpc: "2.0", id: call, method: "tools/call", params: { name: "ask_user_question", arguments: single } })
        yield* waitFor(() => messages().some((m) => m.method === "elicitation/create"))
        const form = messages().find((m) => m.method === "elicitation/create")
        // A null result, then a string one: neither is a JSON-RPC response the SDK can read.
        child.stdin.write(`{"jsonrpc":"2.0","id":${JSON.stringify(form.id)},"result":${JSON.stringify(reply)}}\n`)
        yield* waitFor(() => messages().some((m) => m.id === call))
        const outcome = messages().find((m) => m.id === call)
        const json = JSON.parse(outcome.result.content[0].text)
        expect(errorCode(json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
        expect(json.message).toMatch(/^The MCP client's form failed: The client's reply is not a JSON-RPC response/)
        // The next round reads only what comes after this one.
        stdout = ""
      }
      expect(stderr).toBe("")
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

/** A single-select question and a multi-select one: the shapes the eras' forms differ on. */
const choices: AskUserQuestionRequest = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
    {
      id: "features",
      question: "Which features?",
      options: [{ label: "auth", description: "Sign-in" }, { label: "billing" }, { label: "search" }],
      multiSelect: true
    }
  ]
}

/** The Other text on question 1 (its choice left empty) and two of question 2's options. */
const choicesAnswer = {
  answers: [
    { id: "db", selected: [], custom: "DuckDB" },
    { id: "features", selected: ["auth", "search"] }
  ]
}

/** What each era's human sends for `choicesAnswer`: the select field as "" next to the filled-in Other. */
const choicesContent = (era: Era): Record<string, unknown> =>
  era === "2025-06-18"
    ? { ...toContent20250618(choices, choicesAnswer), question_1: "" }
    : { ...toElicitationContent(choices, choicesAnswer), question_1: "" }

/** The form each era's client must get. */
const expectFormOfEra = (era: Era, form: Form) => {
  const { properties } = form.requestedSchema
  if (era === "2025-06-18") {
    expect(form.mode).toBeUndefined()
    expect(properties.question_1).toEqual({
      type: "string",
      title: "Which database?",
      enum: ["Postgres", "SQLite"],
      enumNames: ["Postgres", "SQLite"]
    })
    expect(properties.question_2).toBeUndefined()
    expect([1, 2, 3].map((k) => properties[`question_2_option_${k}`])).toEqual([
      { type: "boolean", title: "auth", description: "Sign-in" },
      { type: "boolean", title: "billing" },
      { type: "boolean", title: "search" }
    ])
  } else {
    expect(form.mode).toBe("form")
    expect(properties.question_1).toMatchObject({ type: "string", oneOf: [{ const: "Postgres" }, { const: "SQLite" }] })
    expect(properties.question_2).toMatchObject({ type: "array", items: { anyOf: expect.any(Array) } })
  }
}

describe("ask-user mcp over stdio, one client of each protocol era in the same run", () => {
  for (const era of eras) {
    it.live(`${era}: accept (Other text with the choice left empty, multi-select), decline, cancel`, () =>
      Effect.gen(function*() {
        const h = yield* overStdio([], {
          era,
          human: inTurn(
            () => accept(choicesContent(era)),
            () => ({ action: "decline" }),
            () => ({ action: "cancel" })
          )
        })
        expect(yield* Effect.promise(() => h.ask(choices))).toEqual({ isError: false, json: choicesAnswer })
        expectFormOfEra(era, h.forms[0]!)
        const declined = yield* Effect.promise(() => h.ask(choices))
        expect(declined.isError).toBe(true)
        expect(errorCode(declined.json)).toEqual({ name: "UserInteractionError", code: "ASK_DECLINED" })
        const cancelled = yield* Effect.promise(() => h.ask(choices))
        expect(cancelled.isError).toBe(true)
        expect(errorCode(cancelled.json)).toEqual({ name: "UserInteractionError", code: "ASK_CANCELLED" })
        expect(h.forms).toHaveLength(3)
        expect(h.stderr()).toBe("")
      }))
  }

  it.live("2026-07-28: a tampered requestState is refused, and a genuine one answers once only", () =>
    Effect.gen(function*() {
      const h = yield* overStdio([], { era: "2026-07-28" })
      const manual = (params: object) =>
        Effect.promise((): Promise<any> =>
          h.sdk.callTool({ name: "ask_user_question", arguments: single, ...params }, { allowInputRequired: true })
            .then((result: unknown) => ({ result }), (error: any) => ({ error: { code: error.code, message: error.message } }))
        )
      const first = yield* manual({})
      expect(first.result).toMatchObject({ resultType: "input_required", inputRequests: { ask: { method: "elicitation/create" } } })
      const state: string = first.result.requestState
      const reply = { ask: { action: "accept", content: { question_1: "yes" } } }
      const [head, body, mac] = state.split(".") as [string, string, string]
      const forged = Buffer.from(body, "base64url").toString("utf8").replace(/"round":\d+/, "\"round\":99")
      for (const tampered of [`${state}x`, `${head}.${Buffer.from(forged).toString("base64url")}.${mac}`, "not a state"]) {
        expect(yield* manual({ inputResponses: reply, requestState: tampered })).toEqual({
          error: { code: -32602, message: "Invalid or expired requestState" }
        })
      }
      expect(yield* manual({ inputResponses: reply, requestState: state })).toMatchObject({
        result: { content: [{ type: "text", text: JSON.stringify(singleAnswer) }] }
      })
      // Replayed: the ask it belonged to is over.
      expect(yield* manual({ inputResponses: reply, requestState: state })).toMatchObject({ error: { code: -32602 } })
      // The client's own human never saw a form: every round above was driven by hand.
      expect(h.forms).toEqual([])
    }))

  it.live("2026-07-28: --timeout settles the ask; a retry after it gets ASK_TIMEOUT, and its state is refused after that", () =>
    Effect.gen(function*() {
      const h = yield* overStdio(["--timeout", "1s"], { era: "2026-07-28" })
      const first = yield* Effect.promise((): Promise<any> =>
        h.sdk.callTool({ name: "ask_user_question", arguments: single }, { allowInputRequired: true })
      )
      yield* Effect.sleep("1500 millis")
      const retry = () =>
        h.sdk.callTool(
          { name: "ask_user_question", arguments: single, inputResponses: { ask: { action: "accept", content: { question_1: "yes" } } }, requestState: first.requestState },
          { allowInputRequired: true }
        ).then((result: any) => result, (error: any) => error.code)
      // The person answered too late: the model learns that, not an answer and not a protocol error.
      const late: any = yield* Effect.promise(retry)
      expect(late.isError).toBe(true)
      expect(errorCode(JSON.parse(late.content[0].text))).toEqual({ name: "UserInteractionError", code: "ASK_TIMEOUT" })
      expect(yield* Effect.promise(retry)).toBe(-32602)
    }))
})

describe("ask-user mcp when its client is killed mid-question", () => {
  /**
   * A client process (SDK 1.32.2) that runs `ask-user mcp` through a shell
   * which outlives it and records the server's exit status and stderr in files.
   */
  const clientScript = (dir: string) => `
    import { Client } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/client/index.js"))}
    import { StdioClientTransport } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/client/stdio.js"))}
    import { ElicitRequestSchema } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/types.js"))}
    const server = ${JSON.stringify(`"${process.execPath}" "${askUserBin}" mcp 2>"${join(dir, "stderr")}"; echo $? >"${join(dir, "status")}"`)}
    const client = new Client({ name: "doomed", version: "1" }, { capabilities: { elicitation: { form: {} } } })
    client.setRequestHandler(ElicitRequestSchema, () => { process.stdout.write("form\\n"); return new Promise(() => {}) })
    await client.connect(new StdioClientTransport({ command: "sh", args: ["-c", server] }))
    client.callTool({ name: "ask_user_question", arguments: { questions: [{ id: "a", question: "A?" }] } }, undefined, { timeout: 3600000 })
  `

  it.live("the server exits 0 within 1 s, with nothing on stderr but at most one line and no stack trace", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.sync(tempDir)
      const script = join(dir, "client.mjs")
      writeFileSync(script, clientScript(dir))
      const client = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] })
      yield* Effect.addFinalizer(() => Effect.sync(() => client.kill("SIGKILL")))
      let out = ""
      client.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
      yield* waitFor(() => out.includes("form"), "20 seconds")
      const killedAt = performance.now()
      client.kill("SIGKILL")
      yield* waitFor(() => existsSync(join(dir, "status")) && readFileSync(join(dir, "status"), "utf8").endsWith("\n"))
      const tookMs = performance.now() - killedAt
      expect(readFileSync(join(dir, "status"), "utf8").trim()).toBe("0")
      const stderr = readFileSync(join(dir, "stderr"), "utf8")
      expect(stderr.split("\n").filter(Boolean).length).toBeLessThanOrEqual(1)
      expect(stderr).not.toMatch(/EPIPE|MaxListeners|\n\s+at /)
      // The issue's bound: a client that is gone must not keep a server process around.
      expect(tookMs).toBeLessThan(1000)
    }))

  it.live("a client that closes only the server's stdout, a form open and stdin still open: the server exits 0 at its next writes, without a warning", () =>
    Effect.gen(function*() {
      const server = spawn(process.execPath, [askUserBin, "mcp"], { stdio: ["pipe", "pipe", "pipe"] })
      yield* Effect.addFinalizer(() => Effect.sync(() => server.kill("SIGKILL")))
      const exited = new Promise<number | null>((resolve) => server.once("exit", resolve))
      let out = ""
      let err = ""
      server.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
      server.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
      const send = (message: object) => server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
      const clientInfo = { name: "raw", version: "1" }
      send({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo } })
      yield* waitFor(() => out.includes(`"id":1`), "20 seconds")
      send({ method: "notifications/initialized" })
      send({ id: 2, method: "tools/call", params: { name: "ask_user_question", arguments: single } })
      yield* waitFor(() => out.includes("elicitation/create"), "20 seconds")
      server.stdout.destroy()
      // The client still writes: the answers to these pings, read in one go, meet the closed pipe
      // before the server has noticed (each one left two listeners on stdout: a warning at eleven).
      server.stdin.write(Array.from({ length: 20 }, (_, i) => `${JSON.stringify({ jsonrpc: "2.0", id: `p${i}`, method: "ping" })}\n`).join(""))
      const code = yield* Effect.promise(() => exited).pipe(Effect.timeout("5 seconds"))
      expect(code).toBe(0)
      expect(err.split("\n").filter(Boolean).length).toBeLessThanOrEqual(1)
      expect(err).not.toMatch(/EPIPE|MaxListeners|\n\s+at /)
    }))

  it.live("a stdout that fails for another reason (a full disk) ends the server with exit 1 and one line naming it", () =>
    Effect.gen(function*() {
      const full = openSync("/dev/full", "w")
      const server = spawn(process.execPath, [askUserBin, "mcp"], { stdio: ["pipe", full, "pipe"] })
      closeSync(full)
      yield* Effect.addFinalizer(() => Effect.sync(() => server.kill("SIGKILL")))
      const exited = new Promise<number | null>((resolve) => server.once("exit", resolve))
      let err = ""
      server.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
      const clientInfo = { name: "raw", version: "1" }
      const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo } }
      server.stdin!.write(`${JSON.stringify(initialize)}\n`)
      const code = yield* Effect.promise(() => exited).pipe(Effect.timeout("20 seconds"))
      expect(code).toBe(1)
      expect(err.split("\n").filter(Boolean)).toEqual([expect.stringContaining("ask-user: cannot write the protocol's messages: ENOSPC")])
      expect(err).not.toMatch(/\n\s+at /)
    }))
})
