/**
 * A stand-in for Slack, written from Slack's published payloads, for the
 * real `@slack/web-api` and `@slack/socket-mode` clients to talk to: the Web
 * API methods they call (`auth.test`, `apps.connections.open`,
 * `chat.postMessage`, `chat.update`, `chat.postEphemeral`, `views.open`,
 * `users.info`), form-encoded with a Bearer token checked as Slack does
 * (`not_authed`, `invalid_auth`; the app-level token only for
 * `apps.connections.open`), and the Socket Mode endpoint: a single-use
 * ticket URL, `hello` on connect, `interactive` envelopes (`block_actions`,
 * `view_submission`) whose acks it waits for, and `disconnect`.
 *
 * Slack itself is not reached from tests (README, "Known limits").
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocket, WebSocketServer } from "ws"

export const botToken = "xoxb-stand-in-bot"
export const appToken = "xapp-stand-in-app"
export const channelId = "C0STANDIN"

/** A Slack user the stand-in knows. */
export interface StandInUser {
  readonly id: string
  readonly name: string
  readonly displayName: string
}

export const ana: StandInUser = { id: "U0ANA", name: "ana", displayName: "Ana" }
export const bob: StandInUser = { id: "U0BOB", name: "bob", displayName: "Bob" }

/** One Web API call as received: the method, its arguments (JSON fields parsed) and whether its token was good. */
export interface ApiCall {
  readonly method: string
  readonly args: Record<string, any>
}

type Block = Record<string, any>

/** What a control's press or a modal's fields are, for `submitView`: option labels chosen, or text written. */
export type FieldValue = { readonly selected: ReadonlyArray<string> } | { readonly text: string }

export interface SlackStandIn {
  /** The Web API base the clients are pointed at (`apiUrl`). */
  readonly apiUrl: string
  /** Every accepted Web API call, in order. */
  readonly calls: ReadonlyArray<ApiCall>
  /** The accepted calls of one method. */
  readonly callsOf: (method: string) => ReadonlyArray<Record<string, any>>
  /** How many Socket Mode connections were opened so far. */
  readonly connections: () => number
  /** How many Socket Mode connections are open now. */
  readonly openSockets: () => number
  /** Waits (polling) until `check` holds; throws after `ms`. */
  readonly until: (check: () => boolean, what: string, ms?: number) => Promise<void>
  /** The ts of every message posted, in order. */
  readonly messages: () => ReadonlyArray<string>
  /** The blocks a message was first posted with. */
  readonly posted: (ts: string) => ReadonlyArray<Block>
  /** The blocks a message has now (after `chat.update`). */
  readonly current: (ts: string) => ReadonlyArray<Block>
  /** Presses the button of the posted message `ts` whose text is `text`, as `user`; resolves with the ack's payload. */
  readonly press: (ts: string, text: string, user: StandInUser, options?: { readonly checked?: ReadonlyArray<string>; readonly envelopeId?: string }) => Promise<unknown>
  /** Submits the last view opened for `user` with `fields` (by block id); resolves with the ack's payload. */
  readonly submitView: (user: StandInUser, fields: Record<string, FieldValue>) => Promise<unknown>
  /** Sends an `interactive` envelope with `payload` as it is; resolves with the ack's payload. */
  readonly deliver: (payload: Record<string, unknown>) => Promise<unknown>
  /** Sends the last envelope again, with its id (Slack's redelivery of an unacknowledged envelope). */
  readonly replayLast: () => Promise<unknown>
  /** Ends every Socket Mode connection abruptly (a dropped network). */
  readonly dropSockets: () => void
  /** Sends `disconnect` (Slack refreshing the connection) on every open socket. */
  readonly sendDisconnect: () => void
  readonly close: () => Promise<void>
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => (body += chunk))
    request.on("end", () => resolve(body))
    request.on("error", reject)
  })

/** The Web API's form fields, with the ones Slack takes as JSON (`blocks`, `view`) parsed. */
const parseArgs = (body: string, contentType: string | undefined): Record<string, any> => {
  const args: Record<string, any> = contentType?.includes("json") ? JSON.parse(body || "{}") : Object.fromEntries(new URLSearchParams(body))
  for (const key of ["blocks", "view"]) if (typeof args[key] === "string") args[key] = JSON.parse(args[key])
  return args
}

const buttons = (blocks: ReadonlyArray<Block>): Array<{ readonly block: Block; readonly element: Block }> =>
  blocks.flatMap((block) =>
    block.type === "actions" ? (block.elements as Array<Block>).filter((e) => e.type === "button").map((element) => ({ block, element })) : []
  )

/** Starts the stand-in on loopback. */
export const startSlackStandIn = async (
  options: { readonly users?: ReadonlyArray<StandInUser> } = {}
): Promise<SlackStandIn> => {
  const users = new Map((options.users ?? [ana, bob]).map((user) => [user.id, user]))
  const calls: Array<ApiCall> = []
  const postedBlocks = new Map<string, ReadonlyArray<Block>>()
  const currentBlocks = new Map<string, ReadonlyArray<Block>>()
  const tickets = new Set<string>()
  const triggers = new Map<string, string>()
  const views = new Map<string, Block>()
  const acks = new Map<string, (payload: unknown) => void>()
  let lastEnvelope: string | undefined
  let connections = 0
  let serial = 0
  const sockets = new Set<WebSocket>()
  const wss = new WebSocketServer({ noServer: true })

  const reply = (response: ServerResponse, body: unknown) => {
    response.writeHead(200, { "content-type": "application/json; charset=utf-8" })
    response.end(JSON.stringify(body))
  }

  const methods: Record<string, (args: Record<string, any>) => Record<string, unknown>> = {
    "auth.test": () => ({ ok: true, url: "https://stand-in.slack.com/", team: "Stand-in", user: "asker", team_id: "T0STANDIN", user_id: "U0BOT", bot_id: "B0BOT" }),
    "apps.connections.open": () => {
      const ticket = `ticket-${++serial}`
      tickets.add(ticket)
      return { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=A0STANDIN` }
    },
    "chat.postMessage": (args) => {
      if (args.channel !== channelId) return { ok: false, error: "channel_not_found" }
      const ts = `1700000000.${String(++serial).padStart(6, "0")}`
      postedBlocks.set(ts, args.blocks ?? [])
      currentBlocks.set(ts, args.blocks ?? [])
      return { ok: true, channel: args.channel, ts, message: { type: "message", text: args.text, blocks: args.blocks, ts } }
    },
    "chat.update": (args) => {
      if (!currentBlocks.has(args.ts)) return { ok: false, error: "message_not_found" }
      currentBlocks.set(args.ts, args.blocks ?? [])
      return { ok: true, channel: args.channel, ts: args.ts, text: args.text }
    },
    "chat.postEphemeral": (args) =>
      users.has(args.user) ? { ok: true, message_ts: `1700000001.${String(++serial).padStart(6, "0")}` } : { ok: false, error: "user_not_in_channel" },
    "views.open": (args) => {
      const user = triggers.get(args.trigger_id)
      if (user === undefined) return { ok: false, error: "invalid_trigger_id" }
      triggers.delete(args.trigger_id)
      const view = { id: `V${++serial}`, ...args.view, state: { values: {} } }
      views.set(user, view)
      return { ok: true, view }
    },
    "users.info": (args) => {
      const user = users.get(args.user)
      return user === undefined
        ? { ok: false, error: "user_not_found" }
        : { ok: true, user: { id: user.id, name: user.name, real_name: user.displayName, profile: { display_name: user.displayName, real_name: user.displayName } } }
    }
  }

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request)
      const method = (request.url ?? "").replace(/^\/api\//, "").split("?")[0]!
      const handler = methods[method]
      if (handler === undefined) return reply(response, { ok: false, error: "unknown_method" })
      const auth = request.headers.authorization
      if (auth === undefined || !auth.startsWith("Bearer ")) return reply(response, { ok: false, error: "not_authed" })
      const token = auth.slice("Bearer ".length)
      const wanted = method === "apps.connections.open" ? appToken : botToken
      if (token !== wanted) return reply(response, { ok: false, error: method === "apps.connections.open" && token === botToken ? "not_allowed_token_type" : "invalid_auth" })
      const args = parseArgs(body, request.headers["content-type"])
      calls.push({ method, args })
      reply(response, handler(args))
    })()
  })

  server.on("upgrade", (request, socket, head) => {
    const url = new URL(request.url ?? "/", "ws://stand-in")
    const ticket = url.searchParams.get("ticket") ?? ""
    if (url.pathname !== "/link/" || !tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n")
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      connections++
      sockets.add(ws)
      ws.on("close", () => sockets.delete(ws))
      ws.on("message", (data) => {
        const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown }
        if (message.envelope_id === undefined) return
        acks.get(message.envelope_id)?.(message.payload)
        acks.delete(message.envelope_id)
      })
      ws.send(JSON.stringify({
        type: "hello",
        num_connections: 1,
        debug_info: { host: "applink-stand-in", build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: "A0STANDIN" }
      }))
    })
  })

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  const envelopes = new Map<string, string>()
  /** Sends an `interactive` envelope on the open socket and waits for its ack. */
  const deliver = (payload: Record<string, unknown>, envelopeId = `env-${++serial}`): Promise<unknown> => {
    const socket = Array.from(sockets).find((candidate) => candidate.readyState === WebSocket.OPEN)
    if (socket === undefined) return Promise.reject(new Error("No Socket Mode connection is open."))
    const text = JSON.stringify({ envelope_id: envelopeId, payload, type: "interactive", accepts_response_payload: payload.type === "view_submission" })
    envelopes.set(envelopeId, text)
    lastEnvelope = envelopeId
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No ack for ${envelopeId}`)), 20_000)
      acks.set(envelopeId, (ack) => {
        clearTimeout(timer)
        resolve(ack)
      })
      socket.send(text)
    })
  }

  const userPayload = (user: StandInUser) => ({ id: user.id, username: user.name, name: user.name, team_id: "T0STANDIN" })

  const until = async (check: () => boolean, what: string, ms = 20_000) => {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    callsOf: (method) => calls.filter((call) => call.method === method).map((call) => call.args),
    connections: () => connections,
    openSockets: () => Array.from(sockets).filter((socket) => socket.readyState === WebSocket.OPEN).length,
    until,
    messages: () => Array.from(postedBlocks.keys()),
    posted: (ts) => postedBlocks.get(ts) ?? [],
    current: (ts) => currentBlocks.get(ts) ?? [],
    press: (ts, text, user, pressOptions = {}) => {
      const blocks = postedBlocks.get(ts) ?? []
      const found = buttons(blocks).find(({ element }) => element.text?.text === text)
      if (found === undefined) return Promise.reject(new Error(`No button "${text}" in message ${ts}`))
      const trigger = `trigger-${++serial}`
      triggers.set(trigger, user.id)
      const values: Record<string, Record<string, unknown>> = {}
      for (const block of blocks) {
        if (block.type !== "actions") continue
        for (const element of block.elements as Array<Block>) {
          if (element.type !== "checkboxes") continue
          const chosen = (element.options as Array<Block>).filter((option) => pressOptions.checked?.includes(option.text.text))
          values[block.block_id] = { [element.action_id]: { type: "checkboxes", selected_options: chosen } }
        }
      }
      return deliver({
        type: "block_actions",
        user: userPayload(user),
        api_app_id: "A0STANDIN",
        token: "verification-token",
        container: { type: "message", message_ts: ts, channel_id: channelId, is_ephemeral: false },
        trigger_id: trigger,
        team: { id: "T0STANDIN", domain: "stand-in" },
        channel: { id: channelId, name: "asks" },
        message: { type: "message", ts, blocks: currentBlocks.get(ts) },
        state: { values },
        response_url: "https://hooks.slack.com/actions/T0STANDIN/1/stand-in",
        actions: [{
          action_id: found.element.action_id,
          block_id: found.block.block_id,
          text: found.element.text,
          ...(found.element.value === undefined ? {} : { value: found.element.value }),
          type: "button",
          action_ts: String(Date.now() / 1000)
        }]
      }, pressOptions.envelopeId)
    },
    submitView: (user, fields) => {
      const view = views.get(user.id)
      if (view === undefined) return Promise.reject(new Error(`No view is open for ${user.id}`))
      const values: Record<string, Record<string, unknown>> = {}
      for (const block of view.blocks as Array<Block>) {
        if (block.type !== "input") continue
        const element = block.element as Block
        const field = fields[block.block_id]
        const options = (element.options ?? []) as Array<Block>
        const chosen = field !== undefined && "selected" in field ? options.filter((option) => field.selected.includes(option.text.text)) : []
        const state: Record<string, unknown> = { type: element.type }
        if (element.type === "plain_text_input") state.value = field !== undefined && "text" in field ? field.text : null
        else if (element.type === "radio_buttons" || element.type === "static_select") state.selected_option = chosen[0] ?? null
        else state.selected_options = chosen
        values[block.block_id] = { [element.action_id]: state }
      }
      return deliver({
        type: "view_submission",
        team: { id: "T0STANDIN", domain: "stand-in" },
        user: userPayload(user),
        api_app_id: "A0STANDIN",
        token: "verification-token",
        trigger_id: `trigger-${++serial}`,
        view: { ...view, state: { values }, hash: "156772938.1827394" },
        response_urls: []
      })
    },
    deliver: (payload) => deliver(payload),
    replayLast: () => {
      const id = lastEnvelope
      const text = id === undefined ? undefined : envelopes.get(id)
      const socket = Array.from(sockets).find((candidate) => candidate.readyState === WebSocket.OPEN)
      if (id === undefined || text === undefined || socket === undefined) return Promise.reject(new Error("Nothing to replay"))
      return new Promise((resolve) => {
        acks.set(id, resolve)
        socket.send(text)
      })
    },
    dropSockets: () => {
      for (const socket of sockets) socket.terminate()
    },
    sendDisconnect: () => {
      for (const socket of sockets) socket.send(JSON.stringify({ type: "disconnect", reason: "refresh_requested", debug_info: { host: "applink-stand-in" } }))
    },
    close: async () => {
      for (const socket of sockets) socket.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
