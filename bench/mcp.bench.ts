/**
 * `ask-user mcp` against a bare MCP v2 SDK server, measured in the same
 * process over real stdio:
 *
 * 1. `ask_user_question` tool calls answered per second, the client's human
 *    answering at once, for a client of each protocol era (2026-07-28: the
 *    v2 client pinned to it; 2025-11-25: SDK 1.32.2; 2025-06-18: SDK
 *    1.17.5), and each server's CPU time per call (from /proc, Linux). The
 *    bare server is the SDK's own idiom: `serveStdio` and a
 *    write-once handler returning `inputRequired` with the form `ask-user
 *    mcp` sends to that era's client (the SDK's legacy shim pushes it to
 *    2025-era clients) and the same answer text; no seam, no decoding, no
 *    answer checks, no sealed `requestState`. Both servers are warmed up
 *    first (the JIT); then each round measures both back to back, in
 *    alternating order, and yields one ratio, so a busy moment on the
 *    machine falls on both sides of it. The table shows medians.
 * 2. The time from spawning the server to its answer to `initialize`, for
 *    both servers started the same way (`node <script>`), in paired runs.
 *
 * Run: `npm run build && node --expose-gc bench/mcp.bench.ts`. With
 * `BENCH_BASELINE_BIN=<another build's dist/bin/ask-user.js>` that build's
 * `ask-user mcp` is the baseline instead: a change measured against the code
 * before it, paired the same way.
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
 * The baseline: the same tool on a bare v2 SDK server, sending the same form
 * `ask-user mcp` sends to the era's client (made once here and written into
 * the script as constants; the era is its argument) and the same answer
 * text, without looking at the client's content.
 */
const baselineScript = `
import { inputRequired, McpServer } from ${server("")}
import { serveStdio } from ${server("/stdio")}
const form = process.argv[2] === "2025-06-18" ? ${JSON.stringify(toForm20250618(request))} : ${JSON.stringify({ mode: "form", ...toElicitationForm(request) })}
const text = ${JSON.stringify(JSON.stringify(answer))}
serveStdio(() => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" })
  server.server.registerCapabilities({ tools: {} })
  server.server.setRequestHandler("tools/list", () => ({ tools: [{ name: "ask_user_question", inputSchema: { type: "object" } }] }))
  server.server.setRequestHandler("tools/call", (_request, ctx) => {
    if (ctx.mcpReq.inputResponses?.ask === undefined) return inputRequired({ inputRequests: { ask: inputRequired.elicit(form) } })
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
const commands = {
  baseline: (era: Era) => otherBuild === undefined ? [baselinePath, era] : [otherBuild, "mcp"],
  ours: [askUserPath, "mcp"]
} as const
const baselineName = otherBuild === undefined ? "bare v2 SDK server" : "baseline build"

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
  readonly baseline: ReadonlyArray<Run>
  readonly ours: ReadonlyArray<Run>
}

const rows: Array<Row> = []
const warmUpCalls = 1_000
const rounds = 7
const loads = [[1, 300], [16, 900]] as const

for (const era of eras) {
  const ours = await connect(era, commands.ours)
  const baseline = await connect(era, commands.baseline(era))
  for (const client of [ours, baseline]) await measure(client, warmUpCalls, 4)
  for (const [concurrency, total] of loads) {
    const b: Array<Run> = []
    const o: Array<Run> = []
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        b.push(await measure(baseline, total, concurrency))
        o.push(await measure(ours, total, concurrency))
      } else {
        o.push(await measure(ours, total, concurrency))
        b.push(await measure(baseline, total, concurrency))
      }
    }
    rows.push({ era, concurrency, baseline: b, ours: o })
  }
  await Promise.all([ours.close(), baseline.close()])
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
const startBaseline: Array<number> = []
const startOurs: Array<number> = []
for (let run = 0; run < startRuns; run++) {
  startBaseline.push(await timeToInitialize(commands.baseline("2025-11-25")))
  startOurs.push(await timeToInitialize(commands.ours))
}

const fmt = (n: number) => n.toFixed(0)
/** The median over the rounds of ours against the baseline, each round a pair. */
const paired = (row: Row, pick: (run: Run) => number) => median(row.ours.map((run, i) => pick(run) / pick(row.baseline[i]!)))
process.stdout.write(
  `| client era | calls in flight | ${baselineName}: calls/s | CPU µs per call | ask-user mcp: calls/s | CPU µs per call | paired rate ratio | paired CPU ratio |\n` +
    "|---|---:|---:|---:|---:|---:|---:|---:|\n" +
    rows.map((r) =>
      `| ${r.era} | ${r.concurrency} | ${fmt(median(r.baseline.map((x) => x.rate)))} | ${fmt(median(r.baseline.map((x) => x.cpuMicros)))} | ` +
      `${fmt(median(r.ours.map((x) => x.rate)))} | ${fmt(median(r.ours.map((x) => x.cpuMicros)))} | ` +
      `${paired(r, (x) => x.rate).toFixed(2)}× | ${paired(r, (x) => x.cpuMicros).toFixed(2)}× |`
    ).join("\n") + "\n\n" +
    `${warmUpCalls} warm-up calls per server and era, then ${rounds} paired rounds of ${loads.map(([c, n]) => `${n} calls ${c} at a time`).join(" and ")}; ` +
    "every call is a 3-question form answered at once by the client; medians over the rounds.\n\n" +
    `| start-up to the \`initialize\` answer | ${baselineName} (ms) | ask-user mcp (ms) | ask-user / baseline |\n` +
    "|---|---:|---:|---:|\n" +
    `| median of ${startRuns} paired runs | ${fmt(median(startBaseline))} | ${fmt(median(startOurs))} | ${
      (median(startOurs) / median(startBaseline)).toFixed(2)
    } |\n`
)
rmSync(dir, { recursive: true, force: true })
