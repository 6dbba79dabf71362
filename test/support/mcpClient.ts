/**
 * MCP clients for the MCP tests and benchmark: official SDK clients of three
 * protocol eras with an elicitation handler standing in for the human,
 * connected in process (`InMemoryTransport`) to `serveAskUser`, or over real
 * stdio to the built `ask-user mcp`:
 *
 * - `"2026-07-28"`: `@modelcontextprotocol/client` 2.4.0 pinned to that
 *   revision (forms arrive in `input_required` results; the SDK retries);
 * - `"2025-11-25"`: `@modelcontextprotocol/sdk` 1.32.2 (forms pushed as
 *   `elicitation/create`);
 * - `"2025-06-18"`: `@modelcontextprotocol/sdk` 1.17.5 (that revision's schema).
 *
 * Every client is closed (and its process killed) when the test's scope closes.
 */
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { Client as Client132 } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as Stdio132 } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  ElicitationCompleteNotificationSchema as ElicitationComplete132,
  ElicitRequestSchema as ElicitRequest132
} from "@modelcontextprotocol/sdk/types.js"
import { InMemoryTransport, type JSONRPCMessage, McpServer, type RequestId, type Transport } from "@modelcontextprotocol/server"
import { Client as Client117 } from "mcp-sdk-1-17/client/index.js"
import { StdioClientTransport as Stdio117 } from "mcp-sdk-1-17/client/stdio.js"
import { ElicitRequestSchema as ElicitRequest117 } from "mcp-sdk-1-17/types.js"
import { fileURLToPath } from "node:url"
import { Duration, Effect, Schedule, type Scope } from "effect"
import { serveAskUser, type ServeOptions } from "../../src/mcp/server.js"

/** The protocol revision a test client speaks, and so which SDK it is. */
export type Era = "2026-07-28" | "2025-11-25" | "2025-06-18"

/** The eras, newest first. */
export const eras: ReadonlyArray<Era> = ["2026-07-28", "2025-11-25", "2025-06-18"]

/** A form as the client received it (each era's own schema); a URL-mode elicitation has `url` instead of fields. */
export interface Form {
  readonly mode?: string
  readonly url?: string
  readonly elicitationId?: string
  readonly message: string
  readonly requestedSchema: {
    readonly properties: Record<string, any>
    readonly required?: Array<string>
  }
}

/** What the human answers. */
export interface Reply {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: Record<string, unknown>
}

/** The human behind the client: answers one form. `signal` aborts when the server cancels it. */
export type Human = (form: Form, signal: AbortSignal) => Reply | Promise<Reply>

/** What a tool call returned: its `isError` flag and its text parsed as JSON. */
export interface ToolOutcome {
  readonly isError: boolean
  readonly json: any
}

/** A connected client and what its human saw. */
export interface TestClient {
  readonly era: Era
  /** Every form shown, in order. */
  readonly forms: Array<Form>
  /** The forms whose request the server cancelled (`notifications/cancelled` reached the handler). */
  readonly cancelled: Array<Form>
  /** The `elicitationId` of each `notifications/elicitation/complete` the client got (2025-11-25). */
  readonly completed: Array<string>
  /** Calls `ask_user_question` with `args`. */
  readonly ask: (args: unknown, options?: { readonly signal?: AbortSignal }) => Promise<ToolOutcome>
  /** Lists the server's tools. */
  readonly listTools: () => Promise<{ readonly tools: ReadonlyArray<any> }>
  /** Calls any tool; rejects on a protocol error. */
  readonly callTool: (name: string, args: unknown) => Promise<unknown>
  /** The SDK client itself, for era-specific checks. */
  readonly sdk: any
}

/** The client's own request timeout for tool calls: far beyond any test, so only the server decides. */
const callTimeout = Duration.toMillis(Duration.hours(1))

export interface ClientOptions {
  /** Which client; default `"2025-11-25"` (SDK 1.32.2). */
  readonly era?: Era
  /** The elicitation capability to advertise; `false` for none. Default `{ form: {} }`. */
  readonly elicitation?: Record<string, unknown> | false
  readonly human?: Human
}

const never: Human = (_form, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }))

/** A client of `era`, not connected yet, whose elicitation handler records forms and asks `human`. */
const makeClient = (
  era: Era,
  options: ClientOptions,
  forms: Array<Form>,
  cancelled: Array<Form>,
  completed: Array<string>
): any => {
  const elicitation = options.elicitation ?? { form: {} }
  const capabilities: any = elicitation === false ? {} : { elicitation }
  const info = { name: `test-client-${era}`, version: "1.0.0" }
  const client: any = era === "2026-07-28"
    ? new ClientV2(info, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } })
    : era === "2025-11-25"
    ? new Client132(info, { capabilities })
    : new Client117(info, { capabilities })
  if (elicitation === false) return client
  const human = options.human ?? never
  const handler = (request: { params: Form }, extra: any) => {
    const form = request.params
    const signal: AbortSignal = extra?.signal ?? extra?.mcpReq?.signal ?? new AbortController().signal
    forms.push(form)
    signal.addEventListener("abort", () => cancelled.push(form), { once: true })
    return human(form, signal)
  }
  if (era === "2026-07-28") client.setRequestHandler("elicitation/create", handler)
  else client.setRequestHandler(era === "2025-11-25" ? ElicitRequest132 : ElicitRequest117, handler)
  if (era === "2025-11-25") {
    client.setNotificationHandler(ElicitationComplete132, (notification: { params: { elicitationId: string } }) => {
      completed.push(notification.params.elicitationId)
    })
  }
  return client
}

export const connectClient = (
  transport: Transport,
  options: ClientOptions = {}
): Effect.Effect<TestClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const era = options.era ?? "2025-11-25"
    const forms: Array<Form> = []
    const cancelled: Array<Form> = []
    const completed: Array<string> = []
    const client = makeClient(era, options, forms, cancelled, completed)
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close())
    )
    const callTool = (name: string, args: unknown, callOptions: { readonly signal?: AbortSignal } = {}) =>
      era === "2026-07-28"
        ? client.callTool({ name, arguments: args }, { timeout: callTimeout, ...callOptions })
        : client.callTool({ name, arguments: args }, undefined, { timeout: callTimeout, ...callOptions })
    const ask = async (args: unknown, callOptions: { readonly signal?: AbortSignal } = {}): Promise<ToolOutcome> => {
      const result = await callTool("ask_user_question", args, callOptions)
      const content = result.content as Array<{ type: string; text: string }>
      return { isError: result.isError === true, json: JSON.parse(content[0]!.text) }
    }
    return {
      era,
      forms,
      cancelled,
      completed,
      ask,
      listTools: () => client.listTools(),
      callTool: (name, args) => callTool(name, args),
      sdk: client
    }
  })

/**
 * An `McpServer` of the test's own (no tool installed: the test builds its
 * provider on it) connected in process to a client of the given options.
 */
export const connectedServer = (options: ClientOptions = {}) =>
  Effect.gen(function*() {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    const server = new McpServer({ name: "host", version: "1.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() => server.connect(serverTransport)),
      () => Effect.promise(() => server.close())
    )
    const client = yield* connectClient(clientTransport, options)
    return { server, client, clientTransport }
  })

/** What went over an in-process link, with the request a message was sent as related to. */
export interface Wire {
  /** Server to client. */
  readonly sent: Array<JSONRPCMessage>
  /** `relatedRequestId` of each message in `sent`. */
  readonly relatedTo: Array<RequestId | undefined>
  /** Client to server. */
  readonly received: Array<JSONRPCMessage>
}

/** A linked in-process pair whose traffic is recorded. */
export const recordedPair = (): Wire & { readonly client: Transport; readonly server: Transport } => {
  const [client, server] = InMemoryTransport.createLinkedPair()
  const wire: Wire = { sent: [], relatedTo: [], received: [] }
  const serverSend = server.send.bind(server)
  server.send = (message, sendOptions) => {
    wire.sent.push(message)
    wire.relatedTo.push(sendOptions?.relatedRequestId)
    return serverSend(message, sendOptions)
  }
  const clientSend = client.send.bind(client)
  client.send = (message, sendOptions) => {
    wire.received.push(message)
    return clientSend(message, sendOptions)
  }
  return { ...wire, client, server }
}

/** `serveAskUser` and a client linked in process, with the wire recorded. */
export const inProcess = (
  options: ClientOptions & ServeOptions = {}
): Effect.Effect<TestClient & Wire, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pair = recordedPair()
    yield* serveAskUser(pair.server, { timeout: options.timeout, secretPage: options.secretPage })
    const client = yield* connectClient(pair.client, options)
    return { ...client, sent: pair.sent, relatedTo: pair.relatedTo, received: pair.received }
  })

/** The built program (compiled by `test/globalSetup.ts`). */
export const askUserBin = fileURLToPath(new URL("../../dist/bin/ask-user.js", import.meta.url))

/** The built program, `node dist/bin/ask-user.js mcp ...args`, as a subprocess over real stdio. */
export const overStdio = (
  args: ReadonlyArray<string>,
  options: ClientOptions = {}
): Effect.Effect<TestClient & OverStdio, never, Scope.Scope> => nodeOverStdio([askUserBin, "mcp", ...args], options)

/** A server subprocess: its pid, what it wrote on stderr, and every message between it and the client. */
export interface OverStdio {
  readonly pid: number
  readonly stderr: () => string
  /** Every JSON-RPC message either side sent, as JSON text, in order. */
  readonly wire: () => Array<string>
}

/** `node ...args` (an MCP server on stdio) as a subprocess, with a client of the given era. */
export const nodeOverStdio = (
  args: ReadonlyArray<string>,
  options: ClientOptions = {}
): Effect.Effect<TestClient & OverStdio, never, Scope.Scope> =>
  Effect.gen(function*() {
    const era = options.era ?? "2025-11-25"
    const params = { command: process.execPath, args: [...args], stderr: "pipe" as const }
    const transport = era === "2026-07-28"
      ? new StdioV2(params)
      : era === "2025-11-25"
      ? new Stdio132(params)
      : new Stdio117(params)
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const wire: Array<string> = []
    const send = transport.send.bind(transport)
    transport.send = (message: any, ...rest: Array<any>) => {
      wire.push(JSON.stringify(message))
      return (send as any)(message, ...rest)
    }
    const client = yield* connectClient(transport as Transport, options)
    // Set by the client's `connect`: wrapped after it, so the server's every later message is seen.
    const onmessage = transport.onmessage!
    transport.onmessage = (message: any, ...rest: Array<any>) => {
      wire.push(JSON.stringify(message))
      return (onmessage as any)(message, ...rest)
    }
    return { ...client, pid: transport.pid!, stderr: () => stderr, wire: () => wire }
  })

/** Polls `condition` every 10 ms until it holds (at most `bound`, generous for a slow shared machine). */
export const waitFor = (condition: () => boolean, bound: Duration.Input = "10 seconds"): Effect.Effect<void> =>
  Effect.suspend(() => condition() ? Effect.void : Effect.fail(new Error("waitFor: the condition never held"))).pipe(
    Effect.retry({ schedule: Schedule.spaced("10 millis") }),
    Effect.timeout(bound),
    Effect.orDie
  )

/** How a raw client answers one server request: a JSON-RPC `result` or `error`, or no reply at all. */
export type RawReply = { readonly result: unknown } | { readonly error: { code: number; message: string } } | "no reply"

/** A client that speaks JSON-RPC by hand, for replies no SDK client would send. */
export interface RawClient {
  /** Calls `ask_user_question` with `args`: the tool result, or the JSON-RPC error. */
  readonly ask: (args: unknown) => Promise<{ readonly result?: any; readonly error?: any }>
  /** Every request the server sent, in order. */
  readonly requests: Array<{ readonly method: string; readonly params?: any }>
}

/**
 * `serveAskUser` in process with a 2025-era client written by hand: it
 * initializes as `era` with form elicitation, and answers each server
 * request (`ping`, `elicitation/create`) with `reply(method, params)`, sent
 * as is.
 */
export const rawClient = (
  era: "2025-11-25" | "2025-06-18",
  reply: (method: string, params: any) => RawReply
): Effect.Effect<RawClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const [client, server] = InMemoryTransport.createLinkedPair()
    yield* serveAskUser(server)
    const waiting = new Map<string, (message: any) => void>()
    const requests: Array<{ method: string; params?: any }> = []
    client.onmessage = (message: any) => {
      if ("method" in message && "id" in message) {
        requests.push({ method: message.method, params: message.params })
        const answer = reply(message.method, message.params)
        if (answer !== "no reply") void client.send({ jsonrpc: "2.0", id: message.id, ...answer } as JSONRPCMessage)
      } else if ("id" in message) waiting.get(String(message.id))?.(message)
    }
    yield* Effect.promise(() => client.start())
    let next = 0
    const call = (method: string, params: unknown) =>
      new Promise<any>((resolve) => {
        const id = `c${next++}`
        waiting.set(id, resolve)
        void client.send({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage)
      })
    yield* Effect.promise(() =>
      call("initialize", {
        protocolVersion: era,
        capabilities: { elicitation: era === "2025-06-18" ? {} : { form: {} } },
        clientInfo: { name: `raw-${era}`, version: "1.0.0" }
      })
    )
    yield* Effect.promise(() => client.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage))
    return {
      requests,
      ask: (args) => call("tools/call", { name: "ask_user_question", arguments: args })
    }
  })
