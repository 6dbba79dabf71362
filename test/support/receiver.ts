/**
 * A real HTTP server on 127.0.0.1 standing in for an ntfy server or a
 * webhook receiver: it records each request and answers as `respond` says
 * (a status, or "hang": never answer).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** How many requests the client gave up on before an answer (a hang aborted). */
  readonly abandoned: () => number
  /** Resolves once `count` requests have arrived. */
  readonly until: (count: number) => Promise<void>
  readonly close: () => Promise<void>
}

export const receiver = async (respond: (nth: number) => number | "hang" = () => 200): Promise<Receiver> => {
  const received: Array<Received> = []
  const hanging = new Set<ServerResponse>()
  let abandoned = 0
  const waiters = new Set<() => void>()
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body })
      for (const wake of waiters) wake()
      const answer = respond(received.length)
      if (answer === "hang") {
        hanging.add(res)
        res.once("close", () => {
          if (hanging.delete(res)) abandoned++
        })
        return
      }
      res.writeHead(answer, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (received.length >= count) {
          waiters.delete(check)
          resolve()
        }
      }
      waiters.add(check)
      check()
    })
  const close = () =>
    new Promise<void>((resolve) => {
      const left = Array.from(hanging)
      hanging.clear()
      for (const res of left) res.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { url: `http://127.0.0.1:${port}`, received, abandoned: () => abandoned, until, close }
}

/** A loopback address nothing listens on: connections are refused. */
export const refusingUrl = async (): Promise<string> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
