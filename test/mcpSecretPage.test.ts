/**
 * Secrets through MCP: a secret question never goes in a form. `ask-user
 * mcp` (the built program, over real stdio, driven by the official SDK
 * clients) asks the other questions in one form, then sends the secret one
 * as a URL-mode elicitation pointing at a one-time page on loopback; the
 * test plays the human behind the client and types the secret into that
 * page. The model reads `"secret":"received"`; the value is in no message
 * between client and server and nowhere on stderr; the page is dead once
 * the ask is over. Clients without URL mode, and a server without a secret
 * page, fail PROVIDER_FAILED with nothing sent.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { type AskUserQuestionRequest, toElicitationContent, UserInteraction } from "effect-user-interaction"
import { McpProvider } from "effect-user-interaction/mcp"
import { WebSecretPage } from "effect-user-interaction/web"
import { connectedServer, type Era, type Form, type Human, overStdio, type Reply, waitFor } from "./support/mcpClient.js"
import { openPage, postSecret } from "./support/secretPageClient.js"

const value = "hunter2-correct-horse-battery"

const request: AskUserQuestionRequest = {
  questions: [
    { id: "user", question: "User name?" },
    { id: "token", question: "Deploy token?", header: "Deploy", secret: true },
    { id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] }
  ]
}

/** The questions that are not secret: what the form holds. */
const formRequest: AskUserQuestionRequest = { questions: [request.questions[0]!, request.questions[2]!] }
const formReply: Reply = {
  action: "accept",
  content: toElicitationContent(formRequest, {
    answers: [{ id: "user", selected: [], custom: "ana" }, { id: "go", selected: ["yes"] }]
  })
}

/** What the model reads. */
const modelAnswer = {
  answers: [{ id: "user", selected: [], custom: "ana" }, { id: "token", secret: "received" }, { id: "go", selected: ["yes"] }]
}

const withUrlMode = { form: {}, url: {} }

/** The human: fills in the form, and does `onUrl` with the secret page's link. */
const human = (onUrl: (form: Form, signal: AbortSignal) => Reply | Promise<Reply>): Human => (form, signal) =>
  form.mode === "url" ? onUrl(form, signal) : formReply

/** Opens the page, checks it is the password form, and types the secret. */
const typeSecret = async (url: string) => {
  const shown = await openPage(url)
  if (shown.status !== 200 || !shown.body.includes(`type="password"`)) throw new Error(`the page did not show: ${shown.status}`)
  const posted = await postSecret(url, { secret: value })
  if (posted.status !== 200) throw new Error(`the page refused the secret: ${posted.status}`)
}

const errorCode = (json: any) => ({ name: json.name, code: json.code })
const status = (url: string) => Effect.promise(() => openPage(url).then((reply) => reply.status))

describe("ask-user mcp: a secret question through a URL-mode elicitation (over stdio)", () => {
  it.live("2025-11-25 (SDK 1.32.2): the form without the secret, then the link; the page takes the secret, the client is told it is complete, the model reads \"received\"", () =>
    Effect.gen(function*() {
      // The human types the secret on the page first, then accepts the link in the client.
      const h = yield* overStdio([], {
        era: "2025-11-25",
        elicitation: withUrlMode,
        human: human(async (form) => {
          await typeSecret(form.url!)
          return { action: "accept" }
        })
      })
      const outcome = yield* Effect.promise(() => h.ask(request))
      expect(outcome).toEqual({ isError: false, json: modelAnswer })
      const [form, link] = h.forms
      expect(h.forms).toHaveLength(2)
      expect(form!.mode).toBe("form")
      expect(Object.keys(form!.requestedSchema.properties)).toEqual(["question_1", "question_2", "question_2_custom"])
      expect(form!.message).not.toContain("Deploy token?")
      expect(link).toMatchObject({ mode: "url", message: expect.stringContaining("asks for a secret: [Deploy] Deploy token?") })
      expect(link!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/)
      expect(link!.elicitationId).toEqual(expect.any(String))
      yield* waitFor(() => h.completed.length === 1)
      expect(h.completed).toEqual([link!.elicitationId])
      // The value went from the page to the server only.
      expect(h.wire().some((message) => message.includes("elicitation/create"))).toBe(true)
      expect(h.wire().join("\n")).not.toContain(value)
      expect(h.stderr()).not.toContain(value)
      // Used: the page and a second POST are refused.
      expect(yield* status(link!.url!)).toBe(410)
      expect((yield* Effect.promise(() => postSecret(link!.url!, { secret: "again" }))).status).toBe(410)
    }))

  it.live("2026-07-28 (SDK 2.4.0 pinned): the link rides an input_required round; the client accepts first and its retry waits for the page", () =>
    Effect.gen(function*() {
      const links: Array<string> = []
      const h = yield* overStdio([], {
        era: "2026-07-28",
        elicitation: withUrlMode,
        human: human((form) => {
          links.push(form.url!)
          return { action: "accept" }
        })
      })
      const call = h.ask(request)
      // The retry that carries the link's accept has reached the server: it waits for the page.
      const retriedAccept = () =>
        h.wire().filter((message) => message.includes(`"method":"tools/call"`) && message.includes(`"inputResponses"`)).length === 2
      yield* waitFor(retriedAccept)
      expect(links).toHaveLength(1)
      yield* Effect.promise(() => typeSecret(links[0]!))
      expect(yield* Effect.promise(() => call)).toEqual({ isError: false, json: modelAnswer })
      expect(h.forms.map((form) => form.mode)).toEqual(["form", "url"])
      // That revision has no elicitationId and no completion notice.
      expect(h.forms[1]!.elicitationId).toBeUndefined()
      expect(h.completed).toEqual([])
      expect(h.wire().join("\n")).not.toContain(value)
      expect(h.stderr()).not.toContain(value)
      expect(yield* status(links[0]!)).toBe(410)
    }))

  it.live("a request of secret questions only sends no form, one link per secret, in order", () =>
    Effect.gen(function*() {
      const secrets: AskUserQuestionRequest = {
        questions: [
          { id: "a", question: "First secret?", secret: true },
          { id: "b", question: "Second secret?", secret: true }
        ]
      }
      const h = yield* overStdio([], {
        era: "2025-11-25",
        elicitation: withUrlMode,
        human: async (form) => {
          await postSecret(form.url!, form.message.includes("First") ? { secret: "one" } : { skip: "1" })
          return { action: "accept" }
        }
      })
      const outcome = yield* Effect.promise(() => h.ask(secrets))
      expect(outcome.json).toEqual({ answers: [{ id: "a", secret: "received" }, { id: "b", selected: [] }] })
      expect(h.forms.map((form) => [form.mode, form.message.includes("First")])).toEqual([["url", true], ["url", false]])
      expect(h.forms[0]!.url).not.toBe(h.forms[1]!.url)
    }))

  it.live.each<Era>(["2026-07-28", "2025-11-25"])("%s: declining the link is ASK_DECLINED, cancelling it ASK_CANCELLED; the page is dead either way", (era) =>
    Effect.gen(function*() {
      const links: Array<string> = []
      const replies: Array<Reply["action"]> = ["decline", "cancel"]
      const h = yield* overStdio([], {
        era,
        elicitation: withUrlMode,
        human: human((form) => {
          links.push(form.url!)
          return { action: replies[links.length - 1]! }
        })
      })
      const declined = yield* Effect.promise(() => h.ask(request))
      expect(errorCode(declined.json)).toEqual({ name: "UserInteractionError", code: "ASK_DECLINED" })
      expect(declined.json.message).toBe("The human declined to give the secret in the MCP client.")
      const cancelled = yield* Effect.promise(() => h.ask(request))
      expect(errorCode(cancelled.json)).toEqual({ name: "UserInteractionError", code: "ASK_CANCELLED" })
      expect(yield* status(links[0]!)).toBe(410)
      expect(yield* status(links[1]!)).toBe(410)
      // A value posted now is taken by no one.
      expect((yield* Effect.promise(() => postSecret(links[0]!, { secret: value }))).status).toBe(410)
    }))

  it.live("2025-11-25: the client cancelling the tool call while the link is open cancels the elicitation and kills the page", () =>
    Effect.gen(function*() {
      const h = yield* overStdio([], {
        era: "2025-11-25",
        elicitation: withUrlMode,
        human: human((_form, signal) =>
          new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }))
        )
      })
      const abort = new AbortController()
      h.ask(request, { signal: abort.signal }).catch(() => undefined)
      yield* waitFor(() => h.forms.length === 2)
      const url = h.forms[1]!.url!
      expect(yield* status(url)).toBe(200)
      abort.abort("never mind")
      yield* waitFor(() => h.cancelled.length === 1)
      expect(h.cancelled[0]!.mode).toBe("url")
      yield* Effect.promise(() => waitUntilStatus(url, 410))
      expect(h.completed).toEqual([])
    }))

  it.live("2026-07-28: --timeout ends an ask whose page nobody fills in: ASK_TIMEOUT, and the page is dead", () =>
    Effect.gen(function*() {
      const links: Array<string> = []
      const h = yield* overStdio(["--timeout", "2s"], {
        era: "2026-07-28",
        elicitation: withUrlMode,
        human: human((form) => {
          links.push(form.url!)
          return { action: "accept" }
        })
      })
      const outcome = yield* Effect.promise(() => h.ask(request))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "ASK_TIMEOUT" })
      expect(yield* status(links[0]!)).toBe(410)
    }))

  it.live.each<Era>(["2026-07-28", "2025-11-25"])("%s: a client without URL mode gets PROVIDER_FAILED, and no elicitation goes on the wire", (era) =>
    Effect.gen(function*() {
      const h = yield* overStdio([], { era, elicitation: { form: {} }, human: () => formReply })
      const outcome = yield* Effect.promise(() => h.ask(request))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message).toBe(
        "The question \"token\" is secret and needs a secret page, but the MCP client cannot open one: " +
          "it did not advertise capabilities.elicitation.url; nothing was sent."
      )
      expect(h.forms).toEqual([])
      expect(h.wire().some((message) => message.includes("elicitation/create") || message.includes("inputRequests"))).toBe(false)
    }))

  it.live("2025-06-18 (SDK 1.17.5): that revision has no URL mode, whatever the client declares: PROVIDER_FAILED, nothing sent", () =>
    Effect.gen(function*() {
      const h = yield* overStdio([], { era: "2025-06-18", elicitation: withUrlMode, human: () => formReply })
      const outcome = yield* Effect.promise(() => h.ask(request))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message).toContain("it speaks MCP 2025-06-18, which has no URL-mode elicitation")
      expect(h.forms).toEqual([])
    }))

  it.live("--no-secret-page: a secret question fails PROVIDER_FAILED before anything is sent, even to a client with URL mode", () =>
    Effect.gen(function*() {
      const h = yield* overStdio(["--no-secret-page"], { era: "2025-11-25", elicitation: withUrlMode, human: () => formReply })
      const outcome = yield* Effect.promise(() => h.ask(request))
      expect(errorCode(outcome.json)).toEqual({ name: "UserInteractionError", code: "PROVIDER_FAILED" })
      expect(outcome.json.message).toContain("needs a secret page (URL-mode elicitation), and this provider has none")
      expect(h.forms).toEqual([])
    }))
})

describe("McpProvider with a secret page, under the seam (in process)", () => {
  it.live("the caller's answer holds the page's secret as a Redacted, in question order; content the client sends with its accept is ignored", () =>
    Effect.gen(function*() {
      const { server } = yield* connectedServer({
        era: "2025-11-25",
        elicitation: withUrlMode,
        human: human(async (form) => {
          await typeSecret(form.url!)
          return { action: "accept", content: { secret: "from the client", question_1: "from the client" } }
        })
      })
      const secretPage = yield* WebSecretPage.make()
      const context = yield* Layer.build(UserInteraction.layerWith(McpProvider.layer(server, { secretPage })))
      const answer = yield* UserInteraction.ask(request).pipe(Effect.provideContext(context))
      expect(answer.answers.map((item) => item.id)).toEqual(["user", "token", "go"])
      const secret = answer.answers[1]!
      expect(Object.keys(secret)).toEqual(["id", "selected", "secret"])
      expect(Redacted.value(secret.secret!)).toBe(value)
      expect(String(secret.secret)).toBe("<redacted>")
      expect(answer.answers[0]).toEqual({ id: "user", selected: [], custom: "ana" })
    }))
})

/** Polls the page until it answers `wanted` (the server takes the ask down a moment after the client cancels). */
const waitUntilStatus = async (url: string, wanted: number) => {
  const until = Date.now() + 10_000
  while ((await openPage(url)).status !== wanted) {
    if (Date.now() > until) throw new Error(`the page never answered ${wanted}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
