/**
 * ACP test rigs: an agent and the SDK's own client app over in-process NDJSON
 * streams, the `ask-user acp` program as a subprocess over real stdio, and a
 * scripted client that records every elicitation it is sent.
 */
import * as acp from "@agentclientprotocol/sdk"
import { type ChildProcess, spawn } from "node:child_process"
import { Readable } from "node:stream"
import { Effect } from "effect"

/** One elicitation as the client saw it, and whether its request was cancelled. */
export interface Seen {
  readonly params: acp.CreateElicitationRequest
  readonly signal: AbortSignal
}

/** How the scripted client answers an elicitation. */
export type Answerer = (seen: Seen) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>

/** Waits for `predicate` by polling, with a generous bound (the machine is slow and shared). */
export const waitFor = (predicate: () => boolean, what: string, boundMillis = 10_000): Effect.Effect<void> =>
  Effect.gen(function*() {
    const until = Date.now() + boundMillis
    while (!predicate()) {
      if (Date.now() > until) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("10 millis")
    }
  })

/** A handler that only settles when its request is cancelled (and then like a well-behaved client). */
export const neverAnswers: Answerer = ({ signal }) =>
  new Promise((_, reject) => signal.addEventListener("abort", () => reject(acp.RequestError.requestCancelled())))

/** The SDK client app with a scripted elicitation handler; `seen` records what it was sent, `completed` the URL-mode elicitations it was told are done. */
export const scriptedClient = (answer: Answerer) => {
  const seen: Array<Seen> = []
  const completed: Array<string> = []
  const updates: Array<acp.SessionNotification> = []
  const app = acp.client({ name: "test-client" })
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => {
      const entry = { params, signal }
      seen.push(entry)
      return answer(entry)
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params)
    })
    .onNotification(acp.methods.client.elicitation.complete, ({ params }) => {
      completed.push(params.elicitationId)
    })
  return { app, seen, completed, updates }
}

/** Who the test client says it is at `initialize`: its answers are `acp:test-client`'s. */
export const clientInfo = { name: "test-client", title: "Test Client", version: "1.0.0" }

/** Which elicitation modes a client declares: form only (the default), URL only, or both. */
export interface Modes {
  readonly form?: boolean
  readonly url?: boolean
}

/** The client's `initialize` params, with form elicitation, URL mode, or both (form alone when not told; URL alone without form). */
export const initializeParams = (form: boolean, url = !form): acp.InitializeRequest => ({
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { elicitation: { ...(form ? { form: {} } : {}), ...(url ? { url: {} } : {}) } },
  clientInfo
})

/** Two NDJSON streams joined back to back, as a transport would join them. */
export const pipePair = () => {
  // Every byte the agent writes, to read back what went on the wire in order.
  const written: Array<Uint8Array> = []
  const agentToClient = new TransformStream<Uint8Array, Uint8Array>({
    transform: (chunk, controller) => {
      written.push(chunk)
      controller.enqueue(chunk)
    }
  })
  const clientToAgent = new TransformStream<Uint8Array, Uint8Array>()
  return {
    agent: acp.ndJsonStream(agentToClient.writable, clientToAgent.readable),
    client: acp.ndJsonStream(clientToAgent.writable, agentToClient.readable),
    /** Ends the client's side, as a client process exiting would (the agent reads EOF). */
    disconnect: () => clientToAgent.writable.close(),
    /** The JSON-RPC messages the agent wrote, in order. */
    agentWrote: (): Array<{ readonly method?: string; readonly params?: unknown; readonly id?: unknown }> =>
      Buffer.concat(written).toString("utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
  }
}

/**
 * A bare agent (it records the client's capabilities) connected to a
 * scripted client in the same process; both are closed with the scope.
 */
export const inProcess = (answer: Answerer, options: Modes = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let capabilities: acp.ClientCapabilities | undefined
      let declared: acp.Implementation | null | undefined
      const agentApp = acp.agent({ name: "test-agent" })
        .onRequest(acp.methods.agent.initialize, ({ params }) => {
          capabilities = params.clientCapabilities
          declared = params.clientInfo
          return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }
        })
      const client = scriptedClient(answer)
      const streams = pipePair()
      const agent = agentApp.connect(streams.agent)
      const connection = client.app.connect(streams.client)
      await connection.agent.request(acp.methods.agent.initialize, initializeParams(options.form ?? true, options.url))
      return {
        agent,
        connection,
        seen: client.seen,
        completed: client.completed,
        updates: client.updates,
        capabilities,
        clientInfo: declared,
        agentWrote: streams.agentWrote
      }
    }),
    ({ agent, connection }) =>
      Effect.sync(() => {
        connection.close()
        agent.close()
      })
  )

/** `node dist/bin/ask-user.js acp ...args` as an ACP agent subprocess (see `spawnProgram`). */
export const spawnAgent = (args: ReadonlyArray<string> = []) => spawnProgram(["dist/bin/ask-user.js", "acp", ...args])

/**
 * `node ...args` with its stdio as the client's ACP stream; `disconnect`
 * ends its stdin; killed with the scope.
 */
export const spawnProgram = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] })
      const writes = writesTo(child)
      const stderr: Array<string> = []
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk))
      // A second listener sees the same bytes the ACP stream reads.
      const stdout: Array<Buffer> = []
      child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      const input = writes.stream
      const stream = acp.ndJsonStream(input, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>)
      const stdoutLines = () => Buffer.concat(stdout).toString("utf8").split("\n").filter((line) => line !== "")
      return { child, stream, stderr, stdoutLines, exited, disconnect: () => input.close(), setWriteMode: writes.setMode }
    }),
    ({ child }) => Effect.sync(() => killQuietly(child))
  )

/**
 * How the client's `session/cancel` reaches the agent: as sent (one write per
 * message), in one write with the message after it (acpx's Stop: the cancel
 * and the open form's `cancel` answer in the same breath), or as its own
 * write with a pause before the next one.
 */
export type WriteMode = "as-sent" | "cancel-with-next" | "cancel-then-pause"

/** The client's side of the child's stdin, writing `session/cancel` as the mode says. */
const writesTo = (child: ChildProcess) => {
  let mode: WriteMode = "as-sent"
  let held: Uint8Array | undefined
  let pauseNext = false
  const write = (bytes: Uint8Array) => new Promise<void>((resolve, reject) =>
    child.stdin!.write(bytes, (error) => error == null ? resolve() : reject(error))
  )
  const isCancel = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8").includes(`"method":"session/cancel"`)
  const stream = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      if (held !== undefined) {
        const both = Buffer.concat([held, chunk])
        held = undefined
        return write(both)
      }
      if (pauseNext) {
        pauseNext = false
        await new Promise((resolve) => setTimeout(resolve, 30))
        return write(chunk)
      }
      if (isCancel(chunk) && mode === "cancel-with-next") {
        held = chunk
        return
      }
      if (isCancel(chunk) && mode === "cancel-then-pause") pauseNext = true
      return write(chunk)
    },
    close: () => new Promise<void>((resolve) => child.stdin!.end(resolve))
  })
  return { stream, setMode: (next: WriteMode) => void (mode = next) }
}

const killQuietly = (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
}

/** The text the agent streamed to a session as `agent_message_chunk`s, in order. */
const chunksOf = (updates: ReadonlyArray<acp.SessionNotification>, sessionId: string): Array<string> =>
  updates.flatMap((n) =>
    n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
      ? [n.update.content.text]
      : []
  )

/**
 * The SDK client app driving an agent over `stream`: initialized (with or
 * without form elicitation), able to open sessions and prompt them. Closed
 * with the scope.
 */
export const driveAgent = (stream: acp.Stream, answer: Answerer, options: Modes = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = scriptedClient(answer)
      const connection = client.app.connect(stream)
      await connection.agent.request(acp.methods.agent.initialize, initializeParams(options.form ?? true, options.url))
      const newSession = () =>
        Effect.promise(() =>
          connection.agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] })
        ).pipe(Effect.map((r) => r.sessionId))
      /** Prompts and waits for the turn's end: its stop reason and the text streamed back during it. */
      const prompt = (sessionId: string, text: string) =>
        Effect.promise(async () => {
          const before = chunksOf(client.updates, sessionId).length
          const response = await connection.agent.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text }]
          })
          return { stopReason: response.stopReason, reply: chunksOf(client.updates, sessionId).slice(before).join("") }
        })
      const cancel = (sessionId: string) =>
        Effect.promise(() => connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }))
      return { connection, seen: client.seen, completed: client.completed, updates: client.updates, newSession, prompt, cancel }
    }),
    ({ connection }) => Effect.sync(() => connection.close())
  )

/** The session an elicitation was sent to. */
export const sessionOf = (params: acp.CreateElicitationRequest): string | undefined =>
  "sessionId" in params && typeof params.sessionId === "string" ? params.sessionId : undefined

/** A JSON-RPC message as the agent wrote it. */
export type WireMessage = {
  readonly id?: unknown
  readonly method?: string
  readonly params?: any
  readonly result?: any
  readonly error?: { readonly code: number; readonly message: string }
}

/**
 * `ask-user acp` as a subprocess driven by raw JSON-RPC lines: for tests that
 * must decide exactly which messages go out in one write, and when.
 */
export const rawAgent = (args: ReadonlyArray<string> = [], options: { readonly initialize?: boolean } = {}) =>
  Effect.gen(function*() {
    const program = yield* spawnAgent(args)
    let nextId = 1
    const wire = (): Array<WireMessage> => program.stdoutLines().map((line) => JSON.parse(line) as WireMessage)
    /** Writes the messages in one write. */
    const write = (...messages: ReadonlyArray<object>) =>
      Effect.promise(() =>
        new Promise<void>((resolve, reject) =>
          program.child.stdin!.write(
            messages.map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`).join(""),
            (error) => error == null ? resolve() : reject(error)
          )
        )
      )
    const request = (method: string, params: unknown) => ({ id: nextId++, method, params })
    const find = (predicate: (m: WireMessage) => boolean, what: string) =>
      waitFor(() => wire().some(predicate), what).pipe(Effect.map(() => wire().find(predicate)!))
    const responseTo = (id: unknown) => find((m) => m.id === id && m.method === undefined, `the response to ${String(id)}`)
    const call = (method: string, params: unknown) => {
      const message = request(method, params)
      return Effect.andThen(write(message), responseTo(message.id))
    }
    const prompt = (sessionId: string, text: string) =>
      request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })
    const cancel = (sessionId: string) => ({ method: "session/cancel", params: { sessionId } })
    const forms = () => wire().filter((m) => m.method === "elicitation/create")
    const updatesOf = (sessionId: string) =>
      wire().filter((m) => m.method === "session/update" && m.params.sessionId === sessionId).map((m) => m.params.update)
    if (options.initialize !== false) yield* call("initialize", initializeParams(true))
    const newSession = Effect.map(call("session/new", { cwd: process.cwd(), mcpServers: [] }), (m) => m.result.sessionId as string)
    return { ...program, wire, write, request, find, responseTo, call, prompt, cancel, forms, updatesOf, newSession }
  })
