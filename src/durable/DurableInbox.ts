/**
 * The answerers' side of durable asks: list what is pending, watch asks come
 * and go, answer, cancel or decline one (held to the answer rules; the first
 * recorded outcome wins), read an ask's status, and serve every pending ask
 * on any provider (terminal, web, ACP, MCP, a fan-out of them).
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Answerer } from "../Answerer.js"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { checkAnswer, checkAnswerer, decodeRequest } from "../AskValidation.js"
import { type Gate, OutcomeGate } from "../OutcomeGate.js"
import { UserInteraction } from "../UserInteraction.js"
import {
  type AskClaimed,
  AskNotPending,
  type EmptyQuestions,
  type InvalidAnswer,
  InvalidRequest,
  type NotAuthorized,
  type ProviderFailed,
  UnknownAsk,
  type UserInteractionError
} from "../UserInteractionError.js"
import {
  answererOf,
  AskInterruption,
  SettledElsewhere,
  surfaceOf,
  UserInteractionProvider
} from "../UserInteractionProvider.js"
import { answerTooLarge } from "./answerLimit.js"
import { durableRequestProblem, outcomeResult, refuseOtherQuestions, settledOutcome } from "./asking.js"
import type { Outcome } from "./AskWorkflow.js"
import { defaultClaimTtlMillis, isLive, maxClaimTtlMillis } from "./claims.js"
import { type AskRecord, type AskStatus, DurableStore, notPendingMessage } from "./DurableStore.js"
import type { PairedDevices } from "./devices.js"
import type { HistoryOptions } from "./history.js"
import { notifyChanges, type NotifyOptions } from "./notify.js"
import type { NotifyTarget } from "../notify/NotifyTarget.js"
import type { AskClaim, DurableReceipt, SettleOptions } from "./receipts.js"

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
  /**
   * Who is answering it, while their claim holds (by the database's clock):
   * a surface shows "Ana's phone is answering" and leaves it to them.
   *
   * @since 0.3.0
   */
  readonly claim?: AskClaim | undefined
}

/**
 * Options of `DurableInbox.submit`: `expiresIn`, as for `DurableProvider`
 * (positive, at most 3650 days, passing even while no process runs).
 *
 * @since 0.3.0
 */
export interface SubmitOptions {
  readonly expiresIn?: Duration.Input | undefined
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
  /** Once settled: who settled it, where and when. @since 0.3.0 */
  readonly receipt?: DurableReceipt | undefined
}

/**
 * A settled ask as `DurableInbox.history` lists it.
 *
 * @since 0.3.0
 */
export interface SettledAsk {
  readonly id: string
  /** The request as asked (it never carries a signal). */
  readonly request: AskUserQuestionRequest
  readonly outcome: Exclude<AskStatus, "pending">
  readonly receipt?: DurableReceipt | undefined
  readonly askedAt: Date
  readonly settledAt: Date
}

/**
 * Options of `DurableInbox.claim`: `ttl`, how long the claim holds unless
 * renewed (default 2 minutes, at most a day).
 *
 * @since 0.3.0
 */
export interface ClaimOptions {
  readonly ttl?: Duration.Input | undefined
}

/** How many answers too large to record in a row `serve` takes from a surface before it stops asking there. */
const maxTooLargeAnswers = 3

/** How often `changes` looks at the store (decision 073). */
const changesInterval = "250 millis"

/** A pending record as answerers see it; its claim only while it holds at `now` (the database's time). */
const toPending = (record: AskRecord, now?: Date): PendingAsk => ({
  id: record.id,
  request: record.request,
  askedAt: record.askedAt,
  ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
  ...(now !== undefined && isLive(record.claim, now) ? { claim: record.claim } : {})
})

/** A settled record as the history lists it. */
const toSettled = (record: AskRecord): SettledAsk => ({
  id: record.id,
  request: record.request,
  outcome: record.status as SettledAsk["outcome"],
  ...(record.receipt === undefined ? {} : { receipt: record.receipt }),
  askedAt: record.askedAt,
  settledAt: record.settledAt ?? record.askedAt
})

/** The claim's length in millis, or why `ttl` is none. */
const claimTtl = (ttl: Duration.Input | undefined): Effect.Effect<number, InvalidRequest> => {
  if (ttl === undefined) return Effect.succeed(defaultClaimTtlMillis)
  const millis = Option.match(Duration.fromInput(ttl), { onNone: () => NaN, onSome: Duration.toMillis })
  return millis > 0 && millis <= maxClaimTtlMillis
    ? Effect.succeed(Math.ceil(millis))
    : Effect.fail(new InvalidRequest({ message: "A claim's ttl must be a duration longer than zero and at most 1 day." }))
}

/**
 * How a served ask's surface learns it was settled outside it: by an answer,
 * cancel or decline from another process (by whom, as its receipt says), as
 * a fan-out tells its losers; an
 * expiry as the seam's timeout; a withdrawal as the agent giving up.
 */
const settledBy = (outcome: Exclude<AskStatus, "pending">, by: Answerer | undefined): Context.Context<never> => {
  switch (outcome) {
    case "answered":
      return Context.make(SettledElsewhere, { surface: "durable", outcome: "answered", by })
    case "cancelled":
      return Context.make(SettledElsewhere, { surface: "durable", outcome: "ASK_CANCELLED", by })
    case "declined":
      return Context.make(SettledElsewhere, { surface: "durable", outcome: "ASK_DECLINED", by })
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
   * Records an answer given `options.by` (on `options.surface`); a bad one
   * is `InvalidAnswer`, one from an answerer the ask's `answerableBy` does
   * not allow `NotAuthorized`, one while someone else holds a claim
   * `AskClaimed` (unless `options.force`, which breaks the claim and says so
   * in the receipt); one over 64 KiB of JSON is `InvalidAnswer`. Refused,
   * the ask stays pending.
   */
  readonly answer: (
    id: string,
    answer: unknown,
    options?: SettleOptions
  ) => Effect.Effect<void, AskNotPending | UnknownAsk | InvalidAnswer | NotAuthorized | AskClaimed>
  /** Cancels the ask (its asker gets `ASK_CANCELLED`), held to the same rules as `answer`. */
  readonly cancel: (id: string, options?: SettleOptions) => Effect.Effect<void, AskNotPending | UnknownAsk | NotAuthorized | AskClaimed>
  /** Declines the ask (its asker gets `ASK_DECLINED`), held to the same rules as `answer`. */
  readonly decline: (id: string, options?: SettleOptions) => Effect.Effect<void, AskNotPending | UnknownAsk | NotAuthorized | AskClaimed>
  /** Where the ask stands; once settled, its answer (if any) and its receipt. */
  readonly status: (id: string) => Effect.Effect<AskStatusReport, UnknownAsk>
  /**
   * Asks durably without waiting: checks the request as the seam and the
   * durable provider would, records it as pending (or joins the pending or
   * settled ask of the same `id`, asked with the same questions) and returns
   * its id at once. `await(id)` waits for its outcome, here or in any other
   * process. `expiresIn` is fixed when the ask is created.
   *
   * @since 0.3.0
   */
  readonly submit: (
    request: AskUserQuestionRequest,
    options?: SubmitOptions
  ) => Effect.Effect<string, InvalidRequest | EmptyQuestions | ProviderFailed>
  /**
   * Waits for the ask's outcome and gives it as `ask` would: the answer, or
   * `AskCancelled`, `AskDeclined`, `AskTimeout` (expired; or the recommended
   * options, `defaulted`, under `onTimeout: "recommended"`), `AskAborted`
   * (withdrawn). `UnknownAsk` for an id never asked. Interrupting it only
   * stops the wait.
   *
   * @since 0.3.0
   */
  readonly await: (id: string) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>
  /**
   * Claims a pending ask for `by`, or renews their claim: until `ttl` has
   * passed by the database's clock (default 2 minutes), only `by` may
   * answer, cancel or decline it. Of several answerers claiming at once, one
   * holds it and the others get `AskClaimed`.
   *
   * @since 0.3.0
   */
  readonly claim: (
    id: string,
    by: Answerer,
    options?: ClaimOptions
  ) => Effect.Effect<AskClaim, UnknownAsk | AskNotPending | NotAuthorized | AskClaimed | InvalidRequest>
  /**
   * Ends `by`'s claim on the ask (nothing to do when they hold none);
   * `AskClaimed` when someone else holds it.
   *
   * @since 0.3.0
   */
  readonly release: (id: string, by: Answerer) => Effect.Effect<void, UnknownAsk | AskClaimed>
  /**
   * The settled asks, newest first (since `options.since`, at most
   * `options.limit`), each with its receipt; a row that cannot be read is
   * skipped with a logged warning.
   *
   * @since 0.3.0
   */
  readonly history: (options?: HistoryOptions) => Effect.Effect<ReadonlyArray<SettledAsk>>
  /**
   * Asks every pending ask, and each new one, on the provider `layer` and
   * records the outcome, until the scope closes. An ask settled elsewhere
   * is taken down here.
   */
  readonly serve: <E, R>(
    layer: Layer.Layer<UserInteractionProvider, E, R>
  ) => Effect.Effect<void, E, R | Scope.Scope>
  /**
   * Tells `targets` that a question waits, until the scope closes: each
   * pending ask once, again `options.remind` before it expires, and (to
   * webhooks) when it settles. A target that fails is retried, then
   * reported once as a warning; it never delays or fails an ask. A `remind`
   * that is not a positive duration is `InvalidRequest`.
   *
   * @since 0.3.0
   */
  readonly notify: (
    targets: ReadonlyArray<NotifyTarget>,
    options?: NotifyOptions
  ) => Effect.Effect<void, InvalidRequest, Scope.Scope>
  /**
   * The devices that may reach a remote inbox on this store, and the codes
   * that pair them: make a code, redeem one for a device and its
   * credential, authenticate a credential, list and revoke devices. Kept in
   * the store (codes and credentials only hashed), so `ask-user pair` and
   * `ask-user devices revoke` in another process reach the running inbox.
   *
   * @since 0.3.0
   */
  readonly devices: PairedDevices
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

      const settle = (id: string, outcome: Outcome, as?: SettleOptions) => store.settle(id, outcome, as)

      /** Waits while the ask is pending and someone holds a live claim on it. */
      const untilUnclaimed = (id: string): Effect.Effect<void> =>
        Effect.gen(function*() {
          for (;;) {
            const record = yield* store.find(id)
            if (record?.status !== "pending" || !isLive(record.claim, yield* store.databaseNow)) return
            yield* Effect.sleep(changesInterval)
          }
        })

      const answer = (id: string, answer: unknown, options?: SettleOptions) =>
        Effect.gen(function*() {
          const record = yield* find(id)
          if (record.status !== "pending") {
            return yield* Effect.fail(new AskNotPending({ message: notPendingMessage(record) }))
          }
          // Before the rules: a 50 MB answer is refused for its size, whatever it holds, and a
          // stranger as such, whatever they sent.
          const tooLarge = answerTooLarge(answer)
          if (tooLarge !== undefined) return yield* Effect.fail(tooLarge)
          const allowed = checkAnswerer(record.request, options?.by)
          if (Result.isFailure(allowed)) return yield* Effect.fail(allowed.failure)
          const checked = checkAnswer(record.request, answer)
          if (Result.isFailure(checked)) return yield* Effect.fail(checked.failure)
          return yield* settle(id, { status: "answered", answer: checked.success }, options)
        })

      /** Pending records as answerers see them, each claim shown while it holds. */
      const withClaims = (records: ReadonlyArray<AskRecord>) =>
        records.some((record) => record.claim !== undefined)
          ? Effect.map(store.databaseNow, (now) => records.map((record) => toPending(record, now)))
          : Effect.succeed(records.map((record) => toPending(record)))

      const changes = Stream.suspend(() => {
        let known = new Set<string>()
        const step = Effect.gen(function*() {
          const pending = yield* Effect.flatMap(store.pending, withClaims)
          const ids = new Set(pending.map((ask) => ask.id))
          const out: Array<InboxChange> = []
          for (const ask of pending) {
            if (!known.has(ask.id)) out.push({ _tag: "Asked", ask })
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

      /** How the ask was settled, when it was answered, cancelled or declined: as its receipt says. */
      const settledFirst = (id: string) =>
        Effect.map(store.find(id), (record): SettledElsewhere["Service"] | undefined => {
          const outcome = record?.status === "answered"
            ? "answered"
            : record?.status === "cancelled"
            ? "ASK_CANCELLED"
            : record?.status === "declined"
            ? "ASK_DECLINED"
            : undefined
          return outcome === undefined
            ? undefined
            : { surface: record?.receipt?.surface ?? "durable", outcome, by: record?.receipt?.by }
        })

      /**
       * The gate of a served ask (decision 160): a surface's outcome is
       * recorded before its ask ends, so a surface whose human answered just
       * after the ask was settled elsewhere (another process, another
       * surface) is told who settled it rather than left to think they did.
       * While someone else holds a claim, the outcome waits for them to
       * settle or let go. Any other refusal (not allowed, not an answer) is
       * left to the seam, which refuses it as it would without a gate.
       */
      const gate = (id: string, recorded: Set<string>): Gate => ({
        pass: ({ by, outcome, surface }) => {
          const as: SettleOptions = { by, surface }
          const attempt = (): Effect.Effect<SettledElsewhere["Service"] | undefined> =>
            (Result.isSuccess(outcome)
              ? answer(id, outcome.success, as)
              : settle(id, { status: outcome.failure._tag === "AskCancelled" ? "cancelled" : "declined" }, as)).pipe(
                Effect.andThen(Effect.sync(() => void recorded.add(id))),
                Effect.catchTag("AskNotPending", () => settledFirst(id)),
                Effect.catchTag("AskClaimed", () => Effect.andThen(untilUnclaimed(id), Effect.suspend(attempt))),
                Effect.orElseSucceed(() => undefined)
              )
          return attempt()
        }
      })

      const serve = <E, R>(layer: Layer.Layer<UserInteractionProvider, E, R>) =>
        Effect.gen(function*() {
          // The provider's fiber of each ask served, by ask id: an ask settled elsewhere is taken
          // down there with how it ended, so the surface can say so ("Answered in another
          // process.") rather than read it as the agent's withdrawal.
          const serving = new Map<string, Fiber.Fiber<unknown, unknown>>()
          // The asks whose outcome was recorded as it passed its surface's gate, before the seam returned it.
          const recorded = new Set<string>()
          const provider = Context.get(yield* Layer.build(layer), UserInteractionProvider)
          const tracked = UserInteractionProvider.of({
            ...provider,
            ask: (request) =>
              Effect.withFiber((fiber) => {
                const id = request.id!
                serving.set(id, fiber)
                return provider.ask(request).pipe(
                  Effect.provideService(OutcomeGate, gate(id, recorded)),
                  Effect.ensuring(Effect.sync(() => serving.delete(id)))
                )
              })
          })
          const context = yield* Layer.build(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, tracked)))
          const ui = Context.get(context, UserInteraction)
          const asking = yield* FiberMap.make<string>()
          // Each outcome is recorded with its receipt from the seam: the surface, and who (decision 102).
          const askOne = (ask: PendingAsk, tries = 1): Effect.Effect<void> =>
            UserInteraction.askWithReceipt({ ...ask.request, id: ask.id }).pipe(
              Effect.provideService(UserInteraction, ui),
              Effect.matchEffect({
                onSuccess: ({ answer, receipt }) =>
                  recorded.has(ask.id)
                    ? Effect.void
                    : record(ask, { status: "answered", answer }, { by: receipt.by, surface: receipt.surface }, tries),
                onFailure: (error) =>
                  (error._tag === "AskCancelled" || error._tag === "AskDeclined") && !recorded.has(ask.id)
                    ? record(ask, { status: error._tag === "AskCancelled" ? "cancelled" : "declined" }, {
                      by: answererOf(error),
                      surface: surfaceOf(error) ?? provider.name
                    }, tries)
                    // Any other end of the prompt leaves the ask pending for another answerer.
                    : Effect.void
              }),
              Effect.ensuring(Effect.sync(() => recorded.delete(ask.id)))
            )
          // Refused because someone else claimed the ask meanwhile (on another device): it is
          // asked here again once their claim has ended, unless they settle it first.
          const record = (ask: PendingAsk, outcome: Outcome, as: SettleOptions, tries: number): Effect.Effect<void> =>
            settle(ask.id, outcome, as).pipe(
              Effect.catchTag("AskClaimed", (error) =>
                Effect.logWarning(`Not recorded: ${error.message} The ask is asked here again once the claim ends.`).pipe(
                  Effect.andThen(untilUnclaimed(ask.id)),
                  Effect.andThen(Effect.suspend(() => askOne(ask)))
                )),
              // Too large to record (a pasted file, say): the ask stays pending, so ask it again here,
              // saying why, rather than leave it shown nowhere; a surface that answers so three times
              // running is not a person, and is not asked again.
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
            )
          yield* changes.pipe(
            Stream.runForEach((change) =>
              change._tag === "Asked"
                ? FiberMap.run(asking, change.ask.id, askOne(change.ask), { onlyIfMissing: true })
                // Settled through this inbox's own gate: its surfaces are ending it themselves, and a
                // fan-out tells its other members who won (taken down from here, they would only
                // learn that the ask was withdrawn).
                : recorded.has(change.id)
                ? Effect.void
                : Effect.gen(function*() {
                  const fiber = serving.get(change.id)
                  // Who settled it, from its receipt, so the surface can name them ("Answered by Ana …").
                  const by = fiber === undefined ? undefined : (yield* store.find(change.id))?.receipt?.by
                  fiber?.interruptUnsafe(undefined, settledBy(change.outcome, by))
                  return yield* FiberMap.remove(asking, change.id)
                })
            ),
            Effect.forkScoped
          )
        })

      return DurableInbox.of({
        // A row that cannot be read is left out with a warning, so it never hides the other asks.
        pending: Effect.flatMap(store.scan, ({ asks, unreadable }) =>
          Effect.andThen(
            Effect.forEach(unreadable, ({ id, reason }) => Effect.logWarning(`Skipped the durable ask "${id}": ${reason}.`)),
            withClaims(asks)
          )),
        changes,
        answer,
        // Without an answer there is none to be too large.
        cancel: (id, options) => Effect.catchTag(settle(id, { status: "cancelled" }, options), "InvalidAnswer", Effect.die),
        decline: (id, options) => Effect.catchTag(settle(id, { status: "declined" }, options), "InvalidAnswer", Effect.die),
        submit: (request, options) =>
          Effect.gen(function*() {
            // Nothing asks this request but the store: the seam's checks are made here.
            const checked = decodeRequest(request)
            if (Result.isFailure(checked)) return yield* Effect.fail(checked.failure)
            const problem = durableRequestProblem(request, options?.expiresIn)
            if (problem !== undefined) return yield* Effect.fail(problem)
            const id = request.id ?? crypto.randomUUID()
            const known = yield* store.find(id)
            yield* refuseOtherQuestions(id, known, request)
            if (known === undefined) yield* store.submit({ id, request, expiresIn: options?.expiresIn })
            return id
          }),
        await: (id) =>
          Effect.gen(function*() {
            for (;;) {
              const record = yield* find(id)
              const outcome = settledOutcome(record)
              // What an expiry means was fixed when the ask was created: the stored request's.
              if (outcome !== undefined) return yield* outcomeResult(id, outcome, record.request)
              yield* Effect.sleep(changesInterval)
            }
          }),
        status: (id) =>
          Effect.map(find(id), (record) => ({
            id,
            status: record.status,
            ...(record.answer === undefined ? {} : { answer: record.answer }),
            ...(record.receipt === undefined ? {} : { receipt: record.receipt })
          })),
        serve,
        notify: (targets, options) => notifyChanges(changes, targets, options),
        devices: store.devices,
        claim: (id, by, options) => Effect.flatMap(claimTtl(options?.ttl), (ttl) => store.claim(id, by, ttl)),
        release: (id, by) => store.release(id, by),
        history: (options) =>
          Effect.flatMap(store.history(options), ({ asks, unreadable }) =>
            Effect.as(
              Effect.forEach(unreadable, ({ id, reason }) => Effect.logWarning(`Skipped the durable ask "${id}": ${reason}.`)),
              asks.map(toSettled)
            ))
      })
    })
  )
}
