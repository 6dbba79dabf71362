/**
 * A small HTTP client for the web provider's tests, on `node:http` so a test
 * can send any `Host`, `Origin` or body it likes, and read Server-Sent Events
 * as they arrive.
 */
import * as Sse from "effect/encoding/Sse"
import { type IncomingMessage, request as httpRequest } from "node:http"

export interface Reply {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
  readonly json: any
}

export interface Send {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  /** Send the body with `Transfer-Encoding: chunked` (no Content-Length). */
  readonly chunked?: boolean
}

/** Reads a whole response into a `Reply` (its body parsed as JSON when it is JSON). */
export const readReply = (res: IncomingMessage, resolve: (reply: Reply) => void, reject: (error: Error) => void) => {
  const chunks: Array<Buffer> = []
  res.on("data", (chunk: Buffer) => chunks.push(chunk))
  res.on("error", reject)
  res.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8")
    let json: unknown = undefined
    try {
      json = JSON.parse(body)
    } catch {
      // not JSON: leave undefined
    }
    resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json })
  })
}

/** One HTTP request to `port` on loopback. */
export const send = (port: number, path: string, options: Send = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...options.headers }
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers },
      (res) => readReply(res, resolve, reject)
    )
    req.on("error", reject)
    if (options.body !== undefined) {
      if (options.chunked === true) {
        // Two writes without a Content-Length make Node send a chunked body.
        const body = Buffer.from(options.body)
        req.write(body.subarray(0, body.length >> 1))
        req.end(body.subarray(body.length >> 1))
        return
      }
      req.end(options.body)
    } else {
      req.end()
    }
  })

/** POSTs JSON with the bearer token. */
export const postJson = (port: number, path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  send(port, path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })

export interface ServerEvent {
  readonly event: string
  readonly data: any
}

/** An open `GET /api/events`, collecting what arrives. */
export interface EventClient {
  readonly events: Array<ServerEvent>
  /** True once the server ended the stream. */
  readonly ended: () => boolean
  /** Resolves with the first event (already seen or still to come) that matches. */
  readonly next: (match: (event: ServerEvent) => boolean, timeoutMs?: number) => Promise<ServerEvent>
  readonly close: () => void
}

/** Polls `check` until it holds (or throws after `timeoutMs`). */
export const waitFor = async (check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition") => {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Opens the event stream (with `headers` besides the usual ones) and resolves once the response has started. */
export const openEvents = (port: number, token: string, headers: Record<string, string> = {}): Promise<EventClient> =>
  new Promise((resolve, reject) => {
    const events: Array<ServerEvent> = []
    let ended = false
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: `/api/events?token=${encodeURIComponent(token)}`,
      headers: { host: `127.0.0.1:${port}`, accept: "text/event-stream", ...headers }
    }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`events: HTTP ${res.statusCode}`))
        res.resume()
        return
      }
      res.setEncoding("utf8")
      const parser = Sse.makeParser((event) => {
        if (event._tag === "Event") events.push({ event: event.event, data: JSON.parse(event.data) })
      })
      res.on("data", (chunk: string) => void parser.feed(chunk))
      res.on("end", () => {
        ended = true
      })
      res.on("error", () => {
        ended = true
      })
      resolve({
        events,
        ended: () => ended,
        next: async (match, timeoutMs = 10_000) => {
          await waitFor(() => events.some(match), timeoutMs, "an event")
          return events.find(match)!
        },
        close: () => req.destroy()
      })
    })
    req.on("error", (error) => {
      ended = true
      reject(error)
    })
    req.end()
  })
