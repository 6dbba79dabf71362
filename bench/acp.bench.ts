/**
 * ACP elicitation round trips per second over real stdio: the SDK's own
 * client app (its human answering at once) prompting `ask-user acp`
 * (prompt -> seam -> AcpProvider -> tool call + `elicitation/create` ->
 * answer JSON as an `agent_message_chunk`), against a bare SDK agent sending
 * the same messages on the wire (made once from constants) with no seam, no
 * decoding and no answer checks.
 *
 * Honest pairing: both agents are subprocesses of this run, warmed up with
 * 5,000 sequential and 5,000 concurrent turns each before anything is
 * measured (both agents' CPU per turn still falls for thousands of turns:
 * the JIT; the first 500 turns are printed apart as the cold cost); each
 * round runs both agents
 * back to back (their order alternating) and yields one ratio per round, so
 * a busy moment on the machine falls on both sides of a ratio. The table
 * shows the median of those paired ratios, next to each agent's CPU time
 * per turn (read from /proc, Linux), which the machine's load disturbs far
 * less than wall-clock rates.
 *
 * Run: `npm run build && node --expose-gc bench/acp.bench.ts`. With
 * `BENCH_BASELINE_BIN=<another build's dist/bin/ask-user.js>` that build's
 * `ask-user acp` is the baseline instead: a change measured against the code
 * before it, paired the same way.
 */
import * as acp from "@agentclientprotocol/sdk"
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { Readable, Writable } from "node:stream"
import { elicitationParams } from "../dist/acp/elicit.js"
import { toolCallFinished, toolCallStarted } from "../dist/acp/toolCall.js"
import { toElicitationContent } from "../dist/ElicitationForm.js"
import { printTable } from "./support.ts"

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

// What `ask-user acp` sends for this request, made once: the baseline sends the same bytes, so
// the comparison is of the work per turn, not of message sizes (ours carry the tool call's raw
// input and output and the form's field descriptions).
const answerText = JSON.stringify({
  answers: [
    { id: "db", selected: ["Postgres"] },
    { id: "features", selected: ["auth", "search"] },
    { id: "name", selected: [], custom: "atlas" }
  ]
})
const started = toolCallStarted(request, "")
const finished = toolCallFinished("", { answer: JSON.parse(answerText) })
const form = elicitationParams(request, { sessionId: "", toolCallId: "" })

/**
 * The baseline agent (this file run with `--baseline-agent`): the same exchange on the bare SDK,
 * with the same messages, made from constants; no seam, no decoding, no answer checks.
 */
const baselineAgent = () => {
  let sessions = 0
  let toolCalls = 0
  const connection = acp.agent({ name: "baseline" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `s${sessions++}` }))
    .onRequest(acp.methods.agent.session.prompt, async ({ client, params }) => {
      const { sessionId } = params
      const toolCallId = `ask_user_question_${++toolCalls}`
      void client.notify(acp.methods.client.session.update, { sessionId, update: { ...started, toolCallId } })
      await client.request(acp.methods.client.elicitation.create, { ...form, sessionId, toolCallId })
      void client.notify(acp.methods.client.session.update, { sessionId, update: { ...finished, toolCallId } })
      await client.notify(acp.methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: answerText } }
      })
      return { stopReason: "end_turn" as const }
    })
    .connect(stdio())
  void connection.closed.then(() => process.exit(0))
}

/** Another build of `ask-user` to measure against instead of the bare agent. */
const otherBuild = process.env["BENCH_BASELINE_BIN"]

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
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") replies++
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

/** One measured run: wall-clock seconds and the agent's CPU seconds for `n` turns. */
const measure = async (agent: Awaited<ReturnType<typeof connectTo>>, n: number, body: (n: number) => Promise<unknown>) => {
  globalThis.gc?.()
  const cpuBefore = agent.cpu()
  const start = performance.now()
  await body(n)
  return { rate: n / ((performance.now() - start) / 1000), cpuPerTurn: (agent.cpu() - cpuBefore) / n }
}

const main = async () => {
  const warmUpTurns = 5_000
  const coldTurns = 500
  const sequentialTurns = 1_500
  const concurrentTurns = 4_500
  const rounds = 9
  const agents = [
    otherBuild === undefined
      ? { name: "bare SDK agent (baseline)", args: [import.meta.filename, "--baseline-agent"] }
      : { name: "baseline build", args: [otherBuild, "acp"] },
    { name: "ask-user acp", args: ["dist/bin/ask-user.js", "acp"] }
  ]
  const connected = await Promise.all(agents.map((a) => connectTo(a.args)))
  type Run = { readonly rate: number; readonly cpuPerTurn: number }
  const cold: Array<Run> = []
  const runs = agents.map(() => ({ sequential: [] as Array<Run>, concurrent: [] as Array<Run> }))
  try {
    // Both agents warmed up (JIT, caches) before anything counts; the first turns are the cold cost.
    for (const [i, agent] of connected.entries()) {
      cold[i] = await measure(agent, coldTurns, agent.sequential)
      await agent.sequential(warmUpTurns - coldTurns)
      await agent.concurrent(warmUpTurns)
    }
    for (let round = 0; round < rounds; round++) {
      // Back to back, in alternating order: each round is one pair.
      const order = round % 2 === 0 ? [0, 1] : [1, 0]
      for (const i of order) {
        const agent = connected[i]!
        runs[i]!.sequential.push(await measure(agent, sequentialTurns, agent.sequential))
        runs[i]!.concurrent.push(await measure(agent, concurrentTurns, agent.concurrent))
      }
    }
    connected.forEach((agent, i) => {
      // Every turn streamed its reply.
      if (agent.replies() !== 2 * warmUpTurns + rounds * (sequentialTurns + concurrentTurns)) {
        throw new Error(`${agents[i]!.name}: replies missing`)
      }
    })
  } finally {
    connected.forEach((agent) => agent.close())
  }
  const paired = (mode: "sequential" | "concurrent", pick: (run: Run) => number, i: number) =>
    median(runs[i]![mode].map((run, round) => pick(run) / pick(runs[0]![mode][round]!)))
  const rate = (n: number) => Math.round(n).toLocaleString("en")
  printTable(
    [
      "agent",
      "sequential: turns/s",
      "CPU µs per turn",
      "50 sessions at once: turns/s",
      "CPU µs per turn",
      "paired rate ratio (sequential / 50)",
      "paired CPU ratio (sequential / 50)"
    ],
    agents.map(({ name }, i) => {
      const r = runs[i]!
      return [
        name,
        rate(median(r.sequential.map((x) => x.rate))),
        (median(r.sequential.map((x) => x.cpuPerTurn)) * 1e6).toFixed(0),
        rate(median(r.concurrent.map((x) => x.rate))),
        (median(r.concurrent.map((x) => x.cpuPerTurn)) * 1e6).toFixed(0),
        `${paired("sequential", (x) => x.rate, i).toFixed(2)}× / ${paired("concurrent", (x) => x.rate, i).toFixed(2)}×`,
        `${paired("sequential", (x) => x.cpuPerTurn, i).toFixed(2)}× / ${paired("concurrent", (x) => x.cpuPerTurn, i).toFixed(2)}×`
      ]
    })
  )
  process.stdout.write(
    `${warmUpTurns} + ${warmUpTurns} warm-up turns per agent, then ${rounds} paired rounds of ${sequentialTurns} sequential turns ` +
      `and ${concurrentTurns} turns over 50 sessions; medians over the rounds, ratios paired round by round.\n` +
      `Cold, the first ${coldTurns} sequential turns of a fresh agent: ` +
      agents.map(({ name }, i) => `${name} ${rate(cold[i]!.rate)} turns/s, ${(cold[i]!.cpuPerTurn * 1e6).toFixed(0)} µs CPU per turn`)
        .join("; ") + ".\n"
  )
}

if (process.argv.includes("--baseline-agent")) baselineAgent()
else await main()
