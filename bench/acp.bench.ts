/**
 * ACP elicitation round trips per second over real stdio: the SDK's own
 * client app (its human answering at once) prompting `ask-user acp`
 * (prompt -> seam -> AcpProvider -> `elicitation/create` -> answer JSON as an
 * `agent_message_chunk`), against a bare SDK agent doing the same exchange
 * with one fixed form and no seam, no decoding and no answer checks. Both
 * agents are subprocesses measured in the same run; each prompt turn holds
 * exactly one elicitation round trip. Sequential (one session) and with 50
 * sessions prompting at once.
 *
 * Run: `npm run build && node --expose-gc bench/acp.bench.ts`
 */
import * as acp from "@agentclientprotocol/sdk"
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { Readable, Writable } from "node:stream"
import { toElicitationContent } from "../dist/ElicitationForm.js"
import { printTable, time } from "./support.ts"

const request = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
    { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "search" }], multiSelect: true },
    { id: "name", question: "Project name?" }
  ]
}
const content = toElicitationContent(request, {
  answers: [
    { id: "db", selected: ["Postgres"] },
    { id: "features", selected: ["auth", "search"] },
    { id: "name", selected: [], custom: "atlas" }
  ]
})

const stdio = () => acp.ndJsonStream(
  Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>
)

/** The baseline agent (this file run with `--baseline-agent`): the same exchange on the bare SDK. */
const baselineAgent = () => {
  let sessions = 0
  const connection = acp.agent({ name: "baseline" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `s${sessions++}` }))
    .onRequest(acp.methods.agent.session.prompt, async ({ client, params }) => {
      const response = await client.request(acp.methods.client.elicitation.create, {
        sessionId: params.sessionId,
        mode: "form",
        message: "Questions",
        requestedSchema: {
          type: "object",
          properties: {
            question_1: { type: "string", title: "Which database?", oneOf: [{ const: "Postgres", title: "Postgres" }, { const: "SQLite", title: "SQLite" }] },
            question_1_custom: { type: "string", title: "Other" },
            question_2: { type: "array", title: "Which features?", items: { anyOf: [{ const: "auth", title: "auth" }, { const: "search", title: "search" }] } },
            question_2_custom: { type: "string", title: "Other" },
            question_3: { type: "string", title: "Project name?" }
          },
          required: ["question_3"]
        }
      })
      const text = JSON.stringify(response.action === "accept" ? response.content : response)
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }
      })
      return { stopReason: "end_turn" as const }
    })
    .connect(stdio())
  void connection.closed.then(() => process.exit(0))
}

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

/** An SDK client connected to `command` over stdio, answering every form at once. */
const connectTo = async (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] })
  let replies = 0
  const connection = acp.client({ name: "bench-client" })
    .onRequest(acp.methods.client.elicitation.create, () => ({ action: "accept", content }))
    .onNotification(acp.methods.client.session.update, () => {
      replies++
    })
    .connect(acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>
    ))
  await connection.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } }
  })
  const sessions = await Promise.all(Array.from({ length: 50 }, () =>
    connection.agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] })
      .then((r) => r.sessionId)))
  const prompt: Array<acp.ContentBlock> = [{ type: "text", text: JSON.stringify(request) }]
  const turns = async (sessionId: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const { stopReason } = await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt })
      if (stopReason !== "end_turn") throw new Error(`unexpected stop reason ${stopReason}`)
    }
  }
  return {
    sequential: (n: number) => turns(sessions[0]!, n),
    concurrent: (n: number) => Promise.all(sessions.map((s) => turns(s, n / sessions.length))),
    replies: () => replies,
    cpu: () => cpuSeconds(child.pid!),
    close: () => {
      connection.close()
      child.kill()
    }
  }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const main = async () => {
  const sequentialTurns = 1_000
  const concurrentTurns = 2_500
  const rounds = 3
  const agents = [
    { name: "bare SDK agent (baseline)", args: [import.meta.filename, "--baseline-agent"] },
    { name: "ask-user acp", args: ["dist/bin/ask-user.js", "acp"] }
  ]
  const connected = await Promise.all(agents.map((a) => connectTo(a.args)))
  const rates = agents.map(() => ({ sequential: [] as Array<number>, concurrent: [] as Array<number>, cpu: [] as Array<number> }))
  try {
    // Alternate the agents round by round, so a busy moment on the machine hits both.
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < agents.length; i++) {
        const agent = connected[i]!
        const cpuBefore = agent.cpu()
        rates[i]!.sequential.push(sequentialTurns / (await time(sequentialTurns, () => agent.sequential(sequentialTurns))).seconds)
        rates[i]!.concurrent.push(concurrentTurns / (await time(concurrentTurns, () => agent.concurrent(concurrentTurns))).seconds)
        // time() runs each body twice (warm-up, then measured).
        rates[i]!.cpu.push((agent.cpu() - cpuBefore) / (2 * (sequentialTurns + concurrentTurns)))
      }
    }
    connected.forEach((agent, i) => {
      // Every turn streamed its reply: two measured runs (warm-up included) per round and mode.
      if (agent.replies() !== rounds * 2 * (sequentialTurns + concurrentTurns)) throw new Error(`${agents[i]!.name}: replies missing`)
    })
  } finally {
    connected.forEach((agent) => agent.close())
  }
  const medians = rates.map((r) => ({
    sequential: median(r.sequential),
    concurrent: median(r.concurrent),
    cpu: median(r.cpu)
  }))
  const base = medians[0]!
  const rate = (n: number) => Math.round(n).toLocaleString("en")
  printTable(
    [
      "agent",
      "sequential: round trips/s",
      "µs each",
      "50 sessions at once: round trips/s",
      "µs each",
      "vs baseline (sequential / 50)",
      "agent CPU µs per round trip",
      "CPU vs baseline"
    ],
    agents.map(({ name }, i) => {
      const m = medians[i]!
      return [
        name,
        rate(m.sequential),
        (1e6 / m.sequential).toFixed(0),
        rate(m.concurrent),
        (1e6 / m.concurrent).toFixed(0),
        `${(m.sequential / base.sequential).toFixed(2)}× / ${(m.concurrent / base.concurrent).toFixed(2)}×`,
        (m.cpu * 1e6).toFixed(0),
        `${(m.cpu / base.cpu).toFixed(2)}×`
      ]
    })
  )
  process.stdout.write(`Median of ${rounds} alternating rounds; ${sequentialTurns} sequential turns and ${concurrentTurns} turns over 50 sessions per round.\n`)
}

if (process.argv.includes("--baseline-agent")) baselineAgent()
else await main()
