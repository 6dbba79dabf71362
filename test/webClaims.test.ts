/**
 * The web page's claims over real HTTP (`WebProvider.layer({ claims })`),
 * against a claims keeper of the test's own (the hook is store-agnostic):
 * claiming, renewing, 409 naming the holder, releasing, answers and cancels
 * refused while someone else holds the ask, the `claimed` / `released`
 * events (live, polled from the keeper, and replayed on a new stream), and
 * 404 / 403 where the ask is gone or not theirs. And what `ask-user inbox
 * --web` keeps: the store's claims for `web:token`, 2 minutes long, and none
 * beside `--terminal`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { type Answerer, type AskUserQuestionRequest, UserInteraction } from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"
import { start as startProgram } from "./cliHarness.js"
import { type Keeper, makeKeeper } from "./support/claimsKeeper.js"
import { ask as askDurably, makeStore, untilStatus } from "./support/durableCli.js"
import { openEvents, postJson, send, waitFor } from "./support/webClient.js"

const token = "test-token"
const ana: Answerer = { id: "device:a", name: "Ana's phone" }
const bob: Answerer = { id: "device:b", name: "Bob's laptop" }
const devices: Record<string, Answerer> = { a: ana, b: bob }
const asAna = { "x-device": "a" }
const asBob = { "x-device": "b" }

const request = (id: string, answerableBy?: ReadonlyArray<string>): AskUserQuestionRequest => ({
  id,
  questions: [{ id: "go", question: `Ship ${id}?`, options: [{ label: "Yes" }, { label: "No" }] }],
  ...(answerableBy === undefined ? {} : { answerableBy })
})
const yes = { answers: [{ id: "go", selected: ["Yes"] }] }

/** The seam with a web provider that keeps `keeper`'s claims and names devices by the `x-device` header. */
const start = (keeper: Keeper, scope?: Scope.Scope) =>
  Effect.gen(function*() {
    const layer = UserInteraction.layerWith(WebProvider.layer({
      token,
      claims: keeper.claims,
      answerer: (request) => {
        const device = request.headers["x-device"]
        return Effect.succeed(device === undefined ? undefined : devices[device])
      }
    }))
    const context = yield* (scope === undefined ? Layer.build(layer) : Layer.buildWithScope(layer, scope))
    const web = Context.get(context, WebProvider)
    const ask = (r: AskUserQuestionRequest) => UserInteraction.askWithReceipt(r).pipe(Effect.provideContext(context))
    return { web, ask }
  })

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** Waits until `n` asks are listed to `headers`' device; returns the listing. */
const listing = (port: number, headers: Record<string, string>, n: number) =>
  promise(async () => {
    let body: any
    await waitFor(async () => {
      body = (await send(port, "/api/questions", { headers: { authorization: `Bearer ${token}`, ...headers } })).json
      return body.pending.length === n
    }, 10_000, `${n} pending asks`)
    return body
  })

const post = (port: number, id: string, what: string, headers: Record<string, string>, body: unknown = {}) =>
  promise(() => postJson(port, `/api/questions/${id}/${what}`, token, body, headers))

describe("web claims", () => {
  it.live("a device claims and renews; another gets 409 naming it, and its answers and cancels wait until the first releases", () =>
    Effect.gen(function*() {
      const keeper = makeKeeper()
      const { ask, web } = yield* start(keeper)
      const bobEvents = yield* promise(() => openEvents(web.port, token, asBob))
      const asker = yield* Effect.forkChild(ask(request("deploy-42")))
      const listed = yield* listing(web.port, asAna, 1)
      const id: string = listed.pending[0].id
      // The page learns how long a claim holds and who it is.
      expect(listed.claims).toEqual({ ttlMillis: 90_000, you: ana })

      const claimed = yield* post(web.port, id, "claim", asAna)
      expect(claimed.status).toBe(200)
      expect(claimed.json).toMatchObject({ ok: true, claim: { by: ana } })
      expect(new Date(claimed.json.claim.until).getTime()).toBeGreaterThan(Date.now())
      // The keeper knows the ask by its own id, not by the page's.
      expect(keeper.calls).toEqual(["claim deploy-42 device:a"])
      expect((yield* promise(() => bobEvents.next((e) => e.event === "claimed"))).data).toEqual({
        id,
        by: ana,
        until: claimed.json.claim.until
      })
      const bobsList = yield* listing(web.port, asBob, 1)
      expect(bobsList.pending[0].claim).toEqual({ by: ana, until: claimed.json.claim.until })
      expect(bobsList.claims).toEqual({ ttlMillis: 90_000, you: bob })

      // Renewing is claiming again.
      const renewed = yield* post(web.port, id, "claim", asAna)
      expect([renewed.status, renewed.json.claim.by]).toEqual([200, ana])

      const refused = yield* post(web.port, id, "claim", asBob)
      expect(refused.status).toBe(409)
      expect(refused.json).toMatchObject({ error: "claimed", claim: { by: ana } })
      expect(refused.json.message).toContain("Ana's phone")
      for (const [what, body] of [["answer", yes], ["cancel", {}]] as const) {
        const reply = yield* post(web.port, id, what, asBob, body)
        expect([reply.status, reply.json.error, reply.json.claim?.by]).toEqual([409, "claimed", ana])
      }
      expect((yield* web.pending).map((p) => p.id)).toEqual([id])

      const released = yield* post(web.port, id, "release", asAna)
      expect([released.status, released.json]).toEqual([200, { ok: true }])
      yield* promise(() => bobEvents.next((e) => e.event === "released"))
      // One `claimed` before the release: a renewal is no news.
      const seen = bobEvents.events.filter((e) => e.data.id === id).map((e) => e.event)
      expect(seen).toEqual(["asked", "claimed", "released"])
      expect((yield* listing(web.port, asBob, 1)).pending[0].claim).toBeUndefined()

      // Bob answers now; the answer takes his claim first, and the receipt names him.
      expect((yield* post(web.port, id, "answer", asBob, yes)).status).toBe(200)
      expect((yield* Fiber.join(asker)).receipt).toMatchObject({ surface: "web", by: bob })
      expect(keeper.calls.slice(-1)).toEqual(["claim deploy-42 device:b"])
      bobEvents.close()
    }))

  it.live("a settled or unknown ask is 404 not-pending; someone else's release is 409; nobody known may not claim (403)", () =>
    Effect.gen(function*() {
      const keeper = makeKeeper()
      const { ask, web } = yield* start(keeper)
      const asker = yield* Effect.forkChild(ask(request("a-1")))
      const id: string = (yield* listing(web.port, asAna, 1)).pending[0].id
      for (const what of ["claim", "release"]) {
        const unknown = yield* post(web.port, "no-such-ask", what, asAna)
        expect([unknown.status, unknown.json]).toEqual([404, { error: "not-pending" }])
      }
      const nobody = yield* post(web.port, id, "claim", {})
      expect([nobody.status, nobody.json.error]).toEqual([403, "not-authorized"])
      expect(nobody.json.message).toContain("nobody can say who")
      const nobodyReleases = yield* post(web.port, id, "release", {})
      expect(nobodyReleases.status).toBe(403)

      expect((yield* post(web.port, id, "claim", asAna)).status).toBe(200)
      const bobReleases = yield* post(web.port, id, "release", asBob)
      expect([bobReleases.status, bobReleases.json.error, bobReleases.json.claim.by]).toEqual([409, "claimed", ana])
      // Nobody known cannot take a claim, and is refused while someone holds one.
      const nobodyAnswers = yield* post(web.port, id, "answer", {}, yes)
      expect([nobodyAnswers.status, nobodyAnswers.json.error]).toEqual([409, "claimed"])
      expect(nobodyAnswers.json.message).toBe("Ana's phone is answering this ask.")

      // Settled in the keeper's store by someone else: the page's claim is 404, as for an answer.
      keeper.settle("a-1")
      const late = yield* post(web.port, id, "claim", asAna)
      expect([late.status, late.json]).toEqual([404, { error: "not-pending" }])
      const lateAnswer = yield* post(web.port, id, "answer", asAna, yes)
      expect(lateAnswer.status).toBe(404)
      yield* Fiber.interrupt(asker)
      // Settled here: gone from the table.
      const after = yield* post(web.port, id, "claim", asAna)
      expect([after.status, after.json]).toEqual([404, { error: "not-pending" }])
    }))

  it.live("claims taken and ended elsewhere reach every stream, a new stream replays them, and an ask not shown to a device says nothing of its claims", () =>
    Effect.gen(function*() {
      const keeper = makeKeeper()
      const { ask, web } = yield* start(keeper)
      const anaEvents = yield* promise(() => openEvents(web.port, token, asAna))
      const bobEvents = yield* promise(() => openEvents(web.port, token, asBob))
      const open = yield* Effect.forkChild(ask(request("open")))
      const anasOnly = yield* Effect.forkChild(ask(request("anas", ["device:a"])))
      yield* listing(web.port, asAna, 2)
      const [openView, anasView] = (yield* listing(web.port, asAna, 2)).pending

      // Another answerer claims in the store: the poll brings it to the pages.
      keeper.take("open", { id: "os:carol@build-01" })
      keeper.take("anas", { id: "os:carol@build-01" })
      const carol = { id: "os:carol@build-01" }
      expect((yield* promise(() => anaEvents.next((e) => e.event === "claimed" && e.data.id === openView.id))).data.by)
        .toEqual(carol)
      yield* promise(() => anaEvents.next((e) => e.event === "claimed" && e.data.id === anasView.id))
      yield* promise(() => bobEvents.next((e) => e.event === "claimed" && e.data.id === openView.id))
      // A stream opened now replays each claim after its ask.
      const late = yield* promise(() => openEvents(web.port, token, asAna))
      yield* promise(() => late.next((e) => e.event === "claimed" && e.data.id === anasView.id))
      expect(late.events.map((e) => [e.event, e.data.id])).toEqual([
        ["asked", openView.id],
        ["claimed", openView.id],
        ["asked", anasView.id],
        ["claimed", anasView.id]
      ])
      // Bob may not answer Ana's ask: refused before any claim is asked of the keeper.
      const bobs = yield* post(web.port, anasView.id, "claim", asBob)
      expect([bobs.status, bobs.json.error]).toEqual([403, "not-authorized"])
      expect(keeper.calls).toEqual([])

      // The claim lapses (or is released elsewhere).
      keeper.drop("open")
      yield* promise(() => anaEvents.next((e) => e.event === "released" && e.data.id === openView.id))
      yield* promise(() => bobEvents.next((e) => e.event === "released" && e.data.id === openView.id))
      keeper.drop("anas")
      yield* promise(() => anaEvents.next((e) => e.event === "released" && e.data.id === anasView.id))
      // Bob's stream heard the open ask's claim come and go, and nothing of Ana's ask.
      yield* promise(() => bobEvents.next((e) => e.event === "claimed" && e.data.id === openView.id))
      expect(bobEvents.events.some((e) => e.data.id === anasView.id)).toBe(false)
      expect((yield* post(web.port, openView.id, "answer", asBob, yes)).status).toBe(200)
      expect((yield* Fiber.join(open)).receipt.by).toEqual(bob)
      yield* Fiber.interrupt(anasOnly)
      for (const events of [anaEvents, bobEvents, late]) events.close()
    }))

  it.live("without a claims hook the page keeps none: claim is 404 no-claims and the listing says nothing of claims", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ token })))
      const web = Context.get(context, WebProvider)
      const asker = yield* Effect.forkChild(UserInteraction.ask(request("x")).pipe(Effect.provideContext(context)))
      const listed = yield* listing(web.port, {}, 1)
      expect(Object.keys(listed)).toEqual(["pending"])
      for (const what of ["claim", "release"]) {
        const reply = yield* post(web.port, listed.pending[0].id, what, {})
        expect([reply.status, reply.json.error]).toEqual([404, "no-claims"])
      }
      expect((yield* post(web.port, listed.pending[0].id, "answer", {}, yes)).status).toBe(200)
      yield* Fiber.join(asker)
    }))

  it.live("the keeper is read only while asks are pending, and never once the provider has closed", () =>
    Effect.gen(function*() {
      const keeper = makeKeeper()
      const scope = yield* Scope.make()
      const { ask, web } = yield* start(keeper, scope)
      yield* Effect.sleep("300 millis")
      expect(keeper.reads()).toBe(0)
      const asker = yield* Effect.forkChild(ask(request("p-1")))
      yield* listing(web.port, asAna, 1)
      yield* promise(() => waitFor(() => keeper.reads() >= 2, 10_000, "two reads of the claims"))
      yield* Scope.close(scope, Exit.void)
      expect(Exit.isFailure(yield* Fiber.await(asker))).toBe(true)
      const reads = keeper.reads()
      yield* Effect.sleep("300 millis")
      expect(keeper.reads()).toBe(reads)
    }))

  it.live("a claims ttl that is no positive duration is the program's mistake, at start", () =>
    Effect.gen(function*() {
      const keeper = makeKeeper()
      const exit = yield* Effect.exit(Layer.build(WebProvider.layer({ claims: { ...keeper.claims, ttl: "0 millis" } })))
      const defect = Exit.findDefect(exit)
      expect(defect._tag === "Success" && String(defect.success)).toContain("claims.ttl must be")
    }))
})

describe("ask-user inbox --web", () => {
  /** Starts `ask-user inbox --web ...more` on a fresh store with one pending ask; its page's address and token. */
  const inboxWithAsk = async (id: string, ...more: Array<string>) => {
    const store = makeStore()
    const inbox = startProgram(["inbox", "--web", "--store", store.url, "--token", "tok", ...more])
    await inbox.stderrContains("Answer at")
    const port = Number(/Answer at http:\/\/127\.0\.0\.1:(\d+)/.exec(inbox.stderr())![1])
    const asker = askDurably(store, id)
    await untilStatus(store, id, (status) => status === "pending", asker)
    let listed: any
    await waitFor(async () => {
      listed = (await send(port, "/api/questions", { headers: { authorization: "Bearer tok" } })).json
      return listed.pending.length === 1
    }, 30_000, "the ask on the page")
    return { inbox, asker, port, listed }
  }

  it("claims in the store for web:token, for 2 minutes", async () => {
    const { asker, inbox, listed, port } = await inboxWithAsk("claim-1")
    expect(listed.claims).toEqual({ ttlMillis: 120_000, you: { id: "web:token" } })
    const claimed = await postJson(port, `/api/questions/${listed.pending[0].id}/claim`, "tok", {})
    expect([claimed.status, claimed.json.claim.by]).toEqual([200, { id: "web:token" }])
    const left = new Date(claimed.json.claim.until).getTime() - Date.now()
    expect(left).toBeGreaterThan(60_000)
    expect(left).toBeLessThanOrEqual(120_500)
    inbox.child.kill("SIGKILL")
    asker.child.kill("SIGKILL")
  }, 120_000)

  it("beside --terminal the page keeps no claims: both are the one person's", async () => {
    const { asker, inbox, listed, port } = await inboxWithAsk("claim-2", "--terminal")
    expect(listed.claims).toBeUndefined()
    const claimed = await postJson(port, `/api/questions/${listed.pending[0].id}/claim`, "tok", {})
    expect([claimed.status, claimed.json.error]).toEqual([404, "no-claims"])
    inbox.child.kill("SIGKILL")
    asker.child.kill("SIGKILL")
  }, 120_000)
})
