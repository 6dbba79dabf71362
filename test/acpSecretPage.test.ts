/**
 * Secrets through ACP: `AcpProvider` given a secret page asks the other
 * questions in one form, then each secret question through a URL-mode
 * `elicitation/create` pointing at a one-time page, and tells the client
 * `elicitation/complete` once the page has the value. The SDK's own client
 * app plays the editor; the test plays the human and types the secret into
 * the page. The caller's answer holds it as a Redacted; no message the agent
 * writes holds it; the page is dead once the ask is over. The built `ask-user
 * acp` does the same over real stdio.
 */
import * as acp from "@agentclientprotocol/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Redacted } from "effect"
import { type AskUserQuestionRequest, toElicitationContent, UserInteraction } from "effect-user-interaction"
import { AcpProvider } from "effect-user-interaction/acp"
import { WebSecretPage } from "effect-user-interaction/web"
import { awaitInSession, type PendingForm, SessionCancelled } from "../src/acp/elicit.js"
import { AskCancelled, ProviderClosed } from "../src/UserInteractionError.js"
import { type Answerer, driveAgent, inProcess, type Seen, spawnAgent, waitFor } from "./acpHarness.js"
import { openPage, postSecret } from "./support/secretPageClient.js"

const value = "hunter2-correct-horse-battery"

const request: AskUserQuestionRequest = {
  questions: [
    { id: "user", question: "User name?" },
    { id: "token", question: "Deploy token?", secret: true },
    { id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] }
  ]
}
const formRequest: AskUserQuestionRequest = { questions: [request.questions[0]!, request.questions[2]!] }
const formContent = toElicitationContent(formRequest, {
  answers: [{ id: "user", selected: [], custom: "ana" }, { id: "go", selected: ["yes"] }]
})

const urlOf = (seen: Seen): string => (seen.params as { readonly url: string }).url

/** The human: fills in the form, and does `onUrl` with the secret page's link. */
const human = (onUrl: (seen: Seen) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>): Answerer => (seen) =>
  seen.params.mode === "url" ? onUrl(seen) : { action: "accept", content: formContent }

const typeSecret = async (seen: Seen): Promise<acp.CreateElicitationResponse> => {
  const posted = await postSecret(urlOf(seen), { secret: value })
  if (posted.status !== 200) throw new Error(`the page refused the secret: ${posted.status}`)
  return { action: "accept" }
}

const status = (url: string) => Effect.promise(() => openPage(url).then((reply) => reply.status))

/** A seam with `AcpProvider` (given a secret page) over an in-process client declaring `modes`. */
const withProvider = (answer: Answerer, modes: { readonly form?: boolean; readonly url?: boolean } = { form: true, url: true }) =>
  Effect.gen(function*() {
    const pair = yield* inProcess(answer, modes)
    const secretPage = yield* WebSecretPage.make()
    const context = yield* Layer.build(
      UserInteraction.layerWith(AcpProvider.layer({ client: pair.agent.client, clientCapabilities: pair.capabilities, secretPage }))
    )
    const ask = (asked: AskUserQuestionRequest) => UserInteraction.ask({ ...asked, agent: { id: "s1" } }).pipe(Effect.provideContext(context))
    return { ...pair, ask, provider: Context.get(context, AcpProvider) }
  })

describe("AcpProvider with a secret page (in process)", () => {
  it.live("the form without the secret, then a URL-mode elicitation; the page's value is the caller's Redacted; the client is told it is complete", () =>
    Effect.gen(function*() {
      const h = yield* withProvider(human(typeSecret))
      const answer = yield* h.ask(request)
      expect(answer.answers.map((item) => item.id)).toEqual(["user", "token", "go"])
      expect(Redacted.value(answer.answers[1]!.secret!)).toBe(value)
      expect(answer.answers[0]).toEqual({ id: "user", selected: [], custom: "ana" })
      const [form, link] = h.seen
      expect(h.seen).toHaveLength(2)
      expect(form!.params.mode).toBe("form")
      expect(Object.keys((form!.params as any).requestedSchema.properties)).toEqual(["question_1", "question_2", "question_2_custom"])
      expect(link!.params).toMatchObject({
        sessionId: "s1",
        toolCallId: (form!.params as any).toolCallId,
        mode: "url",
        elicitationId: expect.any(String),
        message: expect.stringContaining("asks for a secret: Deploy token?")
      })
      expect(urlOf(link!)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/)
      yield* waitFor(() => h.completed.length === 1, "elicitation/complete")
      expect(h.completed).toEqual([(link!.params as any).elicitationId])
      // One tool call for the ask: announced once, completed once; the value is in no message the agent wrote.
      yield* waitFor(() => h.updates.some((n) => n.update.sessionUpdate === "tool_call_update"), "the tool call's end")
      expect(h.updates.map((n) => n.update.sessionUpdate)).toEqual(["tool_call", "tool_call_update"])
      expect(h.updates[1]!.update).toMatchObject({ status: "completed" })
      expect(JSON.stringify(h.agentWrote())).not.toContain(value)
      expect(JSON.stringify(h.updates)).toContain(`"secret":"received"`)
      expect(yield* status(urlOf(link!))).toBe(410)
    }))

  it.live("the value comes from the page only: content sent with the client's accept is ignored, and a page filled in before a decline is dropped", () =>
    Effect.gen(function*() {
      let declines = false
      const h = yield* withProvider(human(async (seen) => {
        await typeSecret(seen)
        return declines ? { action: "decline" } : { action: "accept", content: { secret: "from the client", question_1: "x" } }
      }))
      const answer = yield* h.ask(request)
      expect(Redacted.value(answer.answers[1]!.secret!)).toBe(value)
      declines = true
      const declined = yield* Effect.flip(h.ask(request))
      expect(declined.code).toBe("ASK_DECLINED")
    }))

  it.live("a client without URL mode: PROVIDER_FAILED, no elicitation sent, the tool call shown failed", () =>
    Effect.gen(function*() {
      const h = yield* withProvider(human(typeSecret), { form: true, url: false })
      const error = yield* Effect.flip(h.ask(request))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toBe(
        "The question \"token\" is secret and needs a secret page, but the ACP client cannot open one: " +
          "it did not advertise clientCapabilities.elicitation.url; nothing was sent."
      )
      expect(h.seen).toEqual([])
      yield* waitFor(() => h.updates.length === 2, "the failed tool call")
      expect(h.updates[1]!.update).toMatchObject({ sessionUpdate: "tool_call_update", status: "failed" })
    }))

  it.live("secret questions only: a client with URL mode and no forms is enough", () =>
    Effect.gen(function*() {
      const h = yield* withProvider(human(typeSecret), { form: false, url: true })
      const answer = yield* h.ask({ questions: [request.questions[1]!] })
      expect(Redacted.value(answer.answers[0]!.secret!)).toBe(value)
      expect(h.seen.map((seen) => seen.params.mode)).toEqual(["url"])
    }))

  it.live("declining the link is AskDeclined, cancelling it AskCancelled (the client's reason kept); the page is dead", () =>
    Effect.gen(function*() {
      const replies: Array<acp.CreateElicitationResponse> = [
        { action: "decline" },
        { action: "cancel", _meta: { message: "not now" } }
      ]
      const links: Array<string> = []
      const h = yield* withProvider(human((seen) => {
        links.push(urlOf(seen))
        return replies[links.length - 1]!
      }))
      const declined = yield* Effect.flip(h.ask(request))
      expect([declined.code, declined.message]).toEqual(["ASK_DECLINED", "The human declined the ACP secret page link."])
      const cancelled = yield* Effect.flip(h.ask(request))
      expect([cancelled.code, cancelled.message]).toEqual(["ASK_CANCELLED", "The ACP client cancelled the secret page link: not now"])
      expect(yield* status(links[0]!)).toBe(410)
      expect(yield* status(links[1]!)).toBe(410)
    }))

  it.live("session/cancel while the page waits ends the ask AskCancelled, with no tool call update, and kills the page", () =>
    Effect.gen(function*() {
      const h = yield* withProvider(human(() => ({ action: "accept" })))
      const fiber = yield* Effect.forkChild(h.ask(request))
      yield* waitFor(() => h.seen.length === 2, "the link")
      const url = urlOf(h.seen[1]!)
      expect(yield* status(url)).toBe(200)
      // The page's wait is one of the session's pending entries (with the link, if its accept is still on its way).
      expect(yield* h.provider.cancelSession("s1", { grace: 0 })).toBeGreaterThanOrEqual(1)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.code).toBe("ASK_CANCELLED")
      expect(yield* status(url)).toBe(410)
      yield* Effect.sleep("50 millis")
      expect(h.updates.map((n) => n.update.sessionUpdate)).toEqual(["tool_call"])
    }))

  it.live("interrupting the ask while the link is open cancels it on the wire ($/cancel_request) and kills the page", () =>
    Effect.gen(function*() {
      const h = yield* withProvider(human(({ signal }) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(acp.RequestError.requestCancelled())))
      ))
      const fiber = yield* Effect.forkChild(h.ask(request))
      yield* waitFor(() => h.seen.length === 2, "the link")
      const url = urlOf(h.seen[1]!)
      yield* Fiber.interrupt(fiber)
      yield* waitFor(() => h.seen[1]!.signal.aborted, "the cancel of the link")
      expect(h.agentWrote().some((m) => m.method === "$/cancel_request")).toBe(true)
      expect(yield* status(url)).toBe(410)
    }))
})

describe("the wait for a secret page as a pending entry of its ACP session", () => {
  const cancelled = new AskCancelled({ message: "The ACP client cancelled session s1." })

  it.live("is in the session's set while it waits, and leaves it when the value comes", () =>
    Effect.gen(function*() {
      const forms = new Set<PendingForm>()
      const added: Array<PendingForm> = []
      const value = yield* Deferred.make<string, ProviderClosed>()
      const fiber = yield* Effect.forkChild(awaitInSession(Deferred.await(value), forms, (form) => added.push(form)))
      yield* waitFor(() => forms.size === 1, "the entry")
      expect(added).toEqual(Array.from(forms))
      yield* Deferred.succeed(value, "taken")
      expect(yield* Fiber.join(fiber)).toBe("taken")
      expect(forms.size).toBe(0)
      yield* Effect.promise(() => added[0]!.settled)
    }))

  it.live("session/cancel ends it: marked, then cancelled, it fails as the session's cancel", () =>
    Effect.gen(function*() {
      const forms = new Set<PendingForm>()
      const fiber = yield* Effect.forkChild(awaitInSession(Effect.never, forms, () => undefined))
      yield* waitFor(() => forms.size === 1, "the entry")
      const [form] = Array.from(forms)
      form!.cancelledByClient = cancelled
      form!.cancel(new ProviderClosed())
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toBeInstanceOf(SessionCancelled)
      expect((error as SessionCancelled).error).toBe(cancelled)
      expect(forms.size).toBe(0)
    }))

  it.live("a value that arrives after session/cancel marked it is not taken: the ask fails as the cancel", () =>
    Effect.gen(function*() {
      const forms = new Set<PendingForm>()
      const value = yield* Deferred.make<string, ProviderClosed>()
      const fiber = yield* Effect.forkChild(awaitInSession(Deferred.await(value), forms, () => undefined))
      yield* waitFor(() => forms.size === 1, "the entry")
      Array.from(forms)[0]!.cancelledByClient = cancelled
      yield* Deferred.succeed(value, "too late")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect((error as SessionCancelled).error).toBe(cancelled)
    }))

  it.live("the provider closing ends it with its error; the page's own ProviderClosed passes through", () =>
    Effect.gen(function*() {
      const forms = new Set<PendingForm>()
      const fiber = yield* Effect.forkChild(awaitInSession(Effect.never, forms, () => undefined))
      yield* waitFor(() => forms.size === 1, "the entry")
      Array.from(forms)[0]!.cancel(new ProviderClosed({ message: "closing" }))
      expect((yield* Effect.flip(Fiber.join(fiber))).message).toBe("closing")
      const closedPage = yield* Effect.flip(awaitInSession(Effect.fail(new ProviderClosed({ message: "page gone" })), forms, () => undefined))
      expect(closedPage.message).toBe("page gone")
      expect(forms.size).toBe(0)
    }))
})

describe("ask-user acp with a secret question (over stdio)", () => {
  it.live("the link goes to the client, the page takes the secret, the answer chunk says received; the value is on no line of stdout or stderr", () =>
    Effect.gen(function*() {
      const program = yield* spawnAgent()
      const client = yield* driveAgent(program.stream, human(typeSecret), { form: true, url: true })
      const sessionId = yield* client.newSession()
      const turn = yield* client.prompt(sessionId, JSON.stringify(request))
      expect(turn.stopReason).toBe("end_turn")
      expect(JSON.parse(turn.reply)).toEqual({
        answers: [{ id: "user", selected: [], custom: "ana" }, { id: "token", secret: "received" }, { id: "go", selected: ["yes"] }]
      })
      expect(client.seen.map((seen) => seen.params.mode)).toEqual(["form", "url"])
      yield* waitFor(() => client.completed.length === 1, "elicitation/complete")
      expect(program.stdoutLines().join("\n")).not.toContain(value)
      expect(program.stderr.join("")).not.toContain(value)
      expect(yield* status(urlOf(client.seen[1]!))).toBe(410)
    }))

  it.live("session/cancel while the page waits: the turn ends cancelled, and the page is dead", () =>
    Effect.gen(function*() {
      const program = yield* spawnAgent()
      const client = yield* driveAgent(program.stream, human(() => ({ action: "accept" })), { form: true, url: true })
      const sessionId = yield* client.newSession()
      const turn = yield* Effect.forkChild(client.prompt(sessionId, JSON.stringify(request)))
      yield* waitFor(() => client.seen.length === 2, "the link")
      const url = urlOf(client.seen[1]!)
      yield* client.cancel(sessionId)
      expect((yield* Fiber.join(turn)).stopReason).toBe("cancelled")
      expect(yield* status(url)).toBe(410)
      expect(client.updates.some((n) => n.update.sessionUpdate === "tool_call_update")).toBe(false)
    }))

  it.live("--no-secret-page: PROVIDER_FAILED and no elicitation, even for a client with URL mode", () =>
    Effect.gen(function*() {
      const program = yield* spawnAgent(["--no-secret-page"])
      const client = yield* driveAgent(program.stream, human(typeSecret), { form: true, url: true })
      const sessionId = yield* client.newSession()
      const turn = yield* client.prompt(sessionId, JSON.stringify(request))
      expect(JSON.parse(turn.reply)).toMatchObject({ code: "PROVIDER_FAILED", message: expect.stringContaining("needs a secret page") })
      expect(client.seen).toEqual([])
    }))
})
