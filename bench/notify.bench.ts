/**
 * Notifications: how long after a durable ask is created (on a SQLite file)
 * an ntfy publish about it reaches the server, a local HTTP receiver
 * standing in for ntfy (p50/p99; SPEC's target p50 ≤ 200 ms), without and
 * with the action buttons of a remote inbox (signing a token per option).
 * The inbox looks at the store every 250 ms (decision 073): an ask waits
 * half of that on average before it is seen, so the asks are made at random
 * moments, as agents make them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, References } from "effect"
import { DurableInbox, DurableStore, ntfy } from "../dist/durable/index.js"
import { makeActionTokens } from "../dist/notify/index.js"
import { printTable } from "./support.ts"

const samples = Number(process.env.NOTIFY_BENCH_SAMPLES ?? 60)
const dir = mkdtempSync(join(tmpdir(), "ask-user-bench-notify-"))
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** A receiver that resolves, for each ask id published, the time it arrived. */
const receiver = async () => {
  const arrived = new Map<string, (at: number) => void>()
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
    req.on("end", () => {
      const at = performance.now() + performance.timeOrigin
      const { message } = JSON.parse(body) as { readonly message: string }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
      arrived.get(message)?.(at)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    topicUrl: `http://127.0.0.1:${port}/bench`,
    arrival: (message: string) => new Promise<number>((resolve) => arrived.set(message, resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const measure = async (file: string, withButtons: boolean) => {
  const server = await receiver()
  const url = `sqlite:${join(dir, file)}`
  const actions = withButtons ? makeActionTokens("https://192.0.2.1:8443/") : undefined
  const latencies: Array<number> = []
  await Effect.runPromise(Effect.gen(function*() {
    const inbox = yield* DurableInbox
    yield* inbox.notify([ntfy(server.topicUrl, { actions })])
    for (let i = 0; i < samples; i++) {
      // Asks come when they come: a random pause, so that they land anywhere in the inbox's
      // 250 ms look at the store, not just after one (each sample starts when the last arrived).
      yield* Effect.sleep(Math.floor(Math.random() * 250))
      // The question's text is what the receiver sees in `message`: it names the sample.
      const question = `Deploy build ${i}?`
      const arrival = server.arrival(question)
      const created = performance.now() + performance.timeOrigin
      yield* inbox.submit({ id: `n-${i}`, questions: [{ id: "q", question, options: [{ label: "Yes" }, { label: "No" }] }] })
      latencies.push((yield* Effect.promise(() => arrival)) - created)
    }
  }).pipe(
    Effect.scoped,
    Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url)))),
    Effect.provideService(References.MinimumLogLevel, "Error")
  ))
  await server.close()
  return latencies.sort((a, b) => a - b)
}

const plain = await measure("plain.db", false)
const buttons = await measure("buttons.db", true)
const row = (name: string, sorted: ReadonlyArray<number>) => [
  name,
  String(sorted.length),
  `${percentile(sorted, 0.5).toFixed(0)} ms`,
  `${percentile(sorted, 0.99).toFixed(0)} ms`,
  `${sorted[0]!.toFixed(0)}–${sorted[sorted.length - 1]!.toFixed(0)} ms`
]
printTable(["durable ask created → ntfy publish received (SQLite file)", "samples", "p50", "p99", "range"], [
  row("ntfy, link only", plain),
  row("ntfy, with action buttons (2 signed tokens)", buttons)
])
rmSync(dir, { recursive: true, force: true })
