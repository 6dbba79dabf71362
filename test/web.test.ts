/**
 * The web provider's JSON API and event stream, end to end over real HTTP.
 */
import { describe, expect, it } from "@effect/vitest"
import { connect, type Socket } from "node:net"
import { Context, Effect, Exit, Fiber, Layer, Option, Scope, Stream } from "effect"
import {
  type AskUserQuestionRequest,
  FanoutProvider,
  ScriptedProvider,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { WebProvider, type WebProviderOptions } from "effect-user-interaction/web"
import { makePendingTable } from "../src/web/pending.js"
import { makeHostCheck, originAllowed } from "../src/web/security.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"
import { openEvents, postJson, send, waitFor } from "./support/webClient.js"

const token = "test-token"
const auth = { authorization: `Bearer ${token}` }

/** The seam with a web provider registered, in the test's scope. */
const start = (options: WebProviderOptions = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ token, ...options })))
    const web = Context.get(context, WebProvider)
    const ask = (request: AskUserQuestionRequest) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
    return { web, ask }
  })

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** Waits until `n` asks are pending and returns their ids, oldest first. */
const pendingIds = (port: number, n: number) =>
  promise(async () => {
    let ids: Array<string> = []
    await waitFor(async () => {
      const reply = await send(port, "/api/questions", { headers: auth })
      ids = reply.json.pending.map((p: { id: string }) => p.id)
      return ids.length === n
    }, 10_000, `${n} pending asks`)
    return ids
  })

describe("WebProvider JSON API", () => {
  it.live("lists a pending ask and resolves it with the first valid answer", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const events = yield* promise(() => openEvents(web.port, token))
      const fiber = yield* Effect.forkChild(ask({ ...batch, agent: { id: "a1", name: "Planner" } }))
      const [id] = yield* pendingIds(web.port, 1)

      const listed = yield* promise(() => send(web.port, "/api/questions", { headers: auth }))
      expect(listed.status).toBe(200)
      const entry = listed.json.pending[0]
      expect(entry.request).toEqual({ questions: batch.questions, agent: { id: "a1", name: "Planner" } })
      expect(new Date(entry.askedAt).toISOString()).toBe(entry.askedAt)
      expect((yield* promise(() => events.next((e) => e.event === "asked"))).data).toEqual(entry)

      // Items in any order; the seam returns them in question order.
      const reply = yield* promise(() =>
        postJson(web.port, `/api/questions/${id}/answer`, token, { answers: [...batchAnswer.answers].reverse() })
      )
      expect(reply.status).toBe(200)
      expect(reply.json).toEqual({ ok: true })
      expect(yield* Fiber.join(fiber)).toEqual(batchAnswer)
      expect((yield* promise(() => events.next((e) => e.event === "resolved"))).data).toEqual({ id, outcome: "answered" })
      expect((yield* promise(() => send(web.port, "/api/questions", { headers: auth }))).json).toEqual({ pending: [] })
      expect(yield* web.pending).toEqual([])
      events.close()
    }))

  it.live("lets exactly one of 50 concurrent answers win; the others get 404 not-pending", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const fiber = yield* Effect.forkChild(ask({ questions: [{ id: "name", question: "Name?" }] }))
      const [id] = yield* pendingIds(web.port, 1)
      const replies = yield* promise(() =>
        Promise.all(Array.from({ length: 50 }, (_, i) =>
          postJson(web.port, `/api/questions/${id}/answer`, token, { answers: [{ id: "name", selected: [], custom: `n${i}` }] })))
      )
      const winners = replies.flatMap((reply, i) => reply.status === 200 ? [i] : [])
      expect(winners).toHaveLength(1)
      for (const reply of replies) {
        if (reply.status !== 200) expect([reply.status, reply.json]).toEqual([404, { error: "not-pending" }])
      }
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "name", selected: [], custom: `n${winners[0]}` }] })
    }))

  it.live("refuses an answer that breaks the rules with 422 and keeps the ask pending", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const fiber = yield* Effect.forkChild(ask(single))
      const [id] = yield* pendingIds(web.port, 1)
      const path = `/api/questions/${id}/answer`
      for (
        const bad of [
          { answers: [{ id: "go", selected: ["maybe"] }] },
          { answers: [{ id: "go", selected: ["yes", "no"] }] },
          { answers: [] },
          { answers: [{ id: "go", selected: ["yes"] }, { id: "other", selected: [] }] },
          { nonsense: true }
        ]
      ) {
        const reply = yield* promise(() => postJson(web.port, path, token, bad))
        expect(reply.status).toBe(422)
        expect(reply.json.error).toBe("bad-response")
        expect(typeof reply.json.message).toBe("string")
      }
      const notJson = yield* promise(() =>
        send(web.port, path, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{not json" })
      )
      expect([notJson.status, notJson.json.error]).toEqual([422, "bad-response"])
      expect(yield* pendingIds(web.port, 1)).toEqual([id])
      expect((yield* promise(() => postJson(web.port, path, token, { answers: [{ id: "go", selected: ["no"] }] }))).status)
        .toBe(200)
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "go", selected: ["no"] }] })
    }))

  it.live("cancels an ask with AskCancelled; later answers and cancels get 404", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const events = yield* promise(() => openEvents(web.port, token))
      const fiber = yield* Effect.forkChild(ask(single))
      const [id] = yield* pendingIds(web.port, 1)
      const cancel = yield* promise(() => postJson(web.port, `/api/questions/${id}/cancel`, token, {}))
      expect([cancel.status, cancel.json]).toEqual([200, { ok: true }])
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Exit.findErrorOption(exit)).toMatchObject({ value: { code: "ASK_CANCELLED" } })
      expect((yield* promise(() => events.next((e) => e.event === "resolved"))).data).toEqual({ id, outcome: "cancelled" })
      const again = yield* promise(() => postJson(web.port, `/api/questions/${id}/cancel`, token, {}))
      const late = yield* promise(() =>
        postJson(web.port, `/api/questions/${id}/answer`, token, { answers: [{ id: "go", selected: ["yes"] }] })
      )
      expect([again.status, again.json, late.status, late.json]).toEqual([404, { error: "not-pending" }, 404, {
        error: "not-pending"
      }])
      const unknown = yield* promise(() => postJson(web.port, `/api/questions/nope/answer`, token, { answers: [] }))
      expect([unknown.status, unknown.json]).toEqual([404, { error: "not-pending" }])
      events.close()
    }))

  it.live("replays every pending ask with the same id when an event stream (re)connects", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const first = yield* Effect.forkChild(ask(single))
      const second = yield* Effect.forkChild(ask(batch))
      const ids = yield* pendingIds(web.port, 2)

      const one = yield* promise(() => openEvents(web.port, token))
      yield* promise(() => waitFor(() => one.events.length === 2, 10_000, "two replayed asks"))
      expect(one.events.map((e) => [e.event, e.data.id])).toEqual(ids.map((id) => ["asked", id]))
      one.close()

      const two = yield* promise(() => openEvents(web.port, token))
      yield* promise(() => waitFor(() => two.events.length === 2, 10_000, "two replayed asks"))
      expect(two.events.map((e) => e.data)).toEqual(one.events.map((e) => e.data))

      // A new ask reaches the live stream once, after the replay.
      const third = yield* Effect.forkChild(ask({ questions: [{ id: "x", question: "Third?" }] }))
      const asked = yield* promise(() => two.next((e) => e.event === "asked" && !ids.includes(e.data.id)))
      expect(asked.data.request.questions[0].question).toBe("Third?")
      yield* promise(() => postJson(web.port, `/api/questions/${ids[0]}/answer`, token, { answers: [{ id: "go", selected: ["yes"] }] }))
      yield* Fiber.join(first)
      yield* promise(() => two.next((e) => e.event === "resolved" && e.data.id === ids[0]))
      expect(two.events.filter((e) => e.event === "asked")).toHaveLength(3)
      two.close()
      yield* Fiber.interrupt(second)
      yield* Fiber.interrupt(third)
    }))

  it.live("resolves an interrupted ask `aborted`, and one whose signal aborts too", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const events = yield* promise(() => openEvents(web.port, token))
      const interrupted = yield* Effect.forkChild(ask(single))
      const [first] = yield* pendingIds(web.port, 1)
      yield* Fiber.interrupt(interrupted)
      expect((yield* promise(() => events.next((e) => e.event === "resolved"))).data).toEqual({ id: first, outcome: "aborted" })

      const controller = new AbortController()
      const aborted = yield* Effect.forkChild(ask({ ...single, signal: controller.signal }))
      const [second] = yield* pendingIds(web.port, 1)
      controller.abort()
      const exit = yield* Fiber.await(aborted)
      expect(Exit.findErrorOption(exit)).toMatchObject({ value: { code: "ASK_ABORTED" } })
      expect((yield* promise(() => events.next((e) => e.event === "resolved" && e.data.id === second))).data.outcome)
        .toBe("aborted")
      const late = yield* promise(() =>
        postJson(web.port, `/api/questions/${second}/answer`, token, { answers: [{ id: "go", selected: ["yes"] }] })
      )
      expect(late.status).toBe(404)
      events.close()
    }))

  it.live("under the seam, its timeout resolves the entry `timeout` and closing resolves it `closed`", () =>
    Effect.gen(function*() {
      const timed = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ token }), { timeout: "300 millis" }))
      const timedWeb = Context.get(timed, WebProvider)
      const timedEvents = yield* promise(() => openEvents(timedWeb.port, token))
      const error = yield* Effect.flip(UserInteraction.ask(single).pipe(Effect.provideContext(timed)))
      expect(error.code).toBe("ASK_TIMEOUT")
      expect((yield* promise(() => timedEvents.next((e) => e.event === "resolved"))).data.outcome).toBe("timeout")
      timedEvents.close()

      const scope = yield* Scope.make()
      const closing = yield* Layer.buildWithScope(UserInteraction.layerWith(WebProvider.layer({ token })), scope)
      const closingWeb = Context.get(closing, WebProvider)
      const events = yield* promise(() => openEvents(closingWeb.port, token))
      const pending = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(closing)))
      yield* pendingIds(closingWeb.port, 1)
      yield* Scope.close(scope, Exit.void)
      expect(Exit.findErrorOption(yield* Fiber.await(pending))).toMatchObject({ value: { code: "PROVIDER_CLOSED" } })
      yield* promise(() => waitFor(() => events.events.some((e) => e.event === "resolved"), 10_000, "the resolved event"))
      expect(events.events.find((e) => e.event === "resolved")?.data.outcome).toBe("closed")
      events.close()
    }))

  it.live("closing the layer resolves pending asks `closed`, ends event streams and stops the server", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(WebProvider.layer({ token }), scope)
      const web = Context.get(context, WebProvider)
      const provider = Context.get(context, UserInteractionProvider)
      const events = yield* promise(() => openEvents(web.port, token))
      const fiber = yield* Effect.forkChild(provider.ask(single))
      const [id] = yield* pendingIds(web.port, 1)
      yield* Scope.close(scope, Exit.void)

      const exit = yield* Fiber.await(fiber)
      expect(Exit.findErrorOption(exit)).toMatchObject({ value: { code: "PROVIDER_CLOSED" } })
      expect((yield* promise(() => events.next((e) => e.event === "resolved"))).data).toEqual({ id, outcome: "closed" })
      yield* promise(() => waitFor(events.ended, 10_000, "the event stream to end"))
      const refused = yield* promise(() => send(web.port, "/api/questions", { headers: auth }).then(() => "answered", (e) => e.code))
      expect(refused).toBe("ECONNREFUSED")
      // A closed provider takes no new asks.
      expect(Exit.findErrorOption(yield* Effect.exit(provider.ask(single)))).toMatchObject({ value: { code: "PROVIDER_CLOSED" } })
    }))

  it.live("on close, a request already sent is answered (404 not-pending) before the event streams get `closing`", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerWith(WebProvider.layer({ token })), scope)
      const web = Context.get(context, WebProvider)
      yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context), Effect.exit))
      const [id] = yield* pendingIds(web.port, 1)
      // Both on raw sockets, so each arrival is noted the moment its bytes come in.
      const order: Array<string> = []
      const open = (onText: (text: string) => void) =>
        promise(() =>
          new Promise<Socket>((resolve) => {
            let text = ""
            const socket: Socket = connect(web.port, "127.0.0.1", () => resolve(socket))
            socket.on("data", (chunk: Buffer) => onText(text += chunk.toString("utf8")))
          })
        )
      const head = (path: string, extra = "") =>
        `${path} HTTP/1.1\r\nhost: 127.0.0.1:${web.port}\r\nauthorization: Bearer ${token}\r\n${extra}`
      const stream = yield* open((text) => {
        if (text.includes("event: closing") && !order.includes("closing")) order.push("closing")
      })
      stream.write(`${head("GET /api/events", "accept: text/event-stream\r\n")}\r\n`)
      let status = ""
      const answerer = yield* open((text) => {
        if (status !== "" || !text.includes("\r\n")) return
        status = text.split("\r\n")[0]!
        order.push("reply")
      })
      const body = JSON.stringify({ answers: [{ id: "go", selected: ["yes"] }] })
      // The answer's bytes are on their way before the close starts.
      answerer.write(
        `${head(`POST /api/questions/${id}/answer`, "content-type: application/json\r\n")}` +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      )
      yield* Scope.close(scope, Exit.void)
      yield* promise(() => waitFor(() => order.length === 2, 10_000, "the reply and the closing event"))
      expect(status).toBe("HTTP/1.1 404 Not Found")
      expect(order).toEqual(["reply", "closing"])
      stream.destroy()
      answerer.destroy()
    }))

  it.live("fails to start with ServeError when the port is taken", () =>
    Effect.gen(function*() {
      const { web } = yield* start()
      const exit = yield* Effect.exit(Layer.build(WebProvider.layer({ port: web.port })))
      expect(Exit.findErrorOption(exit)).toMatchObject({ value: { _tag: "ServeError" } })
    }))

  it.live("mints a random token when none is given and prints it in the URL", () =>
    Effect.gen(function*() {
      const a = Context.get(yield* Layer.build(WebProvider.layer()), WebProvider)
      const b = Context.get(yield* Layer.build(WebProvider.layer()), WebProvider)
      expect(a.token.length).toBeGreaterThanOrEqual(32)
      expect(a.token).not.toBe(b.token)
      expect(a.url).toBe(`http://127.0.0.1:${a.port}/?token=${a.token}`)
      expect((yield* promise(() => send(a.port, `/api/questions?token=${b.token}`))).status).toBe(401)
      expect((yield* promise(() => send(a.port, `/api/questions?token=${a.token}`))).status).toBe(200)
    }))
})

describe("web pending table", () => {
  it.effect("removes a subscriber when its stream ends; close settles, endStreams sends closing and ends every stream", () =>
    Effect.gen(function*() {
      const table = makePendingTable()
      const entry = table.register(single, new Date(0))
      const head = yield* Stream.runHead(table.events())
      expect(Option.getOrUndefined(head)).toEqual({ event: "asked", data: entry?.view })
      expect(table.subscribers()).toBe(0)

      const fiber = yield* Effect.forkChild(Stream.runCollect(table.events()))
      yield* Effect.yieldNow
      expect(table.subscribers()).toBe(1)
      yield* table.close
      expect(table.register(single, new Date(0))).toBeUndefined()
      // Closed, but the streams stay open until the requests already sent are answered.
      const late = yield* Effect.forkChild(Stream.runCollect(table.events()))
      yield* Effect.yieldNow
      expect(table.subscribers()).toBe(2)
      expect(fiber.pollUnsafe()).toBeUndefined()

      yield* table.endStreams
      const events = yield* Fiber.join(fiber)
      // The last event tells the page the provider is gone for good.
      expect(events.map((e) => e.event)).toEqual(["asked", "resolved", "closing"])
      expect(events[1]?.data).toEqual({ id: entry?.view.id, outcome: "closed" })
      expect(events[2]?.data).toEqual({ unanswered: 1, cancelled: 0 })
      expect(yield* Fiber.join(late)).toEqual([{ event: "closing", data: { unanswered: 1, cancelled: 0 } }])
      expect(table.subscribers()).toBe(0)
      // A stream opened after the end gets the closing event and ends at once.
      expect(yield* Stream.runCollect(table.events())).toEqual([{ event: "closing", data: { unanswered: 1, cancelled: 0 } }])
    }))

  it.effect("the closing event counts the asks a person cancelled or declined, here or on another surface, apart from the withdrawn", () =>
    Effect.gen(function*() {
      const table = makePendingTable()
      const asks = Array.from({ length: 5 }, () => table.register(single, new Date(0))!)
      table.settle(asks[0]!, "cancelled")
      table.settle(asks[1]!, "aborted", undefined, { surface: "terminal", where: "the terminal", settled: "ASK_DECLINED" })
      table.settle(asks[2]!, "aborted", undefined, { surface: "terminal", where: "the terminal", settled: "answered" })
      table.settle(asks[3]!, "timeout")
      table.settle(asks[4]!, "answered", Exit.succeed(singleAnswer))
      yield* table.endStreams
      expect(yield* Stream.runCollect(table.events())).toEqual([{ event: "closing", data: { unanswered: 1, cancelled: 2 } }])
    }))

  it.effect("each stream's closing event counts only the asks it was shown", () =>
    Effect.gen(function*() {
      const table = makePendingTable()
      const forAna = { ...single, answerableBy: ["os:ana@*"] }
      const asks = [single, single, forAna, forAna].map((request) => table.register(request, new Date(0))!)
      table.settle(asks[0]!, "cancelled")
      table.settle(asks[1]!, "timeout")
      table.settle(asks[2]!, "cancelled")
      table.settle(asks[3]!, "aborted")
      yield* table.endStreams
      const openOnly = (request: { readonly answerableBy?: ReadonlyArray<string> | undefined }) => request.answerableBy === undefined
      expect(yield* Stream.runCollect(table.events(openOnly))).toEqual([{ event: "closing", data: { unanswered: 1, cancelled: 1 } }])
      expect(yield* Stream.runCollect(table.events())).toEqual([{ event: "closing", data: { unanswered: 2, cancelled: 2 } }])
    }))
})

describe("WebProvider gate", () => {
  it.live("answers 401 without the token, 403 for a foreign Host or Origin (checked first), 413 over 64 KiB", () =>
    Effect.gen(function*() {
      const { ask, web } = yield* start()
      const port = web.port
      const status = (path: string, options: Parameters<typeof send>[2] = {}) =>
        promise(() => send(port, path, options).then((r) => [r.status, r.json?.error]))

      expect(yield* status("/api/questions")).toEqual([401, "unauthorized"])
      expect(yield* status("/", {})).toEqual([401, "unauthorized"])
      expect(yield* status("/api/questions?token=wrong")).toEqual([401, "unauthorized"])
      expect(yield* status("/api/questions", { headers: { authorization: "Bearer wrong" } })).toEqual([401, "unauthorized"])
      expect(yield* status("/api/questions", { headers: { authorization: token } })).toEqual([401, "unauthorized"])
      expect(yield* status("/api/events")).toEqual([401, "unauthorized"])
      expect(yield* status("/api/questions", { headers: auth })).toEqual([200, undefined])
      expect(yield* status(`/api/questions?token=${token}`)).toEqual([200, undefined])
      expect(yield* status(`/api/questions`, { headers: { ...auth, host: `localhost:${port}` } })).toEqual([200, undefined])

      // DNS rebinding: the attacker's name in Host, with or without the token.
      // Other spellings of the served address, which a URL parser reads as it (SPEC: 403 too).
      const spellings = [`127.1:${port}`, `0x7f000001:${port}`, `2130706433:${port}`, `127.0.0.1:0${port}`]
      for (const host of [`evil.example:${port}`, `127.0.0.1:${port + 1}`, "127.0.0.1", `localhost.evil.example:${port}`, ...spellings]) {
        expect(yield* status("/api/questions", { headers: { ...auth, host } })).toEqual([403, "forbidden"])
        expect(yield* status("/api/questions", { headers: { host } })).toEqual([403, "forbidden"])
      }
      // Cross-site POSTs, even with the token; same-origin and Origin-less POSTs pass the gate.
      const fiber = yield* Effect.forkChild(ask(single))
      const [id] = yield* pendingIds(port, 1)
      const cancel = `/api/questions/${id}/cancel`
      for (const origin of ["http://evil.example", `https://127.0.0.1:${port}`, "null", `http://127.0.0.1:${port + 1}`]) {
        expect(yield* status(cancel, { method: "POST", headers: { ...auth, origin }, body: "{}" })).toEqual([403, "forbidden"])
      }
      expect(yield* pendingIds(port, 1)).toEqual([id])

      // Over 64 KiB, declared or chunked, is refused; the ask stays pending.
      const big = JSON.stringify({ answers: [{ id: "go", selected: [], custom: "x".repeat(70 * 1024) }] })
      const answer = `/api/questions/${id}/answer`
      const json = { ...auth, "content-type": "application/json" }
      expect(yield* status(answer, { method: "POST", headers: json, body: big })).toEqual([413, "too-large"])
      const refused = yield* promise(() => send(port, answer, { method: "POST", headers: json, body: big }))
      expect(refused.json?.message).toBe("The body is over the limit of 64 KiB (65536 bytes).")
      expect(yield* status(answer, { method: "POST", headers: json, body: big, chunked: true })).toEqual([413, "too-large"])
      expect(yield* pendingIds(port, 1)).toEqual([id])

      // A body that is not JSON by its type, even valid JSON, chunked or not: 415, and the ask stays pending.
      for (const type of ["text/plain", "text/plain;charset=UTF-8", "multipart/form-data; boundary=x"]) {
        expect(yield* status(cancel, { method: "POST", headers: { ...auth, "content-type": type }, body: "{}" }))
          .toEqual([415, "unsupported-media-type"])
      }
      expect(yield* status(cancel, { method: "POST", headers: auth, body: "{}", chunked: true }))
        .toEqual([415, "unsupported-media-type"])
      expect(yield* pendingIds(port, 1)).toEqual([id])

      const sameOrigin = yield* status(cancel, { method: "POST", headers: { ...json, origin: `http://127.0.0.1:${port}` }, body: "{}" })
      expect(sameOrigin).toEqual([200, undefined])
      expect(Exit.findErrorOption(yield* Fiber.await(fiber))).toMatchObject({ value: { code: "ASK_CANCELLED" } })
      expect(yield* status("/no/such/path", { headers: auth })).toEqual([404, "not-found"])
    }))

  it.live("follows HTTP: WWW-Authenticate on 401, 405 with Allow, 400 for two Host lines or none", () =>
    Effect.gen(function*() {
      const { web } = yield* start()
      const port = web.port
      const host = `Host: 127.0.0.1:${port}\r\n`
      const bearer = `Authorization: Bearer ${token}\r\n`
      /** One request on a raw socket: the status line and the headers, lower-cased. */
      const raw = (text: string) =>
        promise(() =>
          new Promise<{ status: string; headers: string }>((resolve) => {
            let got = ""
            const socket = connect(port, "127.0.0.1", () => socket.write(text))
            socket.on("data", (chunk: Buffer) => (got += chunk.toString("utf8")))
            socket.on("close", () => {
              const head = got.split("\r\n\r\n")[0]!
              resolve({ status: head.split("\r\n")[0]!, headers: head.toLowerCase() })
            })
            socket.on("error", () => undefined)
          })
        )
      const unauthorized = yield* raw(`GET /api/questions HTTP/1.1\r\n${host}Connection: close\r\n\r\n`)
      expect(unauthorized.status).toBe("HTTP/1.1 401 Unauthorized")
      expect(unauthorized.headers).toMatch(/\r\nwww-authenticate: bearer realm="ask-user"/)
      for (
        const [line, allow] of [
          ["PUT /api/questions", "get, head"],
          ["DELETE /api/questions/some-id/answer", "post"],
          ["GET /api/questions/some-id/cancel", "post"],
          ["POST /api/events", "get, head"],
          ["POST /", "get, head"],
          // Every form the router routes (trailing slash, doubled slashes, any case) is the same path.
          ["POST /api/questions/", "get, head"],
          ["PUT /api/questions/", "get, head"],
          ["DELETE //api//events/", "get, head"],
          ["OPTIONS /API/Questions", "get, head"],
          ["GET /api/questions/some-id/answer/", "post"],
          ["PUT /api/questions/some-id/cancel/?token=x", "post"]
        ]
      ) {
        const reply = yield* raw(`${line} HTTP/1.1\r\n${host}${bearer}Content-Length: 0\r\nConnection: close\r\n\r\n`)
        expect([line, reply.status]).toEqual([line, "HTTP/1.1 405 Method Not Allowed"])
        expect(reply.headers).toContain(`\r\nallow: ${allow}\r\n`)
      }
      // A known path the router cannot decode, asked with its own method, is not a 405.
      const undecodable = yield* raw(`POST /api/questions/%ZZ/cancel HTTP/1.1\r\n${host}${bearer}Connection: close\r\n\r\n`)
      expect(undecodable.status).toBe("HTTP/1.1 404 Not Found")
      for (
        const text of [
          `GET /api/questions HTTP/1.1\r\n${host}Host: evil.example:${port}\r\n${bearer}Connection: close\r\n\r\n`,
          `GET /api/questions HTTP/1.1\r\n${host}${host}${bearer}Connection: close\r\n\r\n`,
          `GET /api/questions HTTP/1.1\r\n${bearer}Connection: close\r\n\r\n`
        ]
      ) {
        expect((yield* raw(text)).status).toBe("HTTP/1.1 400 Bad Request")
      }
      for (const path of ["/api/questions", "/api/questions/", "//api//questions/", "/API/Questions"]) {
        expect([path, (yield* raw(`GET ${path} HTTP/1.1\r\n${host}${bearer}Connection: close\r\n\r\n`)).status])
          .toEqual([path, "HTTP/1.1 200 OK"])
      }
      // A target starting with `//` is a path, not a URL with an empty host: never a 500.
      for (const line of ["GET //", "GET ///", "HEAD //", `GET //?token=${token}`, "PUT //", "OPTIONS //"]) {
        const reply = yield* raw(`${line} HTTP/1.1\r\n${host}${bearer}Content-Length: 0\r\nConnection: close\r\n\r\n`)
        expect([line, reply.status]).not.toEqual([line, "HTTP/1.1 500 Internal Server Error"])
        expect(reply.status).toMatch(/^HTTP\/1\.1 (200|404|405) /)
      }
      // The token may come in the query of such a target too.
      const byQuery = yield* raw(`GET //?token=${token} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`)
      expect(byQuery.status).not.toBe("HTTP/1.1 401 Unauthorized")
    }))


  it.live("serves the page with a strict Content-Security-Policy and no caching", () =>
    Effect.gen(function*() {
      const { web } = yield* start()
      const page = yield* promise(() => send(web.port, `/?token=${token}`))
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toMatch(/^text\/html/)
      const csp = String(page.headers["content-security-policy"])
      expect(csp).toContain("default-src 'none'")
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/)
      expect(csp).not.toContain("unsafe-inline")
      expect(page.headers["cache-control"]).toBe("no-store")
      expect(page.headers["referrer-policy"]).toBe("no-referrer")
      // The token is not written into the page; the page reads it from its URL.
      expect(page.body).not.toContain(token)
    }))

  it("accepts exactly the Host names that mean this server", () => {
    const loopback = makeHostCheck("127.0.0.1", 4000)
    expect(["127.0.0.1:4000", "localhost:4000", "LOCALHOST:4000", "[::1]:4000"].map(loopback)).toEqual([true, true, true, true])
    expect(["127.0.0.1:4001", "evil.example:4000", "127.0.0.1", undefined, "", "a@127.0.0.1:4000", "127.0.0.1:4000/x"].map(loopback))
      .toEqual([false, false, false, false, false, false, false])
    const wildcard = makeHostCheck("0.0.0.0", 4000)
    expect(["192.168.1.20:4000", "[fe80::1]:4000", "localhost:4000", "evil.example:4000", "10.0.0.1:4001"].map(wildcard))
      .toEqual([true, true, true, false, false])
    const named = makeHostCheck("box.lan", 80)
    expect(["box.lan", "box.lan:80", "localhost:80", "other.lan"].map(named)).toEqual([true, true, false, false])
    // Only the forms served, as written: no other spelling of the address or the port.
    const otherSpellings = [
      "127.1:4000", "127.0.1:4000", "0x7f000001:4000", "0x7f.0.0.1:4000", "2130706433:4000", "0177.0.0.1:4000",
      "127.000.000.001:4000", "127.0.0.1:04000", "127.0.0.1:004000", "localhost.:4000", "[0:0:0:0:0:0:0:1]:4000",
      "[::ffff:127.0.0.1]:4000", "%6c%6fcalhost:4000", "127.0.0.1:+4000", "127.0.0.1:4000 ", " 127.0.0.1:4000"
    ]
    expect(otherSpellings.filter(loopback)).toEqual([])
    expect(["10.0.0.1:04000", "010.0.0.1:4000", "167772161:4000", "10.1:4000"].filter(wildcard)).toEqual([])
    expect(["box.lan:080", "box.lan.", "BOX.LAN"].map(named)).toEqual([false, false, true])
    expect(originAllowed(undefined, "127.0.0.1:4000")).toBe(true)
    expect(originAllowed("http://127.0.0.1:4000", "127.0.0.1:4000")).toBe(true)
    expect(originAllowed("http://localhost:4000", "127.0.0.1:4000")).toBe(false)
    expect(originAllowed("null", "127.0.0.1:4000")).toBe(false)
  })
})

describe("WebProvider: who answers, and who is shown what", () => {
  /** The seam over a web provider, with its events, in the test's scope. */
  const startWatched = (options: WebProviderOptions = {}) =>
    Effect.gen(function*() {
      const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ token, ...options })))
      const web = Context.get(context, WebProvider)
      const settled = yield* UserInteraction.subscribe.pipe(
        Effect.map(Stream.filter((event) => event._tag === "Settled")),
        Effect.provideContext(context)
      )
      const inSeam = <A, E>(effect: Effect.Effect<A, E, UserInteraction>) => Effect.provideContext(effect, context)
      return { web, settled, inSeam }
    })

  const listedIds = (port: number, headers: Record<string, string> = {}) =>
    promise(() => send(port, "/api/questions", { headers: { ...auth, ...headers } })).pipe(
      Effect.map((reply) => (reply.json.pending as Array<{ id: string; request: { questions: Array<{ id: string }> } }>))
    )

  /** One question whose id names the ask, so a listing says which asks it holds. */
  const askNamed = (name: string, answerableBy?: ReadonlyArray<string>): AskUserQuestionRequest => ({
    questions: [{ id: name, question: `${name}?`, options: [{ label: "yes" }, { label: "no" }] }],
    ...(answerableBy === undefined ? {} : { answerableBy })
  })
  const yes = (name: string) => ({ answers: [{ id: name, selected: ["yes"] }] })

  it.live("the token holder answers and cancels as web:token: in the receipt and in Settled", () =>
    Effect.gen(function*() {
      const { inSeam, settled, web } = yield* startWatched()
      const answering = yield* Effect.forkChild(inSeam(UserInteraction.askWithReceipt(askNamed("go"))))
      const [answered] = yield* pendingIds(web.port, 1)
      expect((yield* promise(() => postJson(web.port, `/api/questions/${answered}/answer`, token, yes("go")))).status).toBe(200)
      const { answer, receipt } = yield* Fiber.join(answering)
      expect(answer).toEqual(yes("go"))
      expect(receipt).toMatchObject({ surface: "web", by: { id: "web:token" } })

      const cancelling = yield* Effect.forkChild(inSeam(UserInteraction.ask(askNamed("stop"))))
      const [cancelled] = yield* pendingIds(web.port, 1)
      expect((yield* promise(() => postJson(web.port, `/api/questions/${cancelled}/cancel`, token, {}))).status).toBe(200)
      expect((yield* Effect.flip(Fiber.join(cancelling))).code).toBe("ASK_CANCELLED")
      const events = yield* settled.pipe(Stream.take(2), Stream.runCollect)
      expect(events[0]).toMatchObject({ outcome: "answered", surface: "web", by: { id: "web:token" } })
      expect(events[1]).toMatchObject({ outcome: "ASK_CANCELLED", surface: "web", by: { id: "web:token" } })
    }))

  it.live("the token holder is shown only asks it may answer (none, web:token, web:*, *); on another, 403 and it stays pending", () =>
    Effect.gen(function*() {
      const { inSeam, web } = yield* startWatched()
      const events = yield* promise(() => openEvents(web.port, token))
      const asks = {
        open: askNamed("open"),
        exact: askNamed("exact", ["web:token"]),
        web: askNamed("web", ["web:*"]),
        anyone: askNamed("anyone", ["os:ana@*", "*"]),
        ana: askNamed("ana", ["os:ana@*"]),
        devices: askNamed("devices", ["device:*", "web:tok"])
      }
      const fibers = yield* Effect.forEach(Object.values(asks), (request) => Effect.forkChild(inSeam(UserInteraction.ask(request))))
      yield* promise(() => waitFor(() => Effect.runPromise(Effect.map(web.pending, (p) => p.length === 6)), 10_000, "six asks"))
      const late = yield* promise(() => openEvents(web.port, token))
      // A marker asked after everything else: on each ordered stream, whatever was sent before it has arrived.
      const nameOf = (event: { readonly data: any }): string => event.data.request.questions[0].id
      const marker = yield* Effect.forkChild(inSeam(UserInteraction.ask(askNamed("marker"))))
      for (const stream of [events, late]) yield* promise(() => stream.next((e) => e.event === "asked" && nameOf(e) === "marker"))

      // The table holds them all; the token holder's listing, event stream and replay only the others (sorted: the
      // forks' order need not be the order they reach the page).
      const shown = ["anyone", "exact", "marker", "open", "web"]
      const listed = yield* listedIds(web.port)
      expect(listed.map((view) => view.request.questions[0]!.id).sort()).toEqual(shown)
      for (const stream of [events, late]) {
        expect(stream.events.filter((e) => e.event === "asked").map(nameOf).sort()).toEqual(shown)
      }

      const hidden = (yield* web.pending).filter((view) => ["ana", "devices"].includes(view.request.questions[0]!.id))
      expect(hidden).toHaveLength(2)
      for (const view of hidden) {
        const name = view.request.questions[0]!.id
        const answer = yield* promise(() => postJson(web.port, `/api/questions/${view.id}/answer`, token, yes(name)))
        expect(answer.status).toBe(403)
        expect(answer.json.error).toBe("not-authorized")
        expect(answer.json.message).toContain("web:token may not")
        const cancel = yield* promise(() => postJson(web.port, `/api/questions/${view.id}/cancel`, token, {}))
        expect([cancel.status, cancel.json.error]).toEqual([403, "not-authorized"])
      }
      // Refused, both stay pending, and their callers are still waiting.
      expect((yield* web.pending).map((view) => view.id)).toEqual(expect.arrayContaining(hidden.map((view) => view.id)))
      expect(fibers.map((fiber) => fiber.pollUnsafe())).toEqual(fibers.map(() => undefined))

      // The shown ones are answered; the hidden ones end unseen, with no resolved event either.
      for (const view of listed) {
        const name = view.request.questions[0]!.id
        expect((yield* promise(() => postJson(web.port, `/api/questions/${view.id}/answer`, token, yes(name)))).status).toBe(200)
      }
      yield* Effect.forEach([...fibers.slice(0, 4), marker], Fiber.join)
      yield* Effect.forEach(fibers.slice(4), Fiber.interrupt)
      const after = yield* Effect.forkChild(inSeam(UserInteraction.ask(askNamed("after"))))
      yield* promise(() => events.next((e) => e.event === "asked" && nameOf(e) === "after"))
      const resolvedIds = events.events.filter((e) => e.event === "resolved").map((e) => e.data.id)
      expect(resolvedIds.sort()).toEqual(listed.map((view) => view.id).sort())
      yield* Fiber.interrupt(after)
      events.close()
      late.close()
    }))

  it.live("a server that names its visitors per request: a device sees and answers its asks; nobody known sees only open ones", () =>
    Effect.gen(function*() {
      const { inSeam, web } = yield* startWatched({
        // As a remote inbox would from a device's credential; here from a header.
        answerer: (request) => {
          const device = request.headers["x-device"]
          return Effect.succeed(device === undefined ? undefined : { id: `device:${device}`, name: "Ana's phone" })
        }
      })
      const open = yield* Effect.forkChild(inSeam(UserInteraction.ask(askNamed("open"))))
      const phones = yield* Effect.forkChild(inSeam(UserInteraction.askWithReceipt(askNamed("phones", ["device:*"]))))
      yield* promise(() => waitFor(() => Effect.runPromise(Effect.map(web.pending, (p) => p.length === 2)), 10_000, "two asks"))
      const phone = { "x-device": "3f2a" }
      expect((yield* listedIds(web.port)).map((view) => view.request.questions[0]!.id)).toEqual(["open"])
      const seen = yield* listedIds(web.port, phone)
      expect(seen.map((view) => view.request.questions[0]!.id)).toEqual(["open", "phones"])
      const phoneEvents = yield* promise(() => openEvents(web.port, token, phone))
      yield* promise(() => phoneEvents.next((e) => e.event === "asked" && e.data.request.questions[0].id === "phones"))

      const path = `/api/questions/${seen[1]!.id}/answer`
      const anonymous = yield* promise(() => postJson(web.port, path, token, yes("phones")))
      expect([anonymous.status, anonymous.json.error]).toEqual([403, "not-authorized"])
      expect(anonymous.json.message).toContain("this surface cannot say who is answering")
      expect((yield* promise(() => postJson(web.port, path, token, yes("phones"), phone))).status).toBe(200)
      const { receipt } = yield* Fiber.join(phones)
      expect(receipt).toMatchObject({ surface: "web", by: { id: "device:3f2a", name: "Ana's phone" } })
      yield* Fiber.interrupt(open)
      phoneEvents.close()
    }))

  it.live("in a fan-out with a slower surface, the web page's answer wins with web:token", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(UserInteraction.layerWith(FanoutProvider.layer(
        WebProvider.layer({ token }),
        ScriptedProvider.layer(() => Effect.as(Effect.sleep("1 hour"), yes("go")), { by: { id: "os:ana@build-01" } })
      )))
      const web = Context.get(context, WebProvider)
      const fiber = yield* Effect.forkChild(UserInteraction.askWithReceipt(askNamed("go")).pipe(Effect.provideContext(context)))
      const [id] = yield* pendingIds(web.port, 1)
      expect((yield* promise(() => postJson(web.port, `/api/questions/${id}/answer`, token, yes("go")))).status).toBe(200)
      expect((yield* Fiber.join(fiber)).receipt).toMatchObject({ surface: "web", by: { id: "web:token" } })
    }))
})
