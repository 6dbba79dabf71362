/**
 * The seam's slot: one active provider, the asks pending on it, and the
 * hand-over of those asks to a successor when the provider's scope closes.
 *
 * Plain mutable state is enough: every mutation happens in a single
 * synchronous step of one fiber, and the only cross-fiber signal (closing a
 * registration) is delivered by interrupting the pending provider fibers.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as PubSub from "effect/PubSub"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as Schema from "effect/Schema"
import { Answerer, type AskReceipt, isAnswerableBy } from "../Answerer.js"
import type { AskEvent } from "../AskEvent.js"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { checkAnswer, decodeRequest } from "../AskValidation.js"
import { askTimeoutMillis, recommendedAnswer, timeoutError } from "./onTimeout.js"
import { isCheckedFor, isWellFormed } from "./wellFormed.js"
import {
  answererOf,
  AskInterruption,
  type InterruptionReason,
  type ProviderAnswer,
  surfaceOf,
  type UserInteractionProvider
} from "../UserInteractionProvider.js"
import { AskEvents, AskWatch, ContextViews, type PublishedEvent } from "./askTelemetry.js"
import {
  AskAborted,
  DuplicateProvider,
  HarnessError,
  InvalidAnswer,
  InvalidRequest,
  NoProvider,
  ProviderClosed,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"

type Provider = UserInteractionProvider["Service"]
type ProviderFiber = Fiber.Fiber<ProviderAnswer, UserInteractionError>

interface Registration {
  readonly provider: Provider
  readonly pending: Set<ProviderFiber>
  closing: boolean
  /** The failure of every ask this registration leaves behind when it closes, made once. */
  closedFailure: Effect.Effect<never, ProviderClosed> | undefined
}

/** The options of `UserInteraction.layerConfig`. */
export interface SeamOptions {
  readonly timeout?: Duration.Input | undefined
  readonly handover?: Duration.Input | undefined
}

/** The service shape of `UserInteraction`. */
export interface Seam {
  readonly ask: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>
  readonly askWithReceipt: (
    request: AskUserQuestionRequest
  ) => Effect.Effect<{ readonly answer: AskUserQuestionAnswer; readonly receipt: AskReceipt }, UserInteractionError>
  readonly register: (provider: Provider) => Effect.Effect<void, DuplicateProvider, Scope.Scope>
  readonly events: Stream.Stream<AskEvent>
  readonly subscribe: Effect.Effect<Stream.Stream<AskEvent>, never, Scope.Scope>
}

const toMillis = (input: Duration.Input | undefined): number =>
  input === undefined ? 0 : Duration.toMillis(Duration.fromInputUnsafe(input))

const because: { readonly [R in InterruptionReason]: Context.Context<never> } = {
  aborted: Context.make(AskInterruption, "aborted"),
  timeout: Context.make(AskInterruption, "timeout"),
  closed: Context.make(AskInterruption, "closed")
}

/** The signal's reason (the caller's own, or the platform's `AbortError`) is the cause. */
const abortedError = (signal: AbortSignal | undefined) =>
  new AskAborted({ message: "The ask was aborted by its signal.", cause: signal?.reason })
const aborted = (signal: AbortSignal | undefined) => Effect.suspend(() => Effect.fail(abortedError(signal)))

const isAnswerer = Schema.is(Answerer)

/** Who settled an outcome, as its provider said; a `by` that is no answerer is the provider's bug. */
const answererIn = (outcome: unknown): Result.Result<Answerer | undefined, InvalidAnswer> => {
  const by = answererOf(outcome)
  return by === undefined || isAnswerer(by)
    ? Result.succeed(by)
    : Result.fail(new InvalidAnswer({ message: "The provider named who answered with something that is no answerer (kind:value)." }))
}

/** Whether an outcome was the human's to give: an answer, a cancel or a decline. */
const isHumanOutcome = (error: unknown): boolean =>
  error instanceof HarnessError && (error._tag === "AskCancelled" || error._tag === "AskDeclined")

const providerFailed = (cause: Cause.Cause<unknown>) =>
  new ProviderFailed({ message: `The provider failed: ${Cause.pretty(cause).split("\n")[0]}`, cause: Cause.squash(cause) })

/**
 * Builds a seam that reports on `events`; `close` ends the waits of asks
 * still in a hand-over window and publishes the events not yet out.
 */
export const makeSeam = (
  options: SeamOptions,
  pubsub: PubSub.PubSub<PublishedEvent>
): { readonly seam: Seam; readonly close: Effect.Effect<void> } => {
  const events = new AskEvents(pubsub)
  const views = new ContextViews()
  const slot = new Slot(toMillis(options.handover))
  const seamMillis = toMillis(options.timeout)
  // The timer marks the ask before the race interrupts it, so the provider is told why: a clock
  // reading compared with a deadline could fall a millisecond short of a timer that has fired.
  const timedOut = (pending: PendingAsk, millis: number) =>
    Effect.andThen(
      Effect.sleep(Duration.millis(millis)),
      Effect.suspend(() => {
        pending.timedOut = true
        return pending.request.onTimeout === "recommended"
          ? Effect.succeed(recommendedAnswer(pending.request))
          : Effect.fail(timeoutError(millis))
      })
    )
  const withTimeout = (pending: PendingAsk, registration: Registration) => {
    // Only a request that names its own timeout needs reading: the seam's alone is the usual case.
    const millis = pending.request.timeout === undefined ? seamMillis : askTimeoutMillis(pending.request, seamMillis)
    if (millis <= 0) return pending.run(registration)
    const raced = Effect.raceFirst(pending.run(registration), timedOut(pending, millis))
    // Defaults taken while the signal aborted the ask (its prompt still coming down) are no answer.
    return pending.request.onTimeout === "recommended"
      ? Effect.flatMap(raced, (answer) => pending.aborted ? aborted(pending.signal) : Effect.succeed(answer))
      : raced
  }

  // Every ask is watched, and reports itself when it ends, whatever ended it. The report is
  // bound rather than wrapped in a closure: a pending ask then holds no scope of this call. It
  // runs uninterruptibly: an interruptible exit hook is skipped when the caller is interrupted,
  // and an interrupted caller's ask must settle (ASK_ABORTED) like any other.
  const ask = (request: AskUserQuestionRequest): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> =>
    Effect.withFiber((fiber) => {
      const pending = new PendingAsk(slot, request, events, fiber, views)
      return Effect.onExitPrimitive(askWatched(pending), pending.settled.bind(pending))
    })

  // The same ask; its watch, settled by then, also makes the receipt.
  const askWithReceipt = (request: AskUserQuestionRequest) =>
    Effect.withFiber((fiber) => {
      const pending = new PendingAsk(slot, request, events, fiber, views)
      return Effect.map(
        Effect.onExitPrimitive(askWatched(pending), pending.settled.bind(pending)),
        (answer) => ({ answer, receipt: pending.receipt((answer as { readonly defaulted?: unknown }).defaulted === true) })
      )
    })

  const askWatched = (pending: PendingAsk): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
    const request = pending.request
    let signal: unknown
    try {
      signal = (request as { signal?: unknown } | null | undefined)?.signal
    } catch (cause) {
      // A getter or proxy that throws: the request cannot be read, as one the decoder refuses.
      return Effect.fail(new InvalidRequest({ message: `Invalid request: its signal could not be read: ${String(cause)}`, cause }))
    }
    if (signal instanceof AbortSignal && signal.aborted) return aborted(signal)
    if (!isWellFormed(request)) {
      const decoded = decodeRequest(request)
      if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
    }
    const registration = slot.current
    if (registration === undefined) return Effect.fail(new NoProvider())
    // The decoded copy only proves the request well-formed; the provider gets the caller's object.
    pending.asked()
    if (!(signal instanceof AbortSignal)) return withTimeout(pending, registration)
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        pending.signal = signal
        signal.addEventListener("abort", pending, { once: true })
        // Aborted since the check above: the event has fired already, so act on it here.
        if (signal.aborted) pending.handleEvent()
      }),
      () =>
        Effect.mapError(
          withTimeout(pending, registration),
          // Once the signal is aborted the ask fails AskAborted, even if a timeout fired while
          // the provider was still taking its prompt down. (Answers are refused in `settle`.)
          (error) => signal.aborted ? abortedError(signal) : error
        ),
      () => Effect.sync(() => signal.removeEventListener("abort", pending))
    )
  }

  return {
    seam: {
      ask,
      askWithReceipt,
      register: (provider) => slot.register(provider),
      events: events.stream,
      subscribe: events.subscribe
    },
    // The events of asks this settles go out, then the end of every event stream.
    close: Effect.sync(() => {
      slot.close()
      events.close()
    })
  }
}

/** The one provider slot and the asks waiting for a successor. */
class Slot {
  current: Registration | undefined
  closed = false
  readonly successorWaiters = new Set<PendingAsk>()
  constructor(readonly handoverMillis: number) {}

  register(provider: Provider): Effect.Effect<void, DuplicateProvider, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.suspend(() => {
        if (this.current !== undefined) return Effect.fail(new DuplicateProvider())
        const registration: Registration = { provider, pending: new Set(), closing: false, closedFailure: undefined }
        this.current = registration
        for (const waiter of this.successorWaiters) waiter.wake(registration)
        return Effect.succeed(registration)
      }),
      (registration) =>
        Effect.suspend(() => {
          registration.closing = true
          if (this.current === registration) this.current = undefined
          // Most asks end inside `interruptUnsafe`, and their exit removes them from the set (a Set
          // may lose entries while it is iterated): what is left still runs finalizers; wait for those.
          for (const child of registration.pending) child.interruptUnsafe(undefined, because.closed)
          return registration.pending.size === 0 ? Effect.void : Fiber.awaitAll(Array.from(registration.pending))
        })
    ).pipe(Effect.asVoid)
  }

  close(): void {
    this.closed = true
    for (const waiter of Array.from(this.successorWaiters)) waiter.wake(undefined)
  }
}

/** An answer as the caller gets it: a checked answer a provider returned with `by` loses it. */
const withoutBy = (answer: ProviderAnswer): AskUserQuestionAnswer => {
  if (!("by" in answer)) return answer
  const { by: _by, ...rest } = answer
  return rest
}

/**
 * One ask from its start to its report: its watch, the provider fiber it
 * runs on, and its abort listener (the object itself, so no closure is kept
 * per ask).
 */
class PendingAsk extends AskWatch implements EventListenerObject {
  fiber: ProviderFiber | undefined
  /** The request's signal, once the ask listens to it. */
  signal: AbortSignal | undefined
  aborted = false
  /** The seam's timeout ended this ask. */
  timedOut = false
  resumeWaiter: ((successor: Registration | undefined) => void) | undefined

  constructor(
    readonly slot: Slot,
    request: AskUserQuestionRequest,
    events: AskEvents,
    caller: Fiber.Fiber<unknown, unknown>,
    views: ContextViews
  ) {
    super(request, events, caller, views)
  }

  /** The request's signal aborted: take the provider's prompt down, or stop waiting for a successor. */
  handleEvent(): void {
    this.aborted = true
    this.fiber?.interruptUnsafe(undefined, because.aborted)
    this.wake(undefined)
  }

  wake(successor: Registration | undefined): void {
    this.slot.successorWaiters.delete(this)
    const resume = this.resumeWaiter
    this.resumeWaiter = undefined
    resume?.(successor)
  }

  /**
   * Runs the request on `registration`, following hand-overs to successors:
   * the provider's ask as an interruptible child, settled when it exits.
   * Interrupting the caller interrupts the child and waits for its finalizers.
   */
  run(registration: Registration): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> {
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        Effect.forkChild(this.enrol(registration), { startImmediately: true }),
        (child) =>
          restore(Effect.callback<AskUserQuestionAnswer, UserInteractionError>((resume) => {
            child.addObserver((exit) => {
              registration.pending.delete(child)
              if (this.fiber === child) this.fiber = undefined
              // Settled on resuming, not in a step after the wait: one frame fewer held by every pending
              // ask. Suspended, so that a caller gone is not settled and a throw becomes a defect.
              resume(Effect.suspend(() => this.settle(registration, exit)))
            })
            // The caller was interrupted: by the seam's timeout, else by the caller.
            return Effect.suspend(() => {
              child.interruptUnsafe(undefined, this.timedOut ? because.timeout : because.aborted)
              return Effect.asVoid(Fiber.await(child))
            })
          }))
      )
    )
  }

  /** The child enrols itself before the provider's first step, so a registration closing meanwhile finds it. */
  enrol(registration: Registration): Effect.Effect<ProviderAnswer, UserInteractionError> {
    return Effect.withFiber((self) => {
      this.fiber = self as ProviderFiber
      registration.pending.add(this.fiber)
      return this.aborted || registration.closing ? Effect.interrupt : registration.provider.ask(this.request)
    })
  }

  settle(
    registration: Registration,
    exit: Exit.Exit<ProviderAnswer, UserInteractionError>
  ): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> {
    if (this.aborted) return aborted(this.signal)
    const name = registration.provider.name
    if (Exit.isSuccess(exit)) {
      const value = exit.value
      const by = answererIn(value)
      if (Result.isFailure(by)) return Effect.fail(by.failure)
      // A defaulted answer is nobody's (the recommended options, taken when time ran out; the answer
      // rules hold it to exactly those), so no answerer is asked of it.
      if (value.defaulted !== true && !isAnswerableBy(this.request.answerableBy, by.success)) {
        return this.refuse(registration, by.success)
      }
      this.surface = surfaceOf(value) ?? name
      this.by = by.success
      const checked = isCheckedFor(value, this.request) ? Result.succeed(withoutBy(value)) : checkAnswer(this.request, value)
      return Result.isSuccess(checked) ? Effect.succeed(checked.success) : Effect.fail(checked.failure)
    }
    const cause = exit.cause
    if (registration.closing && Cause.hasInterruptsOnly(cause)) return this.handOver(registration)
    const error = Cause.findErrorOption(cause)
    if (error._tag === "Some" && isHumanOutcome(error.value)) {
      const by = answererIn(error.value)
      if (Result.isFailure(by)) return Effect.fail(by.failure)
      if (!isAnswerableBy(this.request.answerableBy, by.success)) return this.refuse(registration, by.success)
      this.by = by.success
    }
    this.surface = (error._tag === "Some" ? surfaceOf(error.value) : undefined) ?? name
    if (error._tag === "Some" && error.value instanceof HarnessError) return Effect.fail(error.value)
    return Effect.fail(providerFailed(cause))
  }

  /**
   * An answer, cancel or decline from someone the request's `answerableBy`
   * does not allow: refused (a surface that knows who answers refuses them
   * itself first, with `checkAnswerer`), and the ask stays pending, asked
   * again on the provider, within the same timeout.
   */
  refuse(registration: Registration, by: Answerer | undefined): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> {
    return Effect.logWarning(
      `Refused a settlement of the ask "${this.id}" by ${by === undefined ? "an unknown answerer" : by.id}: ` +
        "its answerableBy does not allow them; the ask stays pending."
    ).pipe(
      // A provider that answers again at once must not starve the other fibers.
      Effect.andThen(Effect.yieldNow),
      Effect.andThen(Effect.suspend(() => registration.closing ? this.handOver(registration) : this.run(registration)))
    )
  }

  /** The provider closed under this ask: wait up to the hand-over window for a successor to ask again. */
  handOver(closed: Registration): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> {
    // One error, and one failing effect, for every ask the closing provider leaves behind: a
    // failure made per ask was a tenth of what closing 100k pending asks costs.
    const providerClosed = closed.closedFailure ??= Effect.fail(new ProviderClosed())
    const slot = this.slot
    if (slot.handoverMillis <= 0 || slot.closed) return providerClosed
    if (slot.current !== undefined) return this.run(slot.current)
    const waitForSuccessor = Effect.callback<Registration | undefined>((resume) => {
      this.resumeWaiter = (successor) => resume(Effect.succeed(successor))
      slot.successorWaiters.add(this)
      return Effect.sync(() => {
        slot.successorWaiters.delete(this)
        this.resumeWaiter = undefined
      })
    })
    return waitForSuccessor.pipe(
      Effect.timeoutOption(Duration.millis(slot.handoverMillis)),
      Effect.flatMap((successor) => {
        if (this.aborted) return aborted(this.signal)
        if (successor._tag === "None" || successor.value === undefined) return providerClosed
        return this.run(successor.value)
      })
    )
  }
}
