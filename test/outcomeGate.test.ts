/**
 * Decision 160, deterministically and in one process: a surface whose human
 * answered just after the ask was settled elsewhere (the answer already in
 * hand, as a mail reply the provider has read) learns it lost and who won,
 * through the ask's `OutcomeGate`, and nothing of its answer is recorded. The
 * surfaces here hold their human's answer uninterruptibly until the test
 * releases it, so the durable inbox cannot take them down first: the order is
 * the test's, not the machine's.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Cause, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import {
  type Answerer,
  AskCancelled,
  type AskUserQuestionRequest,
  FanoutProvider,
  interruptionReason,
  markAnswerer,
  type ProviderAnswer,
  settledElsewhere,
  settleFirst,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { DurableInbox } from "effect-user-interaction/durable"
import { storeWith, untilPending } from "./support/durableInProcess.js"

const db: AskUserQuestionRequest = {
  questions: [{ id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }, { label: "None" }] }]
}

const ana: Answerer = { id: "slack:U0ANA", name: "Ana" }
const mailHuman: Answerer = { id: "email:human@example.test" }
const carl: Answerer = { id: "os:carl@build-01", name: "Carl" }

const chose = (label: string) => ({ answers: [{ id: "db", selected: [label] }] })

/** A surface whose human answers (or cancels) once `go` completes, whatever happens meanwhile. */
interface LateSurface {
  readonly layer: Layer.Layer<UserInteractionProvider>
  /** Completes when the surface has been asked. */
  readonly asked: Deferred.Deferred<void>
  /** How the surface's ask ended, as the provider's own exit handler sees it. */
  readonly ended: Deferred.Deferred<Exit.Exit<ProviderAnswer, unknown>>
}

const lateSurface = (
  name: string,
  by: Answerer,
  go: Deferred.Deferred<void>,
  outcome: "cancel" | string
): Effect.Effect<LateSurface> =>
  Effect.gen(function*() {
    const asked = yield* Deferred.make<void>()
    const ended = yield* Deferred.make<Exit.Exit<ProviderAnswer, unknown>>()
    const layer = Layer.succeed(
      UserInteractionProvider,
      UserInteractionProvider.of({
        name,
        ask: () =>
          Effect.uninterruptible(
            Deferred.succeed(asked, undefined).pipe(
              Effect.andThen(Deferred.await(go)),
              Effect.andThen(
                outcome === "cancel"
                  ? Effect.fail(markAnswerer(new AskCancelled({ message: "Cancelled by mail." }), by))
                  : Effect.succeed<ProviderAnswer>({ ...chose(outcome), by })
              ),
              settleFirst(name),
              Effect.onExit((exit) => Deferred.succeed(ended, exit))
            )
          )
      })
    )
    return { layer, asked, ended }
  })

/** Asks `id` durably, and waits until it is pending. */
const pendingAsk = (id: string) =>
  Effect.gen(function*() {
    const asker = yield* Effect.forkChild(UserInteraction.askWithReceipt({ ...db, id }))
    yield* untilPending(id)
    return asker
  })

describe("OutcomeGate under DurableInbox.serve", { timeout: 60_000 }, () => {
  it("an answer in hand just after another process answered: not recorded, and its surface told who answered, where", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const go = yield* Deferred.make<void>()
      const mail = yield* lateSurface("email", mailHuman, go, "Postgres")
      const asker = yield* pendingAsk("late")
      yield* inbox.serve(mail.layer)
      yield* Deferred.await(mail.asked)
      yield* inbox.answer("late", chose("None"), { by: ana, surface: "slack" })
      yield* Deferred.succeed(go, undefined)
      const exit = yield* Deferred.await(mail.ended)
      expect(Exit.isFailure(exit) ? settledElsewhere(exit.cause) : exit.value).toEqual({ surface: "slack", outcome: "answered", by: ana })
      const { answer, receipt } = yield* Fiber.join(asker)
      expect(answer).toEqual(chose("None"))
      expect(receipt.by).toEqual(ana)
      const status = yield* inbox.status("late")
      expect(status.answer).toEqual(chose("None"))
      expect(status.receipt?.surface).toBe("slack")
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))

  it("a cancel in hand just after someone answered: the answer stands, and the canceller is told", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const go = yield* Deferred.make<void>()
      const mail = yield* lateSurface("email", mailHuman, go, "cancel")
      const asker = yield* pendingAsk("late-cancel")
      yield* inbox.serve(mail.layer)
      yield* Deferred.await(mail.asked)
      yield* inbox.answer("late-cancel", chose("SQLite"), { by: carl })
      yield* Deferred.succeed(go, undefined)
      const exit = yield* Deferred.await(mail.ended)
      expect(Exit.isFailure(exit) && settledElsewhere(exit.cause)).toEqual({ surface: "durable", outcome: "answered", by: carl })
      expect((yield* Fiber.join(asker)).answer).toEqual(chose("SQLite"))
      expect((yield* inbox.status("late-cancel")).status).toBe("answered")
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))

  it("an answer while someone else holds a claim waits for them: they answer, and the surface is told they did", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const go = yield* Deferred.make<void>()
      const mail = yield* lateSurface("email", mailHuman, go, "Postgres")
      const asker = yield* pendingAsk("claimed")
      yield* inbox.claim("claimed", carl)
      yield* inbox.serve(mail.layer)
      yield* Deferred.await(mail.asked)
      yield* Deferred.succeed(go, undefined)
      // The held reply neither breaks the claim nor is lost: the claim holder's answer is the one recorded.
      yield* inbox.answer("claimed", chose("None"), { by: carl, surface: "cli" })
      const exit = yield* Deferred.await(mail.ended)
      expect(Exit.isFailure(exit) && settledElsewhere(exit.cause)).toEqual({ surface: "cli", outcome: "answered", by: carl })
      expect((yield* Fiber.join(asker)).receipt.by).toEqual(carl)
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))

  it("an answer while someone else holds a claim is recorded once they let go", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const go = yield* Deferred.make<void>()
      const mail = yield* lateSurface("email", mailHuman, go, "Postgres")
      const asker = yield* pendingAsk("released")
      yield* inbox.claim("released", carl)
      yield* inbox.serve(mail.layer)
      yield* Deferred.await(mail.asked)
      yield* Deferred.succeed(go, undefined)
      yield* inbox.release("released", carl)
      const exit = yield* Deferred.await(mail.ended)
      expect(Exit.isSuccess(exit)).toBe(true)
      const { answer, receipt } = yield* Fiber.join(asker)
      expect(answer).toEqual(chose("Postgres"))
      expect(receipt.by).toEqual(mailHuman)
      expect((yield* inbox.status("released")).receipt?.surface).toBe("email")
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))

  it("a fan-out of Slack and mail, both answered at once, round after round: one recorded, the other told who won", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      for (let round = 0; round < 5; round++) {
        yield* Effect.scoped(Effect.gen(function*() {
          const id = `both-${round}`
          const go = yield* Deferred.make<void>()
          const slack = yield* lateSurface("slack", ana, go, "Postgres")
          const mail = yield* lateSurface("email", mailHuman, go, "None")
          const asker = yield* pendingAsk(id)
          yield* inbox.serve(FanoutProvider.layer(slack.layer, mail.layer))
          yield* Deferred.await(slack.asked)
          yield* Deferred.await(mail.asked)
          yield* Deferred.succeed(go, undefined)
          const { receipt } = yield* Fiber.join(asker)
          const status = yield* inbox.status(id)
          const surface = status.receipt?.surface
          const [winner, loser] = surface === "slack" ? [slack, mail] : [mail, slack]
          const winnerBy = surface === "slack" ? ana : mailHuman
          expect(receipt.by).toEqual(winnerBy)
          expect(Exit.isSuccess(yield* Deferred.await(winner.ended))).toBe(true)
          const lost = yield* Deferred.await(loser.ended)
          expect(Exit.isFailure(lost) && settledElsewhere(lost.cause)).toEqual({
            surface,
            outcome: "answered",
            by: winnerBy
          })
          expect(status.answer).toEqual(chose(surface === "slack" ? "Postgres" : "None"))
        }))
      }
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))
})

describe("OutcomeGate in a fan-out", { timeout: 60_000 }, () => {
  it("a fan-out taken down (the seam's timeout) tells every member why, as a lone provider would be told", () =>
    Effect.gen(function*() {
      const ended = yield* Effect.all([Deferred.make<Cause.Cause<unknown>>(), Deferred.make<Cause.Cause<unknown>>()])
      const waiting = (name: string, end: Deferred.Deferred<Cause.Cause<unknown>>) =>
        Layer.succeed(
          UserInteractionProvider,
          UserInteractionProvider.of({
            name,
            ask: () => Effect.never.pipe(Effect.onExit((exit) => Exit.isFailure(exit) ? Deferred.succeed(end, exit.cause) : Effect.void))
          })
        )
      const result = yield* Effect.result(UserInteraction.ask({ ...db, timeout: "1 second" }).pipe(
        Effect.provide(UserInteraction.layerWith(FanoutProvider.layer(waiting("slack", ended[0]), waiting("email", ended[1]))))
      ))
      expect(result._tag === "Failure" && result.failure._tag).toBe("AskTimeout")
      for (const end of ended) expect(interruptionReason(yield* Deferred.await(end))).toBe("timeout")
    }).pipe(Effect.runPromise))

  it("two surfaces answered at once, round after round: the first through wins, the other is told who won", () =>
    Effect.gen(function*() {
      for (let round = 0; round < 5; round++) {
        const go = yield* Deferred.make<void>()
        const slack = yield* lateSurface("slack", ana, go, "Postgres")
        const mail = yield* lateSurface("email", mailHuman, go, "cancel")
        const asking = yield* Effect.forkChild(
          Effect.result(UserInteraction.askWithReceipt(db)).pipe(
            Effect.provide(UserInteraction.layerWith(FanoutProvider.layer(slack.layer, mail.layer)))
          )
        )
        yield* Deferred.await(slack.asked)
        yield* Deferred.await(mail.asked)
        yield* Deferred.succeed(go, undefined)
        const result = yield* Fiber.join(asking)
        const slackWon = result._tag === "Success"
        if (slackWon) expect(result.success.receipt.by).toEqual(ana)
        else expect(result.failure._tag).toBe("AskCancelled")
        const lost = yield* Deferred.await(slackWon ? mail.ended : slack.ended)
        expect(Exit.isFailure(lost) && settledElsewhere(lost.cause)).toEqual(
          slackWon
            ? { surface: "slack", outcome: "answered", by: ana }
            : { surface: "email", outcome: "ASK_CANCELLED", by: mailHuman }
        )
      }
    }).pipe(Effect.runPromise))
})
