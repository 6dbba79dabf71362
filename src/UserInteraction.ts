/**
 * The seam itself: what tools and permission plugins call to ask the human,
 * and where a UI surface registers as the one active provider.
 *
 * ```ts
 * const program = UserInteraction.ask({ questions: [{ id: "go", question: "Deploy now?" }] })
 * program.pipe(Effect.provide(UserInteraction.layerWith(TerminalProvider.layer())))
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { AskReceipt } from "./Answerer.js"
import type { AskEvent } from "./AskEvent.js"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "./AskUserQuestion.js"
import type { PublishedEvent } from "./internal/askTelemetry.js"
import { makeSeam, type SeamOptions } from "./internal/seam.js"
import { UserInteractionProvider } from "./UserInteractionProvider.js"
import type { DuplicateProvider, UserInteractionError } from "./UserInteractionError.js"

/**
 * Options of `UserInteraction.layerConfig`: `timeout` bounds the whole
 * provider phase of each ask (hand-over waits included; absent, zero or
 * negative: no timeout; a request's own `timeout` applies when it is the
 * smaller, and its `onTimeout` says what the end means); `handover` is how
 * long pending asks of a closed provider wait for a successor (default 0:
 * they fail `ProviderClosed` at once).
 *
 * @since 0.1.0
 */
export type UserInteractionOptions = SeamOptions

// How many events a subscriber may fall behind before it loses the oldest.
const eventBuffer = 1024

/**
 * The "ask the human" service. `ask` checks the request, runs it on the active
 * provider and holds the answer to the answer rules; `register` makes a
 * provider the active one for the lifetime of the current scope; `events`
 * reports every ask that reaches a provider, from subscription on.
 *
 * @since 0.1.0
 */
export class UserInteraction extends Context.Service<UserInteraction, {
  readonly ask: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, UserInteractionError>
  readonly register: (provider: UserInteractionProvider["Service"]) => Effect.Effect<void, DuplicateProvider, Scope.Scope>
  /**
   * `ask`, with the receipt of the answer (read through
   * `UserInteraction.askWithReceipt`). Optional, like `events`: a service
   * built by hand without it gets a receipt that only says when.
   */
  readonly askWithReceipt?:
    | ((request: AskUserQuestionRequest) => Effect.Effect<AnswerWithReceipt, UserInteractionError>)
    | undefined
  /**
   * The seam's events (read through `UserInteraction.events`). Optional, so
   * that a service built by hand with SPEC's `{ ask, register }` (a test
   * double) is a `UserInteraction` too: it has no events, and its streams
   * end at once.
   */
  readonly events?: Stream.Stream<AskEvent> | undefined
  /** Subscribes now (read through `UserInteraction.subscribe`); optional like `events`. */
  readonly subscribe?: Effect.Effect<Stream.Stream<AskEvent>, never, Scope.Scope> | undefined
}>()("effect-user-interaction/UserInteraction") {
  /**
   * The seam with an empty slot and the given options. Each call makes a new,
   * independent seam.
   *
   * @since 0.1.0
   */
  static layerConfig(options: UserInteractionOptions = {}): Layer.Layer<UserInteraction> {
    return Layer.effect(
      UserInteraction,
      Effect.gen(function*() {
        // Sliding: a subscriber that falls behind loses its oldest events; no ask ever waits for it.
        const events = yield* PubSub.sliding<PublishedEvent>(eventBuffer)
        const { close, seam } = makeSeam(options, events)
        // Ends every event stream, after its last event, once the seam is gone.
        yield* Effect.addFinalizer(() => close)
        return UserInteraction.of(seam)
      })
    )
  }

  /**
   * The seam with an empty slot, no timeout and no hand-over.
   *
   * @since 0.1.0
   */
  static readonly layer: Layer.Layer<UserInteraction> = UserInteraction.layerConfig()

  /**
   * Asks the human through the active provider.
   *
   * @since 0.1.0
   */
  static ask(request: AskUserQuestionRequest): Effect.Effect<AskUserQuestionAnswer, UserInteractionError, UserInteraction> {
    return UserInteraction.use((seam) => seam.ask(request))
  }

  /**
   * Asks like `ask`, and also returns the answer's receipt: the surface that
   * answered, who answered when the surface could say (`by`), when, after
   * how long, and `defaulted` when the recommended options were taken on
   * timeout. `ask` returns the same answer without it.
   *
   * ```ts
   * const { answer, receipt } = yield* UserInteraction.askWithReceipt(request)
   * yield* Effect.log(`approved by ${receipt.by?.name ?? receipt.by?.id ?? "someone"} on ${receipt.surface}`)
   * ```
   *
   * @since 0.3.0
   */
  static askWithReceipt(
    request: AskUserQuestionRequest
  ): Effect.Effect<AnswerWithReceipt, UserInteractionError, UserInteraction> {
    return UserInteraction.use((seam) => seam.askWithReceipt?.(request) ?? receiptAround(seam.ask(request)))
  }

  /**
   * The seam's ask events from the moment the stream runs: `Asked` when an
   * ask reaches a provider, `Settled` when it ends. A subscriber that falls
   * more than 1,024 events behind loses the oldest; asks never wait for it.
   * Once the seam closes, the stream ends after the events published before.
   * A `UserInteraction` built by hand without `events` has none: the stream
   * ends at once.
   *
   * @since 0.2.0
   */
  static readonly events: Stream.Stream<AskEvent, never, UserInteraction> = Stream.unwrap(
    UserInteraction.useSync((seam) => seam.events ?? Stream.empty)
  )

  /**
   * Subscribes now, for the lifetime of the scope, and gives the events from
   * this moment on as a stream (`events` subscribes only when its stream
   * starts, which a forked fiber may do after the first asks). Every ask
   * that reaches a provider from here on is in it, until the seam closes.
   *
   * @since 0.2.0
   */
  static readonly subscribe: Effect.Effect<Stream.Stream<AskEvent>, never, UserInteraction | Scope.Scope> = UserInteraction
    .use((seam) => seam.subscribe ?? Effect.succeed(Stream.empty))

  /**
   * Builds `providerLayer` and registers its provider for the lifetime of this
   * layer. Closing the layer's scope ends the registration first, then the
   * provider's own resources.
   *
   * @since 0.1.0
   */
  static provide<ROut, E, R>(
    providerLayer: Layer.Layer<ROut | UserInteractionProvider, E, R>
  ): Layer.Layer<never, E | DuplicateProvider, R | UserInteraction> {
    return Layer.effectDiscard(buildAndRegister(providerLayer))
  }

  /**
   * A fresh seam with `providerLayer`'s provider registered: the usual wiring
   * for applications and tests. Other services the provider layer outputs
   * pass through.
   *
   * @since 0.1.0
   */
  static layerWith<ROut, E, R>(
    providerLayer: Layer.Layer<ROut | UserInteractionProvider, E, R>,
    options?: UserInteractionOptions
  ): Layer.Layer<UserInteraction | Exclude<ROut, UserInteractionProvider>, E, R> {
    return Layer.effectContext(
      buildAndRegister(providerLayer).pipe(
        // The seam is built right here and has no other provider, so this cannot happen.
        Effect.catchTag("DuplicateProvider", (error) => Effect.die(error))
      )
    ).pipe(Layer.provideMerge(UserInteraction.layerConfig(options)))
  }
}

/**
 * An answer and its receipt, as `UserInteraction.askWithReceipt` gives them.
 *
 * @since 0.3.0
 */
export interface AnswerWithReceipt {
  readonly answer: AskUserQuestionAnswer
  readonly receipt: AskReceipt
}

/** The receipt a hand-built seam without `askWithReceipt` can give: when, and after how long. */
const receiptAround = <E>(ask: Effect.Effect<AskUserQuestionAnswer, E>): Effect.Effect<AnswerWithReceipt, E> =>
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.flatMap(ask, (answer) =>
      Effect.map(Clock.currentTimeMillis, (at) => ({ answer, receipt: { at: new Date(at), millis: at - start } }))))

const buildAndRegister = <ROut, E, R>(providerLayer: Layer.Layer<ROut | UserInteractionProvider, E, R>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(providerLayer)
    const seam = yield* UserInteraction
    yield* seam.register(Context.get(context, UserInteractionProvider))
    return Context.omit(UserInteractionProvider)(context)
  })
