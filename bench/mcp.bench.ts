/**
 * `ask-user mcp` against bare MCP v2 SDK servers, measured in the same
 * process over real stdio:
 *
 * 1. `ask_user_question` tool calls answered per second, the client's human
 *    answering at once, for a client of each protocol era (2026-07-28: the
 *    v2 client pinned to it; 2025-11-25: SDK 1.32.2; 2025-06-18: SDK
 *    1.17.5), and each server's CPU time per call (from /proc, Linux). Two
 *    bare servers, both the SDK's own idiom: `serveStdio` and a write-once
 *    handler returning `inputRequired` with the form `ask-user mcp` sends to
 *    that era's client (the SDK's legacy shim pushes it to 2025-era clients)
 *    and the same answer text; no seam, no decoding, no answer checks.
 *    - "bare": no `requestState` at all: it cannot tell one ask's retry from
 *      another's, so it stands for a tool that needs no state.
 *    - "bare, sealed state": a `requestState` minted and verified by the
 *      SDK's `createRequestStateCodec` (`ServerOptions.requestState.verify`),
 *      as the protocol requires of a server whose state the client echoes
 *      (decision 084): the same work asked of `ask-user mcp`, the SDK's way.
 *    Every server is warmed up first (the JIT); then each round measures all
 *    of them back to back, in rotating order, and yields one ratio per
 *    baseline, so a busy moment on the machine falls on both sides of it.
 *    The table shows medians.
 * 2. The time from spawning the server to its answer to `initialize`, for
 *    `ask-user mcp` and the bare server started the same way (`node
 *    <script>`), in paired runs.
 *
 * Run: `npm run build && node --expose-gc bench/mcp.bench.ts`. With
 * `BENCH_BASELINE_BIN=<another build's dist/bin/ask-user.js>` that build's
 * `ask-user mcp` is the one baseline instead: a change measured against the
 * code before it, paired the same way.
 */
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { Client as Client132 } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as Stdio132 } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema as Elicit132 } from "@modelcontextprotocol/sdk/types.js"
import { Client as Client117 } from "mcp-sdk-1-17/client/index.js"
import { StdioClientTransport as Stdio117 } from "mcp-sdk-1-17/client/stdio.js"
import { ElicitRequestSchema as Elicit117 } from "mcp-sdk-1-17/types.js"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { toElicitationContent, toElicitationForm } from "../dist/ElicitationForm.js"
import { toContent20250618, toForm20250618 } from "../dist/mcp/form20250618.js"

type Era = "2026-07-28" | "2025-11-25" | "2025-06-18"
const eras: ReadonlyArray<Era> = ["2026-07-28", "2025-11-25", "2025-06-18"]

const request = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
    { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "search" }], multiSelect: true },
    { id: "name", question: "Project name?" }
  ]
}
const answer = {
  answers: [
    { id: "db", selected: ["Postgres"] },
    { id: "features", selected: ["auth", "search"] },
    { id: "name", selected: [], custom: "atlas" }
  ]
}
const sharedContent = toElicitationContent(request, answer)
const content20250618 = toContent20250618(request, answer)

const server = (path: string) => JSON.stringify(import.meta.resolve(`@modelcontextprotocol/server${path}`))

/**
 * The bare servers: the same tool on a bare v2 SDK server, sending the same
 * form `ask-user mcp` sends to the era's client (made once here and written
 * into the script as constants) and the same answer text, without looking at
 * the client's content. Arguments: the era, then `sealed` for the one whose
 * `requestState` is minted and verified by the SDK's codec (a retry without
 * a good state is refused, as `ask-user mcp` refuses it).
 */
const baselineScript = `
import { randomBytes } from "node:crypto"
import { createRequestStateCodec, inputRequired, McpServer, ProtocolError, ProtocolErrorCode } from ${server("")}
import { serveStdio } from ${server("/stdio")}
const form = process.argv[2] === "2025-06-18" ? ${JSON.stringify(toForm20250618(request))} : ${JSON.stringify({ mode: "form", ...toElicitationForm(request) })}
const text = ${JSON.stringify(JSON.stringify(answer))}
const sealed = process.argv[3] === "sealed"
const codec = createRequestStateCodec({ key: randomBytes(32), ttlSeconds: 24 * 3600 })
let calls = 0
serveStdio(() => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" }, sealed ? { requestState: { verify: codec.verify } } : {})
  server.server.registerCapabilities({ tools: {} })
  server.server.setRequestHandler("tools/list", () => ({ tools: [{ name: "ask_user_question", inputSchema: { type: "object" } }] }))
  server.server.setRequestHandler("tools/call", (_request, ctx) => {
    if (ctx.mcpReq.inputResponses?.ask === undefined) {
      const needs = { inputRequests: { ask: inputRequired.elicit(form) } }
      if (!sealed) return inputRequired(needs)
      return codec.mint({ call: ++calls, round: 1 }).then((requestState) => inputRequired({ ...needs, requestState }))
    }
    if (sealed && ctx.mcpReq.requestState() === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid or expired requestState")
    return { content: [{ type: "text", text }] }
  })
  return server
}, { inputRequired: { roundTimeoutMs: 2147483647 } })
`
const dir = mkdtempSync(join(tmpdir(), "mcp-bench-"))
const baselinePath = join(dir, "baseline.mjs")
writeFileSync(baselinePath, baselineScript)
const askUserPath = fileURLToPath(new URL("../dist/bin/ask-user.js", import.meta.url))
const otherBuild = process.env["BENCH_BASELINE_BIN"]

/** A server under test: its name in the table, and its command line (after `node`) for a client of `era`. */
interface Server {
  readonly name: string
  readonly args: (era: Era) => ReadonlyArray<string>
}

const ours: Server = { name: "ask-user mcp", args: () => [askUserPath, "mcp"] }
const bare: Server = { name: "bare v2 SDK server", args: (era) => [baselinePath, era] }
const baselines: ReadonlyArray<Server> = otherBuild === undefined
  ? [bare, { name: "bare, sealed state", args: (era) => [baselinePath, era, "sealed"] }]
  : [{ name: "baseline build", args: () => [otherBuild, "mcp"] }]
const startBaseline = baselines[0]!

interface Connected {
  readonly call: () => Promise<Record<string, unknown>>
  /** The server's process. */
  readonly pid: number
  readonly close: () => Promise<void>
}

/** A client of `era` over stdio to `node ...args`, whose human answers every form at once. */
const connect = async (era: Era, args: ReadonlyArray<string>): Promise<Connected> => {
  const params = { command: process.execPath, args: [...args], stderr: "ignore" as const }
  const capabilities = { elicitation: { form: {} } }
  const info = { name: "bench", version: "1.0.0" }
  const human = (req: { params: { requestedSchema: { properties: Record<string, unknown> } } }) => ({
    action: "accept" as const,
    content: "question_2_option_1" in req.params.requestedSchema.properties ? content20250618 : sharedContent
  })
  const callParams = { name: "ask_user_question", arguments: request }
  if (era === "2026-07-28") {
    const client = new ClientV2(info, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } })
    client.setRequestHandler("elicitation/create", human as never)
    const transport = new StdioV2(params)
    await client.connect(transport)
    return { call: () => client.callTool(callParams, { timeout: 60_000 }), pid: transport.pid!, close: () => client.close() }
  }
  if (era === "2025-11-25") {
    const client = new Client132(info, { capabilities })
    client.setRequestHandler(Elicit132, human as never)
    const transport = new Stdio132(params)
    await client.connect(transport)
    return { call: () => client.callTool(callParams, undefined, { timeout: 60_000 }), pid: transport.pid!, close: () => client.close() }
  }
  const client = new Client117(info, { capabilities })
  client.setRequestHandler(Elicit117, human as never)
  const transport = new Stdio117(params)
  await client.connect(transport)
  return { call: () => client.callTool(callParams, undefined, { timeout: 60_000 }), pid: transport.pid!, close: () => client.close() }
}

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

/** CPU seconds (user + system) process `pid` has used so far, from /proc (Linux). */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

/** `total` calls, `concurrency` in flight at a time: calls answered per second, and the server's CPU µs per call. */
const measure = async (client: Connected, total: number, concurrency: number) => {
  ;(globalThis as { gc?: () => void }).gc?.()
  let next = 0
  const cpuBefore = cpuSeconds(client.pid)
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < total) {
      const result = await client.call()
      if (result.isError === true) throw new Error(`a call failed: ${JSON.stringify(result.content)}`)
    }
  }))
  const rate = total / ((performance.now() - started) / 1000)
  return { rate, cpuMicros: ((cpuSeconds(client.pid) - cpuBefore) * 1e6) / total }
}

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

type Run = Awaited<ReturnType<typeof measure>>

interface Row {
  readonly era: Era
  readonly concurrency: number
  readonly baseline: Server
  readonly baselineRuns: ReadonlyArray<Run>
  readonly ours: ReadonlyArray<Run>
}

const rows: Array<Row> = []
const warmUpCalls = 1_000
const rounds = 7
const loads = [[1, 300], [16, 900]] as const
const servers = [...baselines, ours]

for (const era of eras) {
  const clients = await Promise.all(servers.map((s) => connect(era, s.args(era))))
  for (const client of clients) await measure(client, warmUpCalls, 4)
  for (const [concurrency, total] of loads) {
    const runs = servers.map((): Array<Run> => [])
    for (let round = 0; round < rounds; round++) {
      // Each round starts with the next server: none of them always goes first.
      for (let k = 0; k < servers.length; k++) {
        const i = (round + k) % servers.length
        runs[i]!.push(await measure(clients[i]!, total, concurrency))
      }
    }
    baselines.forEach((baseline, i) =>
      rows.push({ era, concurrency, baseline, baselineRuns: runs[i]!, ours: runs[servers.length - 1]! })
    )
  }
  await Promise.all(clients.map((client) => client.close()))
}

/** Milliseconds from spawning `node ...args` to the first line on its stdout, the answer to `initialize`. */
const timeToInitialize = (args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "ignore"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (!out.includes("\n")) return
      const took = performance.now() - started
      child.stdin.end()
      child.once("exit", () => resolve(took))
    })
    child.once("error", reject)
    child.stdin.write(`${JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
    })}\n`)
  })

const startRuns = 11
const startBaselineMs: Array<number> = []
const startOursMs: Array<number> = []
for (let run = 0; run < startRuns; run++) {
  startBaselineMs.push(await timeToInitialize(startBaseline.args("2025-11-25")))
  startOursMs.push(await timeToInitialize(ours.args("2025-11-25")))
}

const fmt = (n: number) => n.toFixed(0)
/** The median over the rounds of ours against the row's baseline, each round a pair. */
const paired = (row: Row, pick: (run: Run) => number) =>
  median(row.ours.map((run, i) => pick(run) / pick(row.baselineRuns[i]!)))
process.stdout.write(
  "| client era | calls in flight | baseline | its calls/s | its CPU µs per call | ask-user mcp: calls/s | CPU µs per call | paired rate ratio | paired CPU ratio |\n" +
    "|---|---:|---|---:|---:|---:|---:|---:|---:|\n" +
    rows.map((r) =>
      `| ${r.era} | ${r.concurrency} | ${r.baseline.name} | ${fmt(median(r.baselineRuns.map((x) => x.rate)))} | ${fmt(median(r.baselineRuns.map((x) => x.cpuMicros)))} | ` +
      `${fmt(median(r.ours.map((x) => x.rate)))} | ${fmt(median(r.ours.map((x) => x.cpuMicros)))} | ` +
      `${paired(r, (x) => x.rate).toFixed(2)}× | ${paired(r, (x) => x.cpuMicros).toFixed(2)}× |`
    ).join("\n") + "\n\n" +
    `${warmUpCalls} warm-up calls per server and era, then ${rounds} rounds of ${loads.map(([c, n]) => `${n} calls ${c} at a time`).join(" and ")} on each server; ` +
    "every call is a 3-question form answered at once by the client; medians over the rounds.\n\n" +
    `| start-up to the \`initialize\` answer | ${startBaseline.name} (ms) | ask-user mcp (ms) | ask-user / baseline |\n` +
    "|---|---:|---:|---:|\n" +
    `| median of ${startRuns} paired runs | ${fmt(median(startBaselineMs))} | ${fmt(median(startOursMs))} | ${
      (median(startOursMs) / median(startBaselineMs)).toFixed(2)
    } |\n`
)
rmSync(dir, { recursive: true, force: true })
