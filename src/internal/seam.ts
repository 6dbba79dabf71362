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
import { Cause, Duration, Effect, Exit, Fiber, Result, type Scope } from "effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { checkAnswer, decodeRequest } from "../AskValidation.js"
import type { UserInteractionProvider } from "../UserInteractionProvider.js"
import {
  AskAborted,
  AskTimeout,
  DuplicateProvider,
  HarnessError,
  NoProvider,
  ProviderClosed,
  ProviderFailed,
  type UserInteractionError
} from "../UserInteractionError.js"

type Provider = UserInteractionProvider["Service"]
type ProviderFiber = Fiber.Fiber<AskUserQuestionAnswer, UserInteractionError>

interface Registration {
  readonly provider: Provider
  readonly pending: Set<ProviderFiber>
  closing: boolean
}

/** The options of `UserInteraction.layerConfig`. */
export interface SeamOptions {
  readonly timeout?: Duration.Input | undefined
  readonly handover?: Duration.Input | undefined
}

/** The service shape of `UserInteraction`. */
export interface Seam {
  readonly ask: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>
  readonly register: (provider: Provider) => Effect.Effect<void, DuplicateProvider, Scope.Scope>
}

const toMillis = (input: Duration.Input | undefined): number =>
  input === undefined ? 0 : Duration.toMillis(Duration.fromInputUnsafe(input))

const abortedError = () => new AskAborted({ message: "The ask was aborted by its signal." })
const aborted = Effect.suspend(() => Effect.fail(abortedError()))

const providerFailed = (cause: Cause.Cause<unknown>) =>
  new ProviderFailed({ message: `The provider failed: ${Cause.pretty(cause).split("\n")[0]}`, cause: Cause.squash(cause) })

/** Builds a seam; `close` ends the waits of asks still in a hand-over window. */
export const makeSeam = (options: SeamOptions): { readonly seam: Seam; readonly close: Effect.Effect<void> } => {
  const timeoutMillis = toMillis(options.timeout)
  const handoverMillis = toMillis(options.handover)
  let current: Registration | undefined
  let seamClosed = false
  const successorWaiters = new Set<(successor: Registration | undefined) => void>()

  const closeRegistration = (registration: Registration) =>
    Effect.suspend(() => {
      registration.closing = true
      if (current === registration) current = undefined
      return Fiber.interruptAll(Array.from(registration.pending))
    })

  const register = (provider: Provider) =>
    Effect.acquireRelease(
      Effect.suspend(() => {
        if (current !== undefined) return Effect.fail(new DuplicateProvider())
        const registration: Registration = { provider, pending: new Set(), closing: false }
        current = registration
        for (const wake of successorWaiters) wake(registration)
        return Effect.succeed(registration)
      }),
      closeRegistration
    ).pipe(Effect.asVoid)

  /** Runs one request to completion on whichever provider holds it, following hand-overs. */
  const providerPhase = (request: AskUserQuestionRequest, first: Registration) =>
    Effect.suspend(() => {
      const signal = request.signal
      let fiber: ProviderFiber | undefined
      let wakeWaiter: ((successor: Registration | undefined) => void) | undefined
      let isAborted = false
      const onAbort = () => {
        isAborted = true
        fiber?.interruptUnsafe()
        wakeWaiter?.(undefined)
      }

      const runOn = (registration: Registration): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> =>
        Effect.flatMap(awaitProvider(registration), (exit) => settle(registration, exit))

      /** Runs the provider's ask as an interruptible child and waits for its exit. */
      const awaitProvider = (registration: Registration) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(
            Effect.forkChild(
              // The child enrols itself before the provider's first step, so a registration
              // that closes while the provider starts always finds it.
              Effect.withFiber<AskUserQuestionAnswer, UserInteractionError>((self) => {
                fiber = self as ProviderFiber
                registration.pending.add(fiber)
                return isAborted || registration.closing ? Effect.interrupt : restore(registration.provider.ask(request))
              }),
              { startImmediately: true }
            ),
            (child) =>
              restore(Fiber.await(child)).pipe(
                Effect.onInterrupt(() => Fiber.interrupt(child)),
                Effect.ensuring(Effect.sync(() => {
                  registration.pending.delete(child)
                  fiber = undefined
                }))
              )
          )
        )

      const settle = (
        registration: Registration,
        exit: Exit.Exit<AskUserQuestionAnswer, UserInteractionError>
      ): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
        if (isAborted) return aborted
        if (Exit.isSuccess(exit)) {
          const checked = checkAnswer(request, exit.value)
          return Result.isSuccess(checked) ? Effect.succeed(checked.success) : Effect.fail(checked.failure)
        }
        const cause = exit.cause
        if (registration.closing && Cause.hasInterruptsOnly(cause)) return handOver(registration)
        const error = Cause.findErrorOption(cause)
        if (error._tag === "Some" && error.value instanceof HarnessError) return Effect.fail(error.value)
        return Effect.fail(providerFailed(cause))
      }

      const handOver = (closed: Registration): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
        const providerClosed = Effect.fail(new ProviderClosed())
        if (handoverMillis <= 0 || seamClosed) return providerClosed
        if (current !== undefined && current !== closed) return runOn(current)
        const waitForSuccessor = Effect.callback<Registration | undefined>((resume) => {
          const wake = (successor: Registration | undefined) => {
            successorWaiters.delete(wake)
            wakeWaiter = undefined
            resume(Effect.succeed(successor))
          }
          wakeWaiter = wake
          successorWaiters.add(wake)
          return Effect.sync(() => {
            successorWaiters.delete(wake)
            wakeWaiter = undefined
          })
        })
        return waitForSuccessor.pipe(
          Effect.timeoutOption(Duration.millis(handoverMillis)),
          Effect.flatMap((successor) => {
            if (isAborted) return aborted
            if (successor._tag === "None" || successor.value === undefined) return providerClosed
            return runOn(successor.value)
          })
        )
      }

      if (signal === undefined) return runOn(first)
      signal.addEventListener("abort", onAbort, { once: true })
      return runOn(first).pipe(Effect.ensuring(Effect.sync(() => signal.removeEventListener("abort", onAbort))))
    })

  const withTimeout = timeoutMillis > 0
    ? <A>(phase: Effect.Effect<A, UserInteractionError>) =>
      Effect.timeoutOrElse(phase, {
        duration: Duration.millis(timeoutMillis),
        orElse: () => Effect.fail(new AskTimeout({ message: `No answer arrived within ${Duration.format(Duration.millis(timeoutMillis))}.` }))
      })
    : <A>(phase: Effect.Effect<A, UserInteractionError>) => phase

  const ask = (request: AskUserQuestionRequest): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> =>
    Effect.suspend(() => {
      const signal = (request as { signal?: unknown } | null | undefined)?.signal
      if (signal instanceof AbortSignal && signal.aborted) return aborted
      const decoded = decodeRequest(request)
      if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
      const registration = current
      if (registration === undefined) return Effect.fail(new NoProvider())
      const phase = withTimeout(providerPhase(decoded.success, registration))
      const requestSignal = decoded.success.signal
      if (requestSignal === undefined) return phase
      // Once the signal is aborted the ask fails AskAborted, even if a timeout fired while
      // the provider was still taking its prompt down. (Answers are refused in `settle`.)
      return Effect.mapError(phase, (error) => requestSignal.aborted ? abortedError() : error)
    })

  const close = Effect.sync(() => {
    seamClosed = true
    for (const wake of Array.from(successorWaiters)) wake(undefined)
  })

  return { seam: { ask, register }, close }
}
