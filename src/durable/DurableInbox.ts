/**
 * The answerers' side of durable asks: list what is pending, watch asks come
 * and go, answer, cancel or decline one (held to the answer rules; the first
 * recorded outcome wins), read an ask's status, and serve every pending ask
 * on any provider (terminal, web, ACP, MCP, a fan-out of them).
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { checkAnswer } from "../AskValidation.js"
import { UserInteraction } from "../UserInteraction.js"
import { AskNotPending, type InvalidAnswer, UnknownAsk } from "../UserInteractionError.js"
import { AskInterruption, SettledElsewhere, UserInteractionProvider } from "../UserInteractionProvider.js"
import { answerTooLarge } from "./answerLimit.js"
import type { Outcome } from "./AskWorkflow.js"
import { type AskRecord, type AskStatus, DurableStore, notPendingMessage } from "./DurableStore.js"

/**
 * A durable ask waiting for a human.
 *
 * @since 0.2.0
 */
export interface PendingAsk {
  readonly id: string
  /** The request as asked (it never carries a signal). */
  readonly request: AskUserQuestionRequest
  readonly askedAt: Date
  readonly expiresAt?: Date | undefined
}

/**
 * What `DurableInbox.changes` reports: an ask became pending, or a pending
 * ask was settled (`outcome` says how).
 *
 * @since 0.2.0
 */
export type InboxChange =
  | { readonly _tag: "Asked"; readonly ask: PendingAsk }
  | { readonly _tag: "Settled"; readonly id: string; readonly outcome: Exclude<AskStatus, "pending"> }

/**
 * `DurableInbox.status(id)`: where the ask stands, with the answer once answered.
 *
 * @since 0.2.0
 */
export interface AskStatusReport {
  readonly id: string
  readonly status: AskStatus
  readonly answer?: AskUserQuestionAnswer | undefined
}

/** How many answers too large to record in a row `serve` takes from a surface before it stops asking there. */
const maxTooLargeAnswers = 3

/** How often `changes` looks at the store (decision 073). */
const changesInterval = "250 millis"

const toPending = (record: AskRecord): PendingAsk =>
  record.expiresAt === undefined
    ? { id: record.id, request: record.request, askedAt: record.askedAt }
    : { id: record.id, request: record.request, askedAt: record.askedAt, expiresAt: record.expiresAt }

/**
 * How a served ask's surface learns it was settled outside it: by an answer,
 * cancel or decline from another process, as a fan-out tells its losers; an
 * expiry as the seam's timeout; a withdrawal as the agent giving up.
 */
const settledBy = (outcome: Exclude<AskStatus, "pending">): Context.Context<never> => {
  switch (outcome) {
    case "answered":
      return Context.make(SettledElsewhere, { surface: "durable", outcome: "answered" })
    case "cancelled":
      return Context.make(SettledElsewhere, { surface: "durable", outcome: "ASK_CANCELLED" })
    case "declined":
      return Context.make(SettledElsewhere, { surface: "durable", outcome: "ASK_DECLINED" })
    case "expired":
      return Context.make(AskInterruption, "timeout")
    case "aborted":
      return Context.make(AskInterruption, "aborted")
  }
}

/**
 * The inbox service; `DurableInbox.layer` needs a `DurableStore`.
 *
 * @since 0.2.0
 */
export class DurableInbox extends Context.Service<DurableInbox, {
  /** Every pending ask, oldest first; a stored row that cannot be read is skipped with a logged warning. */
  readonly pending: Effect.Effect<ReadonlyArray<PendingAsk>>
  /** Asks becoming pending and being settled, from the moment of subscription (pending ones first). */
  readonly changes: Stream.Stream<InboxChange>
  /**
   * Records an answer; a bad one, or one over 64 KiB of JSON, is
   * `InvalidAnswer` and the ask stays pending.
   */
  readonly answer: (
    id: string,
    answer: unknown
  ) => Effect.Effect<void, AskNotPending | UnknownAsk | InvalidAnswer>
  readonly cancel: (id: string) => Effect.Effect<void, AskNotPending | UnknownAsk>
  readonly decline: (id: string) => Effect.Effect<void, AskNotPending | UnknownAsk>
  readonly status: (id: string) => Effect.Effect<AskStatusReport, UnknownAsk>
  /**
   * Asks every pending ask, and each new one, on the provider `layer` and
   * records the outcome, until the scope closes. An ask settled elsewhere
   * is taken down here.
   */
  readonly serve: <E, R>(
    layer: Layer.Layer<UserInteractionProvider, E, R>
  ) => Effect.Effect<void, E, R | Scope.Scope>
}>()("effect-user-interaction/durable/DurableInbox") {
  /** @since 0.2.0 */
  static readonly layer: Layer.Layer<DurableInbox, never, DurableStore> = Layer.effect(
    DurableInbox,
    Effect.gen(function*() {
      const store = yield* DurableStore

      const find = (id: string) =>
        Effect.flatMap(store.find(id), (record) =>
          record === undefined
            ? Effect.fail(new UnknownAsk({ message: `No ask has the id "${id}".` }))
            : Effect.succeed(record))

      const settle = (id: string, outcome: Outcome) => store.settle(id, outcome)
      /** Settles without an answer: there is none to be too large. */
      const settleAs = (id: string, status: "cancelled" | "declined") =>
        store.settle(id, { status }).pipe(Effect.catchTag("InvalidAnswer", Effect.die))

      const answer = (id: string, answer: unknown) =>
        Effect.gen(function*() {
          const record = yield* find(id)
          if (record.status !== "pending") {
            return yield* Effect.fail(new AskNotPending({ message: notPendingMessage(record) }))
          }
          // Before the rules: a 50 MB answer is refused for its size, whatever it holds.
          const tooLarge = answerTooLarge(answer)
          if (tooLarge !== undefined) return yield* Effect.fail(tooLarge)
          const checked = checkAnswer(record.request, answer)
          if (Result.isFailure(checked)) return yield* Effect.fail(checked.failure)
          return yield* settle(id, { status: "answered", answer: checked.success })
        })

      const changes = Stream.suspend(() => {
        let known = new Set<string>()
        const step = Effect.gen(function*() {
          const pending = yield* store.pending
          const ids = new Set(pending.map((record) => record.id))
          const out: Array<InboxChange> = []
          for (const record of pending) {
            if (!known.has(record.id)) out.push({ _tag: "Asked", ask: toPending(record) })
          }
          for (const id of known) {
            if (ids.has(id)) continue
            const record = yield* store.find(id)
            const outcome = record === undefined || record.status === "pending" ? "aborted" : record.status
            out.push({ _tag: "Settled", id, outcome })
          }
          known = ids
          return out
        })
        return Stream.tick(changesInterval).pipe(Stream.mapEffect(() => step), Stream.flattenIterable)
      })

      const serve = <E, R>(layer: Layer.Layer<UserInteractionProvider, E, R>) =>
        Effect.gen(function*() {
          // The provider's fiber of each ask served, by ask id: an ask settled elsewhere is taken
          // down there with how it ended, so the surface can say so ("Answered in another
          // process.") rather than read it as the agent's withdrawal.
          const serving = new Map<string, Fiber.Fiber<unknown, unknown>>()
          const provider = Context.get(yield* Layer.build(layer), UserInteractionProvider)
          const tracked = UserInteractionProvider.of({
            ...provider,
            ask: (request) =>
              Effect.withFiber((fiber) => {
                const id = request.id!
                serving.set(id, fiber)
                return Effect.ensuring(provider.ask(request), Effect.sync(() => serving.delete(id)))
              })
          })
          const context = yield* Layer.build(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, tracked)))
          const ui = Context.get(context, UserInteraction)
          const asking = yield* FiberMap.make<string>()
          const askOne = (ask: PendingAsk, tries = 1): Effect.Effect<void> =>
            ui.ask({ ...ask.request, id: ask.id }).pipe(
              Effect.matchEffect({
                onSuccess: (answered) =>
                  settle(ask.id, { status: "answered", answer: answered }).pipe(
                    // Too large to record (a pasted file, say): the ask stays pending, so ask it
                    // again here, saying why, rather than leave it shown nowhere; a surface that
                    // answers so three times running is not a person, and is not asked again.
                    Effect.catchTag("InvalidAnswer", (error) => {
                      const again = tries < maxTooLargeAnswers
                      return Effect.logWarning(
                        `The answer to the ask "${ask.id}" was not recorded: ${error.message} ` +
                          (again ? "It is asked again." : "It stays pending.")
                      ).pipe(
                        Effect.annotateLogs({ module: "effect-user-interaction/durable" }),
                        Effect.andThen(again ? Effect.suspend(() => askOne(ask, tries + 1)) : Effect.void)
                      )
                    }),
                    Effect.ignore
                  ),
                onFailure: (error) =>
                  error._tag === "AskCancelled"
                    ? Effect.ignore(settleAs(ask.id, "cancelled"))
                    : error._tag === "AskDeclined"
                    ? Effect.ignore(settleAs(ask.id, "declined"))
                    // Any other end of the prompt leaves the ask pending for another answerer.
                    : Effect.void
              })
            )
          yield* changes.pipe(
            Stream.runForEach((change) =>
              change._tag === "Asked"
                ? FiberMap.run(asking, change.ask.id, askOne(change.ask), { onlyIfMissing: true })
                : Effect.suspend(() => {
                  serving.get(change.id)?.interruptUnsafe(undefined, settledBy(change.outcome))
                  return FiberMap.remove(asking, change.id)
                })
            ),
            Effect.forkScoped
          )
        })

      return DurableInbox.of({
        // A row that cannot be read is left out with a warning, so it never hides the other asks.
        pending: Effect.flatMap(store.scan, ({ asks, unreadable }) =>
          Effect.as(
            Effect.forEach(unreadable, ({ id, reason }) => Effect.logWarning(`Skipped the durable ask "${id}": ${reason}.`)),
            asks.map(toPending)
          )),
        changes,
        answer,
        cancel: (id) => settleAs(id, "cancelled"),
        decline: (id) => settleAs(id, "declined"),
        status: (id) =>
          Effect.map(find(id), (record) =>
            record.answer === undefined
              ? { id, status: record.status }
              : { id, status: record.status, answer: record.answer }),
        serve
      })
    })
  )
}
