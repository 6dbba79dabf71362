/**
 * FanoutProvider: one ask on several surfaces at once, the first answer wins
 * and the other surfaces are taken down.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { AskDeclined, type AskUserQuestionAnswer, type AskUserQuestionRequest, FanoutProvider, ProviderFailed, ScriptedProvider, UserInteraction, type UserInteractionError, type UserInteractionProvider } from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"
import { makeProbe, probeProvider } from "./support/providers.js"
import { single, singleAnswer } from "./support/requests.js"
import { openEvents, postJson, send, waitFor } from "./support/webClient.js"

const token = "fanout-token"
const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** A seam with `providerLayer` registered, in the test's scope. */
const seam = <ROut, E>(providerLayer: Layer.Layer<ROut | UserInteractionProvider, E>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(UserInteraction.layerWith(providerLayer))
    const ask = (request: AskUserQuestionRequest) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
    return { context, ask }
  })

/** The id of the one ask pending on the web surface. */
const webPendingId = (port: number) =>
  promise(async () => {
    let id = ""
    await waitFor(async () => {
      const reply = await send(port, "/api/questions", { headers: { authorization: `Bearer ${token}` } })
      id = reply.json.pending[0]?.id ?? ""
      return id !== ""
    }, 10_000, "a pending web ask")
    return id
  })

/** A surface that fails every ask with `error`. */
const failing = (error: UserInteractionError) => ScriptedProvider.layer(() => Effect.fail(error))

describe("FanoutProvider", () => {
  it.live("an answer on the web wins while the terminal-like prompt is up, and that prompt comes down", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const { ask, context } = yield* seam(FanoutProvider.layer(probeProvider(probe, "terminal"), WebProvider.layer({ token })))
      const web = Context.get(context, WebProvider)
      const fiber = yield* Effect.forkChild(ask(single))
      yield* Deferred.await(probe.asked)
      const id = yield* webPendingId(web.port)
      expect(probe.finalized).toEqual([])

      const reply = yield* promise(() => postJson(web.port, `/api/questions/${id}/answer`, token, singleAnswer))
      expect(reply.status).toBe(200)
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      // Taken down before the ask returned; the provider itself is still open.
      expect(probe.finalized).toEqual(["terminal: prompt taken down"])
    }))

  it.live("an answer on the other surface wins and the web entry resolves `aborted`, naming that surface", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const terminal = ScriptedProvider.layer(() => Deferred.await(gate).pipe(Effect.as(singleAnswer)))
      const { ask, context } = yield* seam(FanoutProvider.layer(terminal, WebProvider.layer({ token })))
      const web = Context.get(context, WebProvider)
      const events = yield* promise(() => openEvents(web.port, token))
      const fiber = yield* Effect.forkChild(ask(single))
      const id = yield* webPendingId(web.port)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      expect((yield* promise(() => events.next((e) => e.event === "resolved"))).data).toEqual({
        id,
        outcome: "aborted",
        surface: "scripted",
        where: "a script",
        settled: "answered"
      })
      const late = yield* promise(() => postJson(web.port, `/api/questions/${id}/answer`, token, singleAnswer))
      expect([late.status, late.json]).toEqual([404, { error: "not-pending" }])
      events.close()
    }))

  it.live("a cancel on the web ends the ask at once, and the other prompt comes down", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const { ask, context } = yield* seam(FanoutProvider.layer(probeProvider(probe, "terminal"), WebProvider.layer({ token })))
      const web = Context.get(context, WebProvider)
      const fiber = yield* Effect.forkChild(ask(single))
      const id = yield* webPendingId(web.port)
      yield* promise(() => postJson(web.port, `/api/questions/${id}/cancel`, token, {}))
      const exit = yield* Fiber.await(fiber)
      expect(Exit.findErrorOption(exit)).toMatchObject({ value: { code: "ASK_CANCELLED" } })
      expect(probe.finalized).toEqual(["terminal: prompt taken down"])
    }))

  it.effect("a decline on one surface ends the ask without waiting for the others", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const { ask } = yield* seam(FanoutProvider.layer(probeProvider(probe, "slow"), failing(new AskDeclined())))
      const error = yield* Effect.flip(ask(single))
      expect(error.code).toBe("ASK_DECLINED")
      expect(probe.finalized).toEqual(["slow: prompt taken down"])
    }))

  it.effect("a surface that fails or answers against the rules drops out; the others go on", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const late = ScriptedProvider.layer(() => Deferred.await(gate).pipe(Effect.as(singleAnswer)))
      const broken = failing(new ProviderFailed({ message: "no tty" }))
      const invalid = ScriptedProvider.layer(() => Effect.succeed({ answers: [{ id: "go", selected: ["maybe"] }] }))
      const { ask } = yield* seam(FanoutProvider.layer(broken, invalid, late))
      const fiber = yield* Effect.forkChild(ask(single))
      yield* Effect.yieldNow
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
    }))

  it.effect("fails with the first surface's error when every surface fails", () =>
    Effect.gen(function*() {
      const { ask } = yield* seam(
        FanoutProvider.layer(failing(new ProviderFailed({ message: "first" })), failing(new ProviderFailed({ message: "second" })))
      )
      const error = yield* Effect.flip(ask(single))
      expect([error.code, error.message]).toEqual(["PROVIDER_FAILED", "first"])
    }))

  it.effect("interrupting the ask takes every surface down; closing closes every provider in reverse", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      yield* Effect.scoped(Effect.gen(function*() {
        const { ask } = yield* seam(FanoutProvider.layer(probeProvider(probe, "a"), probeProvider(probe, "b")))
        const fiber = yield* Effect.forkChild(ask(single))
        yield* Effect.yieldNow
        expect(probe.started).toHaveLength(2)
        yield* Fiber.interrupt(fiber)
        expect(probe.finalized.slice().sort()).toEqual(["a: prompt taken down", "b: prompt taken down"])
      }))
      expect(probe.finalized.slice(2)).toEqual(["b: provider closed", "a: provider closed"])
    }))

  it.effect("passes through the services its layers output", () =>
    Effect.gen(function*() {
      const answered: AskUserQuestionAnswer = singleAnswer
      const { ask, context } = yield* seam(FanoutProvider.layer(ScriptedProvider.layer(() => Effect.succeed(answered))))
      expect(yield* ask(single)).toEqual(singleAnswer)
      expect(yield* ScriptedProvider.requests.pipe(Effect.provideContext(context))).toHaveLength(1)
    }))

  it.effect("refuses, as a defect naming the mistake, no layers or a layer that provides no provider", () =>
    Effect.gen(function*() {
      class Unrelated extends Context.Service<Unrelated, { readonly n: number }>()("test/Unrelated") {}
      const unrelated = Layer.succeed(Unrelated, { n: 1 })
      // @ts-expect-error a layer without a UserInteractionProvider is not a member
      const typed = () => FanoutProvider.layer(ScriptedProvider.layer(() => Effect.succeed(singleAnswer)), unrelated)
      expect(typed).toBeTypeOf("function")

      // What an untyped caller (plain JavaScript, an empty spread) can still pass.
      const untyped = FanoutProvider.layer as (...layers: ReadonlyArray<Layer.Layer<any>>) => Layer.Layer<UserInteractionProvider>
      const none = yield* Effect.exit(Layer.build(untyped()))
      expect(Exit.isFailure(none) && String(Cause.squash(none.cause))).toContain("needs at least one provider layer")
      const notAProvider = yield* Effect.exit(Layer.build(untyped(ScriptedProvider.layer(() => Effect.never), unrelated)))
      expect(Exit.isFailure(notAProvider) && String(Cause.squash(notAProvider.cause))).toContain("layer 2 provides no UserInteractionProvider")
    }))
})
