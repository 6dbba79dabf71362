/**
 * `ask_user_question` tool calls answered per second over MCP, the client's
 * human answering at once: `ask-user mcp` (tool -> seam -> McpProvider ->
 * elicitation) against a bare MCP SDK server whose tool calls `elicitInput`
 * directly, measured in the same process, over real stdio and in memory.
 *
 * Run: `npm run build && node --expose-gc bench/mcp.bench.ts`
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { toElicitationContent } from "../dist/ElicitationForm.js"
import { serveAskUser } from "../dist/mcp/server.js"

const request = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
    { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "search" }], multi_select: true },
    { id: "name", question: "Project name?" }
  ]
}
const content = toElicitationContent(
  { questions: [request.questions[0]!, { ...request.questions[1]!, multiSelect: true }, request.questions[2]!] },
  {
    answers: [
      { id: "db", selected: ["Postgres"] },
      { id: "features", selected: ["auth", "search"] },
      { id: "name", selected: [], custom: "atlas" }
    ]
  }
)

/**
 * The baseline: the same tool on a bare SDK server, no seam, no decoding, no
 * answer checks; one fixed form sent straight to `elicitInput`.
 */
const sdk = (path: string) => JSON.stringify(import.meta.resolve(`@modelcontextprotocol/sdk/${path}`))
const baselineServer = `
import { McpServer } from ${sdk("server/mcp.js")}
import { StdioServerTransport } from ${sdk("server/stdio.js")}
import { CallToolRequestSchema, ListToolsRequestSchema } from ${sdk("types.js")}
export const serveBaseline = async (transport) => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" })
  server.server.registerCapabilities({ tools: {} })
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "ask_user_question", inputSchema: { type: "object" } }] }))
  server.server.setRequestHandler(CallToolRequestSchema, async () => {
    const result = await server.server.elicitInput({ mode: "form", message: "Questions", requestedSchema: {
      type: "object",
      properties: {
        question_1: { type: "string", oneOf: [{ const: "Postgres", title: "Postgres" }, { const: "SQLite", title: "SQLite" }] },
        question_1_custom: { type: "string" },
        question_2: { type: "array", items: { anyOf: [{ const: "auth", title: "auth" }, { const: "search", title: "search" }] } },
        question_2_custom: { type: "string" },
        question_3: { type: "string" }
      },
      required: ["question_3"]
    } }, { timeout: 2147483647 })
    return { content: [{ type: "text", text: JSON.stringify(result.content) }] }
  })
  await server.connect(transport)
  return server
}
if (process.argv[1] === "stdio") {
  await serveBaseline(new StdioServerTransport())
  process.stdin.on("end", () => process.exit(0))
}
`
const baselineModule = `data:text/javascript,${encodeURIComponent(baselineServer)}`

const connect = async (transport: Transport): Promise<Client> => {
  const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } })
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content }))
  await client.connect(transport)
  return client
}

const stdio = (args: Array<string>) =>
  connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }))

const call = (client: Client) =>
  client.callTool({ name: "ask_user_question", arguments: request }, undefined, { timeout: 60_000 })

/** Warms a connection up (JIT, the first ask's ping) before it is measured. */
const warm = async (client: Client): Promise<Client> => {
  for (let i = 0; i < 30; i++) await call(client)
  return client
}

/** Calls answered per second: `total` calls, `concurrency` in flight at a time. */
const measure = async (client: Client, total: number, concurrency: number): Promise<number> => {
  ;(globalThis as { gc?: () => void }).gc?.()
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < total) {
      const result = await call(client)
      if (result.isError === true) throw new Error(`a call failed: ${JSON.stringify(result.content)}`)
    }
  }))
  return total / ((performance.now() - started) / 1000)
}

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

interface Row {
  readonly transport: string
  readonly concurrency: number
  readonly baseline: number
  readonly ours: number
}

const rows: Array<Row> = []
const rounds = 5

// Over real stdio: two subprocesses, measured alternately.
{
  const ours = await warm(await stdio([fileURLToPath(new URL("../dist/bin/ask-user.js", import.meta.url)), "mcp"]))
  const baseline = await warm(await stdio(["--input-type=module", "-e", `await import(${JSON.stringify(baselineModule)})`, "stdio"]))
  for (const [concurrency, total] of [[1, 50], [16, 150]] as const) {
    const b: Array<number> = []
    const o: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      b.push(await measure(baseline, total, concurrency))
      o.push(await measure(ours, total, concurrency))
    }
    rows.push({ transport: "stdio", concurrency, baseline: median(b), ours: median(o) })
  }
  await Promise.all([ours.close(), baseline.close()])
}

// In memory: the server in this process, so only the libraries' own work is measured.
{
  const scope = Effect.runSync(Scope.make())
  const [oursClient, oursServer] = InMemoryTransport.createLinkedPair()
  await Effect.runPromise(serveAskUser(oursServer).pipe(Scope.provide(scope)))
  const ours = await warm(await connect(oursClient))
  const { serveBaseline } = await import(baselineModule) as { serveBaseline: (t: Transport) => Promise<{ close: () => Promise<void> }> }
  const [baselineClient, baselineServerTransport] = InMemoryTransport.createLinkedPair()
  const bareServer = await serveBaseline(baselineServerTransport)
  const baseline = await warm(await connect(baselineClient))
  const b: Array<number> = []
  const o: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    b.push(await measure(baseline, 100, 1))
    o.push(await measure(ours, 100, 1))
  }
  rows.push({ transport: "in memory", concurrency: 1, baseline: median(b), ours: median(o) })
  await Promise.all([ours.close(), baseline.close(), bareServer.close()])
  await Effect.runPromise(Scope.close(scope, Exit.void))
}

const fmt = (n: number) => n.toFixed(0)
process.stdout.write(
  "| transport | calls in flight | bare SDK server (calls/s) | ask-user mcp (calls/s) | ask-user / bare |\n" +
    "|---|---:|---:|---:|---:|\n" +
    rows.map((r) =>
      `| ${r.transport} | ${r.concurrency} | ${fmt(r.baseline)} | ${fmt(r.ours)} | ${(r.ours / r.baseline).toFixed(2)} |`
    ).join("\n") + "\n\n" +
    `Median of ${rounds} alternating rounds; every call is a 3-question form answered at once by the client.\n`
)
