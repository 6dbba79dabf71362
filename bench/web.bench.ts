/**
 * The web provider under load: 1,000 asks pending at once. How long from
 * `ask` to the `asked` event at an SSE client (p50/p99), how many answers per
 * second `POST /api/questions/:id/answer` settles, and the memory each pending
 * ask holds (seam fiber included). The baseline is a bare `node:http` server
 * in the same process doing the same JSON work by hand: pushing the same event
 * to an open response, and echoing the same answer body.
 */
import { request as httpRequest, Agent, createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import * as Sse from "effect/encoding/Sse"
import { type AskUserQuestionRequest, UserInteraction } from "../dist/index.js"
import { WebProvider } from "../dist/web/index.js"
import { printTable } from "./support.ts"

const N = 1_000
const token = "bench-token"
const agent = new Agent({ keepAlive: true, maxSockets: 16 })

const requestFor = (i: number): AskUserQuestionRequest => ({
  questions: [{ id: `q${i}`, question: `Question ${i}?`, options: [{ label: "yes" }, { label: "no" }] }]
})
const answerFor = (i: number) => JSON.stringify({ answers: [{ id: `q${i}`, selected: ["yes"] }] })

/** A Server-Sent Events reader that calls `onEvent` with each event's name and data. */
const listen = (port: number, path: string, onEvent: (event: string, data: any) => void) =>
  new Promise<() => void>((resolve, reject) => {
    const req = httpRequest({ port, host: "127.0.0.1", path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      const parser = Sse.makeParser((event) => {
        if (event._tag === "Event") onEvent(event.event, JSON.parse(event.data))
      })
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => void parser.feed(chunk))
      resolve(() => req.destroy())
    })
    req.on("error", reject)
    req.end()
  })

const post = (port: number, path: string, body: string) =>
  new Promise<number>((resolve, reject) => {
    const req = httpRequest({
      port,
      host: "127.0.0.1",
      path,
      method: "POST",
      agent,
      headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, "content-type": "application/json" }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end(body)
  })

/** Runs `posts` with at most 16 in flight; returns seconds taken. */
const postAll = async (posts: ReadonlyArray<() => Promise<number>>) => {
  const start = performance.now()
  let next = 0
  const worker = async () => {
    while (next < posts.length) {
      const status = await posts[next++]!()
      if (status !== 200) throw new Error(`HTTP ${status}`)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  return (performance.now() - start) / 1000
}

const percentile = (values: Array<number>, p: number) => {
  const sorted = values.slice().sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

const heap = () => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}

// ---- baseline: node:http by hand ------------------------------------------------------------
const baseline = async () => {
  const streams = new Set<ServerResponse>()
  const pending = new Map<string, { request: unknown; askedAt: string; resolve: (a: unknown) => void }>()
  const server = createServer((req, res) => {
    if (req.url === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(": connected\n\n")
      streams.add(res)
      return
    }
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const id = /^\/answer\/(.*)$/.exec(req.url ?? "")?.[1] ?? ""
      const entry = pending.get(id)
      pending.delete(id)
      entry?.resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      res.writeHead(entry ? 200 : 404, { "content-type": "application/json" })
      res.end(JSON.stringify({ ok: true }))
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as AddressInfo).port
  const started = new Map<string, number>()
  const latencies: Array<number> = []
  const close = await listen(port, "/events", (_event, data) => {
    latencies.push(performance.now() - started.get(data.id)!)
  })
  const before = heap()
  const answered: Array<Promise<unknown>> = []
  for (let i = 0; i < N; i++) {
    const id = `b${i}`
    started.set(id, performance.now())
    answered.push(new Promise((resolve) => {
      const view = { id, request: requestFor(i), askedAt: new Date().toISOString() }
      pending.set(id, { ...view, resolve })
      const line = `event: asked\ndata: ${JSON.stringify(view)}\n\n`
      for (const s of streams) s.write(line)
    }))
  }
  while (latencies.length < N) await new Promise((r) => setTimeout(r, 5))
  const bytes = (heap() - before) / N
  const seconds = await postAll(Array.from({ length: N }, (_, i) => () => post(port, `/answer/b${i}`, answerFor(i))))
  await Promise.all(answered)
  close()
  for (const s of streams) s.end()
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  return { latencies, seconds, bytes }
}

// ---- the web provider -----------------------------------------------------------------------
const web = async () => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(UserInteraction.layerWith(WebProvider.layer({ token })), scope)
  )
  const { port } = Context.get(context, WebProvider)
  const seam = Context.get(context, UserInteraction)
  const started = new Map<string, number>()
  const ids = new Map<string, string>()
  const latencies: Array<number> = []
  const close = await listen(port, `/api/events?token=${token}`, (event, data) => {
    if (event !== "asked") return
    const question = data.request.questions[0].id as string
    ids.set(question, data.id)
    latencies.push(performance.now() - started.get(question)!)
  })
  const before = heap()
  const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
  for (let i = 0; i < N; i++) {
    started.set(`q${i}`, performance.now())
    fibers.push(Effect.runFork(seam.ask(requestFor(i))))
  }
  while (latencies.length < N) await new Promise((r) => setTimeout(r, 5))
  const bytes = (heap() - before) / N
  const seconds = await postAll(
    Array.from({ length: N }, (_, i) => () => post(port, `/api/questions/${ids.get(`q${i}`)}/answer`, answerFor(i)))
  )
  await Effect.runPromise(Fiber.joinAll(fibers))
  close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return { latencies, seconds, bytes }
}

// Warm both paths once, then measure.
await baseline()
await web()
const b = await baseline()
const w = await web()
agent.destroy()

const ms = (x: number) => `${x.toFixed(2)} ms`
const ratio = (x: number, y: number) => `${(x / y).toFixed(2)}×`
const rows = [
  ["ask → `asked` at SSE client, p50", ms(percentile(b.latencies, 50)), ms(percentile(w.latencies, 50)), ratio(percentile(w.latencies, 50), percentile(b.latencies, 50))],
  ["ask → `asked` at SSE client, p99", ms(percentile(b.latencies, 99)), ms(percentile(w.latencies, 99)), ratio(percentile(w.latencies, 99), percentile(b.latencies, 99))],
  ["answers/s (16 keep-alive connections)", Math.round(N / b.seconds).toLocaleString("en"), Math.round(N / w.seconds).toLocaleString("en"), ratio(b.seconds, w.seconds)],
  ["heap per pending ask", `${(b.bytes / 1024).toFixed(2)} KiB`, `${(w.bytes / 1024).toFixed(2)} KiB`, ratio(w.bytes, b.bytes)]
]
process.stdout.write(`${N.toLocaleString("en")} concurrent pending asks; baseline = bare node:http doing the same JSON by hand.\n\n`)
printTable(["measure", "node:http baseline", "WebProvider", "WebProvider / baseline"], rows)
