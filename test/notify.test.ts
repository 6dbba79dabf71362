/**
 * SPEC "Telling the human a question waits: notifications": the targets
 * (ntfy, Standard Webhooks, desktop) against real HTTP servers on loopback,
 * their retries and failures, and `DurableInbox.notify` over a SQLite store.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Schema } from "effect"
import { join } from "node:path"
import { Webhook } from "standardwebhooks"
import type { AskUserQuestionRequest } from "effect-user-interaction"
import { UserInteraction } from "effect-user-interaction"
import { DurableInbox, DurableProvider, DurableStore } from "effect-user-interaction/durable"
import { desktop, deliver, type Notice, ntfy, webhook } from "../src/notify/index.js"
import { noticeMessage, noticeTitle } from "../src/notify/text.js"
import { tempDir } from "./cliHarness.js"
import { unsafeChars } from "./terminalHarness.js"
import { receiver, refusingUrl } from "./support/receiver.js"

const secret = `whsec_${Buffer.from("a test secret of 32 bytes, fine.").toString("base64")}`

const request: AskUserQuestionRequest = {
  agent: { id: "claude", name: "Claude" },
  questions: [{ id: "q", header: "Deploy", question: "Deploy to production?", options: [{ label: "Yes" }, { label: "No" }] }]
}

const notice = (type: Notice["type"] = "ask.pending", more: Partial<Notice> = {}): Notice => ({
  type,
  ask: { id: "a1", request, askedAt: new Date("2026-01-02T03:04:05.000Z"), expiresAt: new Date("2026-01-02T04:04:05.000Z") },
  ...more
})

/** Runs `effect` with every log message kept in `logged`. */
const logging = <A, E, R>(logged: Array<string>, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(Logger.layer([Logger.make(({ message }) => void logged.push(String(message)))])))

const withReceiver = <A, E, R>(
  respond: Parameters<typeof receiver>[0],
  body: (server: Awaited<ReturnType<typeof receiver>>) => Effect.Effect<A, E, R>
) =>
  Effect.acquireUseRelease(
    Effect.promise(() => receiver(respond)),
    body,
    (server) => Effect.promise(() => server.close())
  )

const fast = { timeout: "500 millis", backoff: "20 millis" } as const

describe("the ntfy target", () => {
  it.live("publishes JSON to the server's root: topic, title (agent and header), message, click, with the token", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        yield* deliver(ntfy(`${server.url}/ask-topic_1`, { token: "tk_secret" }), notice("ask.pending", { link: "https://inbox.example/a1" }))
        expect(server.received).toHaveLength(1)
        const [publish] = server.received
        expect(publish!.path).toBe("/")
        expect(publish!.headers["authorization"]).toBe("Bearer tk_secret")
        expect(publish!.headers["content-type"]).toBe("application/json")
        expect(JSON.parse(publish!.body)).toEqual({
          topic: "ask-topic_1",
          title: "Claude asks: Deploy",
          message: "Deploy to production?",
          tags: ["question"],
          priority: 4,
          click: "https://inbox.example/a1"
        })
      })))

  it.live("a reminder says so; a settled ask is not published; no link means no click", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const target = ntfy(`${server.url}/base/topic`, { token: "" })
        yield* deliver(target, notice("ask.settled", { outcome: "answered" }))
        yield* deliver(target, notice("ask.reminder"))
        expect(server.received).toHaveLength(1)
        expect(server.received[0]!.path).toBe("/base/")
        expect(server.received[0]!.headers["authorization"]).toBeUndefined()
        const body = JSON.parse(server.received[0]!.body)
        expect(body.title).toBe("Reminder: Claude asks: Deploy")
        expect(body).not.toHaveProperty("click")
      })))

  it.live("hostile model text is inert in title and message: escapes visible, ntfy markdown not enabled, cut to 1,000", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const hostile: AskUserQuestionRequest = {
          agent: { id: "x", name: "Evil\x1b]52;c;cGF5bG9hZA==\x07\u202e" },
          questions: [
            { id: "q", header: "**bold**\x9b2J", question: "<b>hi</b> [link](https://evil.example) \x1b[2J", options: [{ label: "A" }, { label: "B" }] },
            { id: "r", header: "Long", question: "y".repeat(2000), options: [{ label: "A" }, { label: "B" }] }
          ]
        }
        yield* deliver(ntfy(`${server.url}/t`), { type: "ask.pending", ask: { id: "h", request: hostile, askedAt: new Date() } })
        const body = JSON.parse(server.received[0]!.body)
        // eslint-disable-next-line no-control-regex
        const unsafe = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/
        expect(body.title).not.toMatch(unsafe)
        expect(body.message).not.toMatch(unsafe)
        expect(body.title).toBe("Evil\\x1b]52;c;cGF5bG9hZA==\\x07\\u202e asks: **bold**\\x9b2J")
        expect(body.message.startsWith("<b>hi</b> [link](https://evil.example) \\x1b[2J\nyyy")).toBe(true)
        expect(Array.from(body.message as string)).toHaveLength(1000)
        expect(body.message.endsWith("…")).toBe(true)
        expect(body).not.toHaveProperty("markdown")
      })))
})

describe("notification text", () => {
  // Mostly control, format and BiDi characters: Schema.String alone rarely makes them.
  const hostileText = Schema.Array(Schema.Literals([
    "a", " ", "\n", "\t", "*", "<", ";", "数", "🚀", "\x00", "\x07", "\x1b", "\x7f", "\x9b", "\x9d", "\u202e", "\u200b", "\u2028"
  ]))

  it.prop(
    "title and message never carry an unsafe character; the title is one line; the message at most 1,000 code points",
    [hostileText, hostileText, Schema.Array(Schema.String)],
    ([agent, header, questions]) => {
      const hostile: AskUserQuestionRequest = {
        agent: { id: "x", name: agent.join("") },
        questions: [header.join(""), ...questions].map((text, i) => ({
          id: `q${i}`,
          header: header.join(""),
          question: text,
          options: [{ label: "A" }, { label: "B" }]
        }))
      }
      const title = noticeTitle(hostile, "ask.pending")
      const message = noticeMessage(hostile)
      return !unsafeChars.test(title) && !/\n/.test(title) && !unsafeChars.test(message) &&
        Array.from(message).length <= 1000
    }
  )
})

describe("the webhook target", () => {
  it.live("POSTs the notice signed per Standard Webhooks, verified by the standardwebhooks package", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const target = webhook(`${server.url}/hook`, { secret })
        yield* deliver(target, notice("ask.pending", { link: "https://inbox.example/a1" }))
        yield* deliver(target, notice("ask.settled", { outcome: "answered" }))
        expect(server.received).toHaveLength(2)
        const [pending, settled] = server.received.map((one) => {
          expect(one.path).toBe("/hook")
          const headers = one.headers as Record<string, string>
          expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
          return new Webhook(secret).verify(one.body, headers)
        })
        expect(pending).toEqual({
          type: "ask.pending",
          ask: {
            id: "a1",
            agent: "Claude",
            questions: request.questions,
            askedAt: "2026-01-02T03:04:05.000Z",
            expiresAt: "2026-01-02T04:04:05.000Z",
            url: "https://inbox.example/a1"
          }
        })
        expect(settled).toMatchObject({ type: "ask.settled", outcome: "answered", ask: { id: "a1" } })
        expect(settled).not.toHaveProperty("ask.url")
        // Another secret does not verify it: the signature is real.
        const other = `whsec_${Buffer.from("another secret, also 32 bytes..").toString("base64")}`
        expect(() => new Webhook(other).verify(server.received[0]!.body, server.received[0]!.headers as Record<string, string>))
          .toThrow()
      })))

  it.live("model text in the questions is made inert as on the terminal", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const hostile: AskUserQuestionRequest = {
          agent: { id: "x", name: "A\x1b[31m" },
          questions: [{ id: "q", header: "H\u202e", question: "Q\x07", options: [{ label: "Y\x9b" }, { label: "N" }] }]
        }
        yield* deliver(webhook(server.url, { secret }), { type: "ask.pending", ask: { id: "h", request: hostile, askedAt: new Date() } })
        const body = new Webhook(secret).verify(server.received[0]!.body, server.received[0]!.headers as Record<string, string>) as any
        expect(body.ask.agent).toBe("A\\x1b[31m")
        expect(body.ask.questions[0]).toMatchObject({ header: "H\\u202e", question: "Q\\x07", options: [{ label: "Y\\x9b" }, { label: "N" }] })
      })))

  it.live("without a secret, or with one not in whsec_ form, it sends nothing and says why once", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const logged: Array<string> = []
        yield* logging(logged, deliver(webhook(server.url, { secret: "" }), notice(), fast))
        yield* logging(logged, deliver(webhook(server.url, { secret: "whsec_!!!" }), notice(), fast))
        expect(server.received).toHaveLength(0)
        expect(logged).toHaveLength(2)
        expect(logged[0]).toContain("ASK_USER_WEBHOOK_SECRET")
        expect(logged[1]).toContain("whsec_ base64 form")
      })))
})

describe("delivery", () => {
  it.live("a target that fails twice (500) is tried again with backoff and the third try lands: no warning, one webhook-id", () =>
    withReceiver((nth) => nth <= 2 ? 500 : 200, (server) =>
      Effect.gen(function*() {
        const logged: Array<string> = []
        yield* logging(logged, deliver(webhook(server.url, { secret }), notice(), fast))
        expect(server.received).toHaveLength(3)
        expect(new Set(server.received.map((one) => one.headers["webhook-id"])).size).toBe(1)
        for (const one of server.received) new Webhook(secret).verify(one.body, one.headers as Record<string, string>)
        expect(logged).toEqual([])
      })))

  it.live("a target that answers 500 forever is tried 3 times, then reported once", () =>
    withReceiver(() => 500, (server) =>
      Effect.gen(function*() {
        const logged: Array<string> = []
        yield* logging(logged, deliver(ntfy(`${server.url}/t`), notice(), fast))
        expect(server.received).toHaveLength(3)
        expect(logged).toHaveLength(1)
        expect(logged[0]).toContain(`Could not notify ntfy:${server.url}/… of the ask "a1" (ask.pending): HTTP status 500`)
        // The topic is ntfy's password: never in a warning.
        expect(logged[0]).not.toContain("/t ")
      })))

  it.live("a refused connection is tried 3 times, then reported once", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(refusingUrl)
      const logged: Array<string> = []
      yield* logging(logged, deliver(webhook(`${url}/services/T0/B0/hush`, { secret }), notice(), fast))
      expect(logged).toHaveLength(1)
      expect(logged[0]).toContain(`Could not notify webhook:${url}/…`)
      expect(logged[0]).not.toContain("hush")
      expect(logged[0]).toContain("3 tries")
    }))

  it.live("a server that never answers is given up on each try after the timeout (the request aborted), then reported once", () =>
    withReceiver(() => "hang", (server) =>
      Effect.gen(function*() {
        const logged: Array<string> = []
        yield* logging(logged, deliver(webhook(server.url, { secret }), notice(), fast))
        expect(server.received).toHaveLength(3)
        expect(logged).toHaveLength(1)
        expect(logged[0]).toContain("no answer within")
      })))
})

describe("the desktop target", () => {
  it.live("writes the terminal's OSC 777 and OSC 9 notifications, inert; a settled ask writes nothing", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const target = desktop({ write: (text) => void written.push(text) })
      const hostile: AskUserQuestionRequest = {
        agent: { id: "x", name: "Ev;il\x1b]0;pwned\x07" },
        questions: [{ id: "q", header: "H", question: "Go\x1b[2J?", options: [{ label: "A" }, { label: "B" }] }]
      }
      yield* deliver(target, { type: "ask.pending", ask: { id: "h", request: hostile, askedAt: new Date() } })
      yield* deliver(target, { type: "ask.reminder", ask: { id: "h", request, askedAt: new Date() } })
      yield* deliver(target, notice("ask.settled", { outcome: "answered" }))
      expect(written).toEqual([
        "\x1b]777;notify;Ev,il\\x1b]0,pwned\\x07 asks;Go\\x1b[2J?\x07\x1b]9;Ev,il\\x1b]0,pwned\\x07 asks: Go\\x1b[2J?\x07",
        "\x1b]777;notify;Reminder: Claude asks;Deploy to production?\x07\x1b]9;Reminder: Claude asks: Deploy to production?\x07"
      ])
    }))
})

describe("DurableInbox.notify", () => {
  const storeLayer = () =>
    Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer()), DurableInbox.layer).pipe(
      Layer.provideMerge(DurableStore.layer(`sqlite:${join(tempDir(), "asks.db")}`))
    )

  it.live("announces a new pending ask once to each target, and its settling to the webhook (never the answer)", () =>
    withReceiver(undefined, (ntfyServer) =>
      withReceiver(undefined, (hookServer) =>
        Effect.gen(function*() {
          const inbox = yield* DurableInbox
          yield* inbox.notify([ntfy(`${ntfyServer.url}/topic`), webhook(hookServer.url, { secret })], {
            link: (ask) => `https://inbox.example/#${ask.id}`
          })
          const id = yield* inbox.submit({ ...request, id: "n1" }, { expiresIn: "1 hour" })
          yield* Effect.promise(() => Promise.all([ntfyServer.until(1), hookServer.until(1)]))
          expect(JSON.parse(ntfyServer.received[0]!.body)).toMatchObject({ topic: "topic", click: "https://inbox.example/#n1" })
          yield* inbox.answer(id, { answers: [{ id: "q", selected: ["Yes"] }] })
          yield* Effect.promise(() => hookServer.until(2))
          const [pending, settled] = hookServer.received.map((one) =>
            new Webhook(secret).verify(one.body, one.headers as Record<string, string>) as any
          )
          expect(pending).toMatchObject({ type: "ask.pending", ask: { id: "n1", agent: "Claude", url: "https://inbox.example/#n1" } })
          expect(settled).toMatchObject({ type: "ask.settled", outcome: "answered", ask: { id: "n1" } })
          expect(JSON.stringify(settled)).not.toContain("selected")
          // Several more looks at the store later, still once each.
          yield* Effect.sleep("1 second")
          expect(ntfyServer.received).toHaveLength(1)
          expect(hookServer.received).toHaveLength(2)
        }).pipe(Effect.scoped))).pipe(Effect.provide(storeLayer())))

  it.live("reminds `remind` before the ask expires, after announcing it", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const inbox = yield* DurableInbox
        yield* inbox.notify([webhook(server.url, { secret })], { remind: "2 seconds" })
        yield* inbox.submit({ ...request, id: "r1" }, { expiresIn: "4 seconds" })
        yield* Effect.promise(() => server.until(2))
        const types = server.received.map((one) =>
          (new Webhook(secret).verify(one.body, one.headers as Record<string, string>) as any).type
        )
        expect(types).toEqual(["ask.pending", "ask.reminder"])
      }).pipe(Effect.scoped)).pipe(Effect.provide(storeLayer())), 20_000)

  it.live("an ask settled before its reminder gets none", () =>
    withReceiver(undefined, (server) =>
      Effect.gen(function*() {
        const inbox = yield* DurableInbox
        yield* inbox.notify([ntfy(`${server.url}/t`)], { remind: "1 second" })
        const id = yield* inbox.submit({ ...request, id: "r2" }, { expiresIn: "3 seconds" })
        yield* Effect.promise(() => server.until(1))
        yield* inbox.cancel(id)
        yield* Effect.sleep("3 seconds")
        expect(server.received).toHaveLength(1)
      }).pipe(Effect.scoped)).pipe(Effect.provide(storeLayer())), 20_000)

  it.live("dead targets (one that never answers, one refused) never delay an ask: the asker gets its answer at once", () =>
    withReceiver(() => "hang", (hanging) => {
      const logged: Array<string> = []
      return Effect.gen(function*() {
        const refused = yield* Effect.promise(refusingUrl)
        const inbox = yield* DurableInbox
        yield* inbox.notify([webhook(hanging.url, { secret }), ntfy(`${refused}/t`)])
        const asked = yield* UserInteraction.ask({ ...request, id: "d1" }).pipe(Effect.forkScoped)
        yield* Effect.promise(() => hanging.until(1))
        const started = Date.now()
        yield* inbox.answer("d1", { answers: [{ id: "q", selected: ["No"] }] })
        const answer = yield* Fiber.join(asked)
        expect(answer.answers[0]!.selected).toEqual(["No"])
        // Answered before the hanging target's first try could even time out (10 s).
        expect(Date.now() - started).toBeLessThan(10_000)
        expect(hanging.received).toHaveLength(1)
        // The refused target is reported once, after its three tries; the ask did not wait for it.
        while (logged.length === 0) yield* Effect.sleep("100 millis")
        yield* Effect.sleep("500 millis")
        expect(logged).toHaveLength(1)
        expect(logged[0]).toContain(`Could not notify ntfy:${refused}/… of the ask "d1"`)
      }).pipe(Effect.scoped, (effect) => logging(logged, effect))
    }).pipe(Effect.provide(storeLayer())), 30_000)

  it.live("closing the scope stops everything: a delivery in flight is aborted, a reminder never sent", () =>
    withReceiver((nth) => nth === 1 ? "hang" : 200, (server) =>
      Effect.gen(function*() {
        const inbox = yield* DurableInbox
        yield* Effect.scoped(Effect.gen(function*() {
          yield* inbox.notify([webhook(server.url, { secret })], { remind: "1 second" })
          yield* inbox.submit({ ...request, id: "s1" }, { expiresIn: "3 seconds" })
          yield* Effect.promise(() => server.until(1))
        }))
        while (server.abandoned() === 0) yield* Effect.sleep("50 millis")
        yield* Effect.sleep("2500 millis")
        expect(server.received).toHaveLength(1)
        expect(server.abandoned()).toBe(1)
      })).pipe(Effect.provide(storeLayer())), 20_000)

  it.live("a remind that is not a positive duration is InvalidRequest", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const error = yield* Effect.flip(Effect.scoped(inbox.notify([], { remind: "0 seconds" })))
      expect(error._tag).toBe("InvalidRequest")
    }).pipe(Effect.provide(storeLayer())))
})
