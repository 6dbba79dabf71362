/**
 * The seam for Promise-world code: harnesses and tool runners that do not run
 * on Effect register a Promise provider and ask with an `AbortSignal`.
 * Every rejection is one of the package's error classes.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import type { Agent, AskUserQuestionAnswer, AskUserQuestionRequest } from "./AskUserQuestion.js"
import { requestFromToolArgs } from "./internal/toolCall.js"
import { UserInteraction } from "./UserInteraction.js"
import type { UserInteractionProvider } from "./UserInteractionProvider.js"
import {
  AskAborted,
  HarnessError,
  ProviderFailed,
  type UserInteractionError
} from "./UserInteractionError.js"

/**
 * A provider written with Promises. `req.signal` aborts when the ask is
 * interrupted for any reason (the caller's signal, a timeout, the provider's
 * registration ending, the client being disposed).
 *
 * @since 0.1.0
 */
export interface PromiseProvider {
  ask(req: AskUserQuestionRequest & { readonly signal: AbortSignal }): Promise<AskUserQuestionAnswer>
}

/**
 * The Promise API of the seam.
 *
 * @since 0.1.0
 */
export interface UserInteractionClient {
  /**
   * Registers at once; throws `DuplicateProvider` synchronously, and a
   * `TypeError` for something that is not a provider or a client already
   * disposed. Returns an idempotent disposer.
   */
  registerProvider(provider: PromiseProvider): () => void
  /** Asks through the registered provider, honouring `req.signal`. */
  ask(req: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
  /**
   * The tool `ask_user_question` for Promise-world tool runners: `args` are the
   * model's arguments (`AskUserQuestionArgs`); rejects like `ask`, checking an
   * aborted signal first, then the arguments.
   */
  executeAskUserQuestion(
    args: unknown,
    options?: { readonly signal?: AbortSignal | undefined; readonly agent?: Agent | undefined }
  ): Promise<AskUserQuestionAnswer>
  /** Fails pending asks with `AskAborted`, ends the registration and closes the seam. */
  dispose(): Promise<void>
}

const toError = (cause: Cause.Cause<unknown>): UserInteractionError => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some" && error.value instanceof HarnessError) return error.value as UserInteractionError
  if (Cause.hasInterruptsOnly(cause)) return new AskAborted({ message: "The ask was interrupted." })
  return new ProviderFailed({ cause: Cause.squash(cause) })
}

/** A rejection's reason in words: an object that is no `Error` as JSON, not "[object Object]". */
const described = (reason: unknown): string => {
  if (reason instanceof Error || typeof reason !== "object" || reason === null) return String(reason)
  try {
    return JSON.stringify(reason) ?? String(reason)
  } catch {
    return String(reason)
  }
}

/**
 * Adapts a Promise provider to the seam's provider shape. A plain JavaScript
 * provider that returns its answer rather than a Promise of it is taken at
 * its word (`Promise.resolve`), not failed for a missing `then`.
 */
const fromPromiseProvider = (provider: PromiseProvider): UserInteractionProvider["Service"] => ({
    ask: (request) =>
      Effect.tryPromise({
        try: (signal) => Promise.resolve(provider.ask({ ...request, signal })),
        catch: (error): UserInteractionError =>
          error instanceof HarnessError
            ? error as UserInteractionError
            : new ProviderFailed({ message: `The provider rejected: ${described(error)}`, cause: error })
      })
  })

/**
 * Builds the seam from `layer` (it must build synchronously, as
 * `UserInteraction.layer` and `layerConfig` do) and returns its Promise API.
 *
 * @since 0.1.0
 */
export const makeUserInteractionClient = (
  layer: Layer.Layer<UserInteraction> = UserInteraction.layer
): UserInteractionClient => {
  const scope = Scope.makeUnsafe()
  const context = Effect.runSync(Layer.buildWithScope(layer, scope))
  const seam = Context.get(context, UserInteraction)
  const pending = new Set<Fiber.Fiber<AskUserQuestionAnswer, UserInteractionError>>()
  let disposed: Promise<void> | undefined

  const registerProvider = (provider: PromiseProvider): (() => void) => {
    // Refused here, not at the first ask, which would fail for a reason far from its cause.
    if (typeof (provider as Partial<PromiseProvider> | null)?.ask !== "function") {
      throw new TypeError("registerProvider needs a provider: an object with an ask(request) method.")
    }
    if (disposed) throw new TypeError("The client is disposed: it takes no provider.")
    const registration = Scope.forkUnsafe(scope)
    const exit = Effect.runSyncExit(seam.register(fromPromiseProvider(provider)).pipe(Scope.provide(registration)))
    if (Exit.isFailure(exit)) throw toError(exit.cause)
    let done = false
    return () => {
      if (done) return
      done = true
      Effect.runFork(Scope.close(registration, Exit.void))
    }
  }

  const ask = (req: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> =>
    new Promise((resolve, reject) => {
      if (disposed) return reject(new AskAborted({ message: "The client is disposed." }))
      const fiber = Effect.runForkWith(context)(seam.ask(req))
      pending.add(fiber)
      fiber.addObserver((exit) => {
        pending.delete(fiber)
        if (Exit.isSuccess(exit)) resolve(exit.value)
        else reject(toError(exit.cause))
      })
    })

  const executeAskUserQuestion: UserInteractionClient["executeAskUserQuestion"] = (args, options) => {
    const request = requestFromToolArgs(args, options)
    return Result.isSuccess(request) ? ask(request.success) : Promise.reject(request.failure)
  }

  const dispose = (): Promise<void> => {
    disposed ??= Effect.runPromise(
      Fiber.interruptAll(Array.from(pending)).pipe(Effect.andThen(Scope.close(scope, Exit.void)))
    )
    return disposed
  }

  return { registerProvider, ask, executeAskUserQuestion, dispose }
}
