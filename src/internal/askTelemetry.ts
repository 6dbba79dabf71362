/**
 * What the seam reports about each ask: a span, three metrics, and the
 * `Asked`/`Settled` events. Everything here is synchronous bookkeeping done
 * from the ask's own fiber, so watching an ask adds no fiber, no lock and no
 * wait: events go to a sliding `PubSub`, where a subscriber that falls behind
 * loses its oldest events instead of holding an ask up.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type { Answerer, AskReceipt } from "../Answerer.js"
import type { AskedRequest, AskEvent, AskOutcome, Settled } from "../AskEvent.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { type ErrorCode, HarnessError } from "../UserInteractionError.js"

/** The span every ask runs in. */
export const spanName = "UserInteraction.ask"

/** The metrics of the seam, recorded in the `Metric.MetricRegistry` of the asking fiber. */
export const metrics = {
  asks: "user_interaction_asks",
  pending: Metric.gauge("user_interaction_pending", { description: "Asks waiting at a provider now." }),
  answerMillis: Metric.histogram("user_interaction_answer_millis", {
    description: "How long asks waited at a provider before they settled, in milliseconds.",
    // 50 ms to about 14 hours: people take seconds to hours.
    boundaries: Metric.exponentialBoundaries({ start: 50, factor: 2, count: 20 })
  })
} as const

// One counter series per outcome, made on first use.
const askCounters = new Map<AskOutcome, Metric.Counter<number>>()
const askCounter = (outcome: AskOutcome): Metric.Counter<number> => {
  let counter = askCounters.get(outcome)
  if (counter === undefined) {
    counter = Metric.counter(metrics.asks, { description: "Asks, by outcome.", attributes: { outcome }, incremental: true })
    askCounters.set(outcome, counter)
  }
  return counter
}

/** How an ask's exit reads as an outcome; an interrupted caller counts as aborted. */
export const outcomeOf = (exit: Exit.Exit<unknown, unknown>): AskOutcome => {
  if (Exit.isSuccess(exit)) return "answered"
  // The first typed error decides, read in place: every closed ask passes here, and
  // `Cause.findErrorOption` would allocate twice for each.
  for (const reason of exit.cause.reasons) {
    if (Cause.isFailReason(reason)) {
      return reason.error instanceof HarnessError ? reason.error.code as ErrorCode : "PROVIDER_FAILED"
    }
  }
  return Cause.hasInterruptsOnly(exit.cause) ? "ASK_ABORTED" : "PROVIDER_FAILED"
}

// Generated ids: a random prefix per process and a counter, unique without drawing entropy per
// ask (a UUID each was a tenth of what watching an ask costs).
const idPrefix = `ask-${crypto.randomUUID().slice(0, 13)}-`
let idCounter = 0

/**
 * A field of a request the seam may have refused: a getter or proxy that
 * throws reads as absent, so that reporting the refusal cannot fail too.
 */
const fieldOf = (request: unknown, key: "id" | "agent" | "questions"): unknown => {
  try {
    return (request as Record<string, unknown> | null | undefined)?.[key]
  } catch {
    return undefined
  }
}

const askIdOf = (request: unknown): string => {
  const id = fieldOf(request, "id")
  return typeof id === "string" && id !== "" ? id : idPrefix + (++idCounter).toString(36)
}

/**
 * What an ask takes from the asking fiber's context: its clock, and how its
 * span is made. Effect's contexts are immutable, so one view serves every
 * ask made in the same context: a loop of asks reads it once, not nine
 * references per ask.
 */
const noLinks: ReadonlyArray<Tracer.SpanLink> = []
const noAnnotations: Readonly<Record<string, unknown>> = {}

class ContextView {
  /** The clock of events and metrics. */
  readonly clock: Clock.Clock
  /** The tracer of the ask's span; undefined when the ask gets no span. */
  readonly tracer: Tracer.Tracer | undefined
  /** The clock that times the span; undefined without a span or with span timing off. */
  readonly spanClock: Clock.Clock | undefined
  readonly parent: Option.Option<Tracer.AnySpan>
  readonly links: ReadonlyArray<Tracer.SpanLink>
  readonly annotations: Readonly<Record<string, unknown>>
  /** As Effect's spans: an unsampled parent, or a trace level under the minimum, leaves it unsampled. */
  readonly sampled: boolean

  constructor(context: Context.Context<never>) {
    this.clock = Context.get(context, Clock.Clock)
    this.tracer = spanTracer(context)
    this.spanClock = this.tracer !== undefined && Context.get(context, References.TracerTimingEnabled)
      ? this.clock
      : undefined
    if (this.tracer === undefined) {
      // No span: nothing more to read.
      this.parent = Option.none()
      this.links = noLinks
      this.annotations = noAnnotations
      this.sampled = false
      return
    }
    this.parent = Context.getOption(context, Tracer.ParentSpan)
    this.links = Context.get(context, References.TracerSpanLinks)
    this.annotations = Context.get(context, References.TracerSpanAnnotations)
    this.sampled = (this.parent._tag === "None" || this.parent.value.sampled) &&
      !LogLevel.isGreaterThan(Context.get(context, Tracer.MinimumTraceLevel), Context.get(context, Tracer.CurrentTraceLevel))
  }
}

/**
 * The view of the last context a seam's asks came from. One slot, not a
 * weak map: an agent asks from a fresh context per tool call as often as
 * from one loop, and a weak map entry per fresh context cost more than the
 * reads it saved. The slot holds that one context until the next ask.
 */
export class ContextViews {
  #context: Context.Context<never> | undefined
  #view: ContextView | undefined

  of(context: Context.Context<never>): ContextView {
    if (this.#context === context) return this.#view!
    this.#context = context
    return this.#view = new ContextView(context)
  }
}

/**
 * Records the ask's span through the caller's `Tracer`: made when the ask
 * ends and backdated to its start, under the caller's current span. It gets
 * what Effect's own spans get from where they are made: the annotations and
 * links of `Effect.annotateSpans`/`Effect.linkSpans`, span timing, and the
 * trace levels that decide sampling. A pending ask then holds no span (a
 * seam may hold very many pending asks), at the price of the provider's own
 * spans not nesting under this one.
 */
const recordSpan = (watch: AskWatch, exit: Exit.Exit<unknown, unknown>, outcome: AskOutcome): void => {
  const view = watch.view
  const tracer = view.tracer
  if (tracer === undefined) return
  const span = tracer.span({
    name: spanName,
    parent: view.parent,
    annotations: Context.empty(),
    // A span may add links to its own array: it gets a copy, never the fiber's.
    links: view.links.length === 0 ? [] : view.links.slice(),
    startTime: watch.startTime,
    kind: "internal",
    root: false,
    sampled: view.sampled
  })
  const annotations = view.annotations
  for (const key in annotations) span.attribute(key, annotations[key])
  // The request may not even decode: read what it has.
  const agent = fieldOf(watch.request, "agent") as { readonly id?: unknown } | null | undefined
  const questions = fieldOf(watch.request, "questions")
  span.attribute("ask.id", watch.id)
  const agentId = typeof agent === "object" && agent !== null ? fieldOf(agent, "id") : undefined
  if (typeof agentId === "string") span.attribute("ask.agent.id", agentId)
  if (Array.isArray(questions)) span.attribute("ask.questions", questions.length)
  span.attribute("ask.outcome", outcome)
  // Answered by nobody: the time ran out and the recommended options were taken.
  if (Exit.isSuccess(exit) && (exit.value as { readonly defaulted?: unknown } | null)?.defaulted === true) {
    span.attribute("ask.defaulted", true)
  }
  if (watch.surface !== undefined) span.attribute("ask.surface", watch.surface)
  if (watch.by !== undefined) span.attribute("ask.answerer", watch.by.id)
  span.end(view.spanClock?.currentTimeNanosUnsafe() ?? 0n, exit)
}

/** Published once the seam closes, after its last event: each subscriber's stream ends there. */
const endOfEvents: unique symbol = Symbol.for("effect-user-interaction/endOfEvents")

/** What the seam's `PubSub` carries: the events, then their end. */
export type PublishedEvent = AskEvent | typeof endOfEvents

const isAskEvent = (item: PublishedEvent): item is AskEvent => item !== endOfEvents

/**
 * The event stream of one seam: a sliding `PubSub`, and a count of the
 * streams reading it, so that with nobody listening no event is built.
 */
export class AskEvents {
  subscribers = 0
  #closed = false

  /**
   * A stream of the events from this moment on, to run within the scope; it
   * ends after the last event once the seam closes. A subscription made
   * after that is empty.
   */
  readonly subscribe: Effect.Effect<Stream.Stream<AskEvent>, never, Scope.Scope>
  /** The events from the moment the stream runs; as `subscribe`. */
  readonly stream: Stream.Stream<AskEvent>

  constructor(readonly pubsub: PubSub.PubSub<PublishedEvent>) {
    this.subscribe = Effect.gen({ self: this }, function*() {
      const subscription = yield* PubSub.subscribe(this.pubsub)
      yield* Effect.acquireRelease(
        Effect.sync(() => void this.subscribers++),
        () => Effect.sync(() => void this.subscribers--)
      )
      // Checked once subscribed: a seam that closes from here on publishes its end to this subscription.
      if (this.#closed) return Stream.empty
      return Stream.fromSubscription(subscription).pipe(Stream.takeWhile(isAskEvent))
    })
    this.stream = Stream.unwrap(this.subscribe)
  }

  /** Events of this scheduler round, not yet in the `PubSub`. */
  #queued: Array<PublishedEvent> = []

  /**
   * Queues the event without suspending; the round's events go to the
   * `PubSub` together on the asking fiber's scheduler, as Effect's `Latch`
   * wakes its waiters. Offered one by one, each event would resume every
   * subscriber on the spot, which cost an ask more than the ask itself.
   */
  publish(event: AskEvent, fiber: FiberView): void {
    if (this.#queued.push(event) === 1) fiber.currentDispatcher.scheduleTask(this.flush, 0)
  }

  /**
   * Publishes the queued events, then the end, so that every subscriber
   * reads what was published before the seam closed and its stream ends;
   * a `PubSub` shut down would drop what a subscriber had not read yet.
   */
  close(): void {
    this.#closed = true
    this.#queued.push(endOfEvents)
    this.flush()
  }

  /**
   * Publishes the queued events. A full buffer means a subscriber is behind:
   * its oldest events are dropped, as a sliding `PubSub` does, rather than wait.
   */
  readonly flush = (): void => {
    const batch = this.#queued
    if (batch.length === 0) return
    this.#queued = []
    const events = this.pubsub
    for (const event of events.pubsub.publishAll(batch)) {
      events.pubsub.slide()
      events.pubsub.publish(event)
    }
    events.strategy.completeSubscribersUnsafe(events.pubsub, events.subscribers)
  }
}

/**
 * The tracer an ask makes its span with: none when tracing is off or the
 * tracer is Effect's default one, which keeps its spans in memory and
 * exports them nowhere (closing 100,000 asks would make 100,000 spans that
 * nobody sees).
 */
const spanTracer = (context: Context.Context<never>): Tracer.Tracer | undefined => {
  if (!Context.get(context, References.TracerEnabled)) return undefined
  const tracer = Context.get(context, Tracer.Tracer)
  return tracer === Tracer.nativeTracer ? undefined : tracer
}

/**
 * One ask's report in the making; the seam's pending ask extends it, so that
 * watching adds no object per ask. It keeps only what is needed while the ask
 * is pending: the id is made, and the span recorded, when first needed.
 */
export class AskWatch {
  /** What the ask takes from its caller's context, which does not change while it runs. */
  readonly view: ContextView
  /** When the ask started by the span's clock, in nanos; 0 without one, as Effect's untimed spans. */
  readonly startTime: bigint
  /** Clock millis when the ask reached a provider; undefined before. */
  reachedAt: number | undefined
  /** The surface that settled the ask; undefined when the seam ended it. */
  surface: string | undefined
  /** Who settled the ask, when its surface said. */
  by: Answerer | undefined
  /** Clock millis when the ask settled after reaching a provider; undefined before. */
  settledAt: number | undefined
  #id: string | undefined

  constructor(
    readonly request: AskUserQuestionRequest,
    readonly events: AskEvents,
    readonly caller: FiberView,
    views: ContextViews
  ) {
    this.view = views.of(caller.context)
    this.startTime = this.view.spanClock?.currentTimeNanosUnsafe() ?? 0n
  }

  /** The request's `id`, else one made for this ask. */
  get id(): string {
    return this.#id ??= askIdOf(this.request)
  }

  /** The ask reached a provider: count it pending and publish `Asked`. */
  asked(): void {
    const fiber = this.caller
    const now = this.view.clock.currentTimeMillisUnsafe()
    this.reachedAt = now
    metrics.pending.modifyUnsafe(1, fiber.context)
    if (this.events.subscribers > 0) {
      this.events.publish({ _tag: "Asked", id: this.id, request: askedRequest(this.request), at: new Date(now) }, fiber)
    }
  }

  /**
   * The ask ended: record its span and metrics, and publish `Settled` if it
   * was `Asked`. Returns no effect, so the seam's exit hook runs nothing after.
   */
  settled(exit: Exit.Exit<unknown, unknown>): undefined {
    const fiber = this.caller
    const outcome = outcomeOf(exit)
    recordSpan(this, exit, outcome)
    askCounter(outcome).modifyUnsafe(1, fiber.context)
    if (this.reachedAt === undefined) return
    const now = this.settledAt = this.view.clock.currentTimeMillisUnsafe()
    const millis = now - this.reachedAt
    metrics.pending.modifyUnsafe(-1, fiber.context)
    metrics.answerMillis.updateUnsafe(millis, fiber.context)
    if (this.events.subscribers === 0) return
    const event: { -readonly [K in keyof Settled]: Settled[K] } = { _tag: "Settled", id: this.id, outcome, millis, at: new Date(now) }
    if (this.surface !== undefined) event.surface = this.surface
    if (this.by !== undefined) event.by = this.by
    this.events.publish(event, fiber)
  }

  /**
   * The receipt of an ask this watch saw answered: call it once the ask has
   * settled. `defaulted` when the answer was the recommended options taken
   * on timeout, which nobody gave.
   */
  receipt(defaulted: boolean): AskReceipt {
    const at = this.settledAt ?? this.view.clock.currentTimeMillisUnsafe()
    // In the contract's order, for whoever prints it as JSON.
    return {
      ...(this.surface === undefined ? {} : { surface: this.surface }),
      ...(this.by === undefined ? {} : { by: this.by }),
      at: new Date(at),
      millis: at - (this.reachedAt ?? at),
      ...(defaulted ? { defaulted: true } : {})
    }
  }
}

/** The asking fiber: its clock and its metric registry. */
type FiberView = Fiber.Fiber<any, any>

/**
 * The request as `Asked` carries it: the fields of `AskedRequest`, without the
 * signal. Built field by field: a rest copy took several times as long.
 */
const askedRequest = ({ questions, agent, id }: AskUserQuestionRequest): AskedRequest =>
  agent === undefined
    ? id === undefined ? { questions } : { questions, id }
    : id === undefined ? { questions, agent } : { questions, agent, id }
