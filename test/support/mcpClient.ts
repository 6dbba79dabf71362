/**
 * MCP clients for the MCP tests and benchmark: the SDK's own `Client` with an
 * elicitation handler standing in for the human, connected in process
 * (`InMemoryTransport`) to `serveAskUser`, or over real stdio to the built
 * `ask-user mcp`. Every client is closed (and its process killed) when the
 * test's scope closes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type ClientCapabilities,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
  type JSONRPCMessage,
  type RequestId
} from "@modelcontextprotocol/sdk/types.js"
import { fileURLToPath } from "node:url"
import { Duration, Effect, Schedule, type Scope } from "effect"
import { serveAskUser, type ServeOptions } from "../../src/mcp/server.js"

/** The human behind the client: answers one form. `signal` aborts when the server cancels it. */
export type Human = (form: ElicitRequestFormParams, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>

/** What a tool call returned: its `isError` flag and its text parsed as JSON. */
export interface ToolOutcome {
  readonly isError: boolean
  readonly json: any
}

/** A connected client and what its human saw. */
export interface TestClient {
  readonly client: Client
  /** Every form shown, in order. */
  readonly forms: Array<ElicitRequestFormParams>
  /** The forms whose request the server cancelled (`notifications/cancelled` reached the handler). */
  readonly cancelled: Array<ElicitRequestFormParams>
  /** Calls `ask_user_question` with `args`. */
  readonly ask: (args: unknown, options?: { readonly signal?: AbortSignal }) => Promise<ToolOutcome>
}

/** The client's own request timeout for tool calls: far beyond any test, so only the server decides. */
const callTimeout = Duration.toMillis(Duration.hours(1))

export interface ClientOptions {
  /** The elicitation capability to advertise; `false` for none. Default `{ form: {} }`. */
  readonly elicitation?: ClientCapabilities["elicitation"] | false
  readonly human?: Human
}

const never: Human = (_form, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }))

export const connectClient = (
  transport: Transport,
  options: ClientOptions = {}
): Effect.Effect<TestClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const elicitation = options.elicitation ?? { form: {} }
    const client = new Client(
      { name: "test-client", version: "1.0.0" },
      { capabilities: elicitation === false ? {} : { elicitation } }
    )
    const forms: Array<ElicitRequestFormParams> = []
    const cancelled: Array<ElicitRequestFormParams> = []
    const human = options.human ?? never
    if (elicitation !== false) {
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
        const form = request.params as ElicitRequestFormParams
        forms.push(form)
        extra.signal.addEventListener("abort", () => cancelled.push(form), { once: true })
        return human(form, extra.signal)
      })
    }
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close())
    )
    const ask = async (args: unknown, callOptions: { readonly signal?: AbortSignal } = {}): Promise<ToolOutcome> => {
      const result = await client.callTool(
        { name: "ask_user_question", arguments: args as Record<string, unknown> },
        undefined,
        { timeout: callTimeout, ...callOptions }
      )
      const content = result.content as Array<{ type: string; text: string }>
      return { isError: result.isError === true, json: JSON.parse(content[0]!.text) }
    }
    return { client, forms, cancelled, ask }
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

/** `serveAskUser` and a client linked in process, with the wire recorded. */
export const inProcess = (
  options: ClientOptions & ServeOptions = {}
): Effect.Effect<TestClient & Wire, never, Scope.Scope> =>
  Effect.gen(function*() {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    const wire: Wire = { sent: [], relatedTo: [], received: [] }
    const serverSend = serverTransport.send.bind(serverTransport)
    serverTransport.send = (message, sendOptions) => {
      wire.sent.push(message)
      wire.relatedTo.push(sendOptions?.relatedRequestId)
      return serverSend(message, sendOptions)
    }
    const clientSend = clientTransport.send.bind(clientTransport)
    clientTransport.send = (message, sendOptions) => {
      wire.received.push(message)
      return clientSend(message, sendOptions)
    }
    yield* serveAskUser(serverTransport, { timeout: options.timeout })
    const client = yield* connectClient(clientTransport, options)
    return { ...client, ...wire }
  })

/** The built program (compiled by `test/globalSetup.ts`). */
export const askUserBin = fileURLToPath(new URL("../../dist/bin/ask-user.js", import.meta.url))

/** The built program, `node dist/bin/ask-user.js mcp ...args`, as a subprocess over real stdio. */
export const overStdio = (
  args: ReadonlyArray<string>,
  options: ClientOptions = {}
): Effect.Effect<TestClient & { readonly pid: number; readonly stderr: () => string }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [askUserBin, "mcp", ...args],
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const client = yield* connectClient(transport, options)
    return { ...client, pid: transport.pid!, stderr: () => stderr }
  })

/** Polls `condition` every 10 ms until it holds (at most `bound`, generous for a slow shared machine). */
export const waitFor = (condition: () => boolean, bound: Duration.Input = "10 seconds"): Effect.Effect<void> =>
  Effect.suspend(() => condition() ? Effect.void : Effect.fail(new Error("waitFor: the condition never held"))).pipe(
    Effect.retry({ schedule: Schedule.spaced("10 millis") }),
    Effect.timeout(bound),
    Effect.orDie
  )
