/**
 * The web provider's state: the asks waiting for an answer, keyed by an id the
 * server mints, and the live event subscribers (one queue per open
 * `GET /api/events`). Each listing and each subscriber sees only the asks its
 * answerer may settle (`shows`), so an ask is never shown to someone whose
 * answer would be refused.
 *
 * Plain mutable state, as in the seam: every change (registering an ask,
 * settling it, subscribing) is one synchronous step, so "the first valid
 * answer wins" needs no lock, and a subscriber's replay and its live events
 * cannot miss or repeat an ask.
 *
 * @internal
 */
import { randomUUID } from "node:crypto"
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { Answerer } from "../Answerer.js"
import type { Agent, AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { ProviderClosed, type UserInteractionError } from "../UserInteractionError.js"
import type { ProviderAnswer } from "../UserInteractionProvider.js"
import type { WebClaim as Claim } from "./WebClaims.js"

/** How an ask left the table, as the `resolved` event reports it. */
export type Outcome = "answered" | "cancelled" | "aborted" | "timeout" | "closed"

/** A request as the page sees it: no signal, nothing but data. */
export interface WireRequest {
  readonly questions: ReadonlyArray<AskUserQuestionItem>
  readonly agent?: Agent
}

/** One pending ask as `GET /api/questions` and the `asked` event carry it. */
export interface PendingView {
  readonly id: string
  readonly request: WireRequest
  readonly askedAt: string
  /** The ask's own id (its request's `id`), when it has one: a link to the page names it as `#ask=<id>`. */
  readonly askId?: string
  /** When it stops waiting, when that is known (its `timeout`, or what the provider was told): the page shows the time left. */
  readonly expiresAt?: string
  /** Who is answering it, while they hold a claim (only in a listing; a stream says `claimed`). */
  readonly claim?: WireClaim
}

/** A claim as the page sees it: who holds it, and until when (by the claims' own clock). */
export interface WireClaim {
  readonly by: Answerer
  readonly until: string
}

/**
 * Where another surface settled an ask (`surface` is its name, `where` how
 * people read it: "the terminal"; `settled` is that surface's outcome,
 * `answered` or an error code, while this entry itself resolves `aborted`).
 */
export interface Elsewhere {
  readonly surface: string
  readonly where: string
  readonly settled: string
}

/** What `GET /api/events` streams. */
export type WebEvent =
  | { readonly event: "asked"; readonly data: PendingView }
  | { readonly event: "resolved"; readonly data: { readonly id: string; readonly outcome: Outcome } & Partial<Elsewhere> }
  /** Someone holds a claim on the ask (sent when the holder changes, and after its `asked` on a replay). */
  | { readonly event: "claimed"; readonly data: { readonly id: string } & WireClaim }
  /** The claim on a still-pending ask ended (released, or lapsed). */
  | { readonly event: "released"; readonly data: { readonly id: string } }
  /**
   * The last event of every stream: the provider is closing (`unanswered`: asks
   * withdrawn unanswered while it ran: timed out, given up by the agent, closed;
   * `cancelled`: asks a person cancelled or declined, here or on another surface).
   */
  | { readonly event: "closing"; readonly data: Closing }

/** What the `closing` event says of the provider's run. */
export interface Closing {
  readonly unanswered: number
  readonly cancelled: number
}

/** A pending ask: its view, the request to judge answers against, and the wait. */
export interface Entry {
  readonly view: PendingView
  readonly request: AskUserQuestionRequest
  readonly answer: Deferred.Deferred<ProviderAnswer, UserInteractionError>
}

/** Which asks one answerer is shown: those whose request's `answerableBy` allows it. */
export type Shows = (request: Pick<AskUserQuestionRequest, "answerableBy">) => boolean

const showsAll: Shows = () => true

/** One open event stream, and what its answerer is shown. */
interface Subscriber {
  readonly queue: Queue.Queue<WebEvent, Cause.Done>
  readonly shows: Shows
}

/** The table and its subscribers. */
export interface PendingTable {
  /** Adds an ask (the wait exists before `asked` is broadcast); undefined once closed. */
  readonly register: (request: AskUserQuestionRequest, askedAt: Date, expiresAt?: Date) => Entry | undefined
  /** The pending entry with this id, if it is still pending. */
  readonly lookup: (id: string) => Entry | undefined
  /** Snapshot of everything pending that `shows` lets through (everything by default), oldest first, each with its claim. */
  readonly list: (shows?: Shows) => ReadonlyArray<PendingView>
  /** Every pending entry, oldest first. */
  readonly entries: () => ReadonlyArray<Entry>
  /** The claim held on a pending entry, if any. */
  readonly claimOf: (entry: Entry) => Claim | undefined
  /**
   * Records who holds a claim on a pending entry (`undefined`: nobody), and
   * tells the streams shown it when the holder changes (`claimed`) or the
   * claim ends (`released`); a renewal only moves `until`. Nothing for an
   * entry no longer pending.
   */
  readonly setClaim: (entry: Entry, claim: Claim | undefined) => void
  /**
   * Settles an entry once: false when something settled it first. `exit` is
   * what the provider's ask ends with (an answer, a cancel); without it a
   * `closed` entry fails `ProviderClosed` and other outcomes leave nobody waiting.
   */
  readonly settle: (
    entry: Entry,
    outcome: Outcome,
    exit?: Exit.Exit<ProviderAnswer, UserInteractionError>,
    elsewhere?: Elsewhere
  ) => boolean
  /**
   * A live event stream that starts by replaying every pending ask as
   * `asked`: the `asked` and `resolved` events of the asks `shows` lets
   * through (all by default), and the `closing` event.
   */
  readonly events: (shows?: Shows) => Stream.Stream<WebEvent>
  /** Settles everything `closed` and refuses new asks and answers; event streams stay open. */
  readonly close: Effect.Effect<void>
  /**
   * Sends the `closing` event and ends every event stream (a stream opened
   * later gets the event and ends at once). Run after `close`, once the
   * requests already sent are answered.
   */
  readonly endStreams: Effect.Effect<void>
  /** True once `close` ran. */
  readonly isClosed: () => boolean
  /** How many event streams are open (for tests and shutdown checks). */
  readonly subscribers: () => number
}

/**
 * Whether an ask left the table withdrawn, not decided by a person: the agent
 * gave up, it timed out, or the provider closed. A fan-out loser (`aborted`
 * with `elsewhere`) was decided on another surface.
 */
const isWithdrawn = (outcome: Outcome, elsewhere: Elsewhere | undefined) =>
  outcome === "timeout" || outcome === "closed" || (outcome === "aborted" && elsewhere === undefined)

const wireRequest = (request: AskUserQuestionRequest): WireRequest =>
  request.agent === undefined
    ? { questions: request.questions }
    : { questions: request.questions, agent: request.agent }

/** A claim as JSON carries it. */
export const wireClaim = ({ by, until }: Claim): WireClaim => ({
  by: by.name === undefined ? { id: by.id } : { id: by.id, name: by.name },
  until: until.toISOString()
})

const exitFor = (outcome: Outcome): Exit.Exit<ProviderAnswer, UserInteractionError> | undefined =>
  outcome === "closed"
    ? Exit.fail(new ProviderClosed({ message: "The web provider closed before an answer arrived." }))
    // answered and cancelled carry their own exit (with who did it); aborted and timeout mean nobody waits any more.
    : undefined

/** Makes an empty table. */
export const makePendingTable = (): PendingTable => {
  const pending = new Map<string, Entry>()
  /** The claims held on pending entries, by entry id. */
  const claims = new Map<string, Claim>()
  const subscribers = new Set<Subscriber>()
  let closed = false
  let ended = false
  /**
   * Asks withdrawn unanswered while the provider ran, for the `closing` event.
   * Counted as they settle, not at `close`: the seam interrupts its asks (a
   * timeout, Ctrl+C) before the provider's finalizer runs, so `close` alone
   * would find nothing left and the page would say everything was answered.
   */
  let withdrawn = 0
  /** Asks a person cancelled or declined (in the page, or on another surface of a fan-out). */
  let refused = 0
  /**
   * The same two counts for asks with `answerableBy`, kept with it so each
   * stream's `closing` event counts only the asks it was shown. Only these
   * are kept (and only their `answerableBy`): an ask without is shown to everyone.
   */
  const restricted: Array<{ readonly answerableBy: ReadonlyArray<string>; readonly withdrawn: boolean }> = []

  /** Sends `event` to every stream, or, for the event of an ask, to those shown `request`. */
  const broadcast = (event: WebEvent, request?: AskUserQuestionRequest) => {
    for (const { queue, shows } of subscribers) if (request === undefined || shows(request)) Queue.offerUnsafe(queue, event)
  }

  const register = (request: AskUserQuestionRequest, askedAt: Date, expiresAt?: Date): Entry | undefined => {
    if (closed) return undefined
    const view: PendingView = {
      id: randomUUID(),
      request: wireRequest(request),
      askedAt: askedAt.toISOString(),
      ...(request.id === undefined ? {} : { askId: request.id }),
      ...(expiresAt === undefined ? {} : { expiresAt: expiresAt.toISOString() })
    }
    const entry: Entry = { view, request, answer: Deferred.makeUnsafe() }
    pending.set(view.id, entry)
    broadcast({ event: "asked", data: view }, request)
    return entry
  }

  const settle = (
    entry: Entry,
    outcome: Outcome,
    exit: Exit.Exit<ProviderAnswer, UserInteractionError> | undefined = exitFor(outcome),
    elsewhere?: Elsewhere
  ): boolean => {
    if (pending.get(entry.view.id) !== entry) return false
    pending.delete(entry.view.id)
    claims.delete(entry.view.id)
    const counted = isWithdrawn(outcome, elsewhere)
      ? "withdrawn"
      : outcome === "cancelled" || (elsewhere !== undefined && elsewhere.settled !== "answered")
      ? "refused"
      : undefined
    const answerableBy = entry.request.answerableBy
    if (counted !== undefined && answerableBy !== undefined) {
      restricted.push({ answerableBy, withdrawn: counted === "withdrawn" })
    } else if (counted === "withdrawn") withdrawn++
    else if (counted === "refused") refused++
    broadcast({ event: "resolved", data: { id: entry.view.id, outcome, ...elsewhere } }, entry.request)
    if (exit !== undefined) Deferred.doneUnsafe(entry.answer, exit)
    return true
  }

  const claimed = (entry: Entry, claim: Claim): WebEvent => ({
    event: "claimed",
    data: { id: entry.view.id, ...wireClaim(claim) }
  })

  const setClaim = (entry: Entry, claim: Claim | undefined) => {
    if (pending.get(entry.view.id) !== entry) return
    const before = claims.get(entry.view.id)
    if (claim === undefined) {
      if (before === undefined) return
      claims.delete(entry.view.id)
      broadcast({ event: "released", data: { id: entry.view.id } }, entry.request)
      return
    }
    claims.set(entry.view.id, claim)
    // A renewal is no news to the pages: they show who, not until when.
    if (before?.by.id !== claim.by.id || before.by.name !== claim.by.name) broadcast(claimed(entry, claim), entry.request)
  }

  /** An entry's view with its claim, as a listing shows it. */
  const listed = (entry: Entry): PendingView => {
    const claim = claims.get(entry.view.id)
    return claim === undefined ? entry.view : { ...entry.view, claim: wireClaim(claim) }
  }

  /** The `closing` event for a stream shown what `shows` lets through. */
  const closing = (shows: Shows): WebEvent => {
    const seen = restricted.filter(shows)
    const restrictedWithdrawn = seen.filter((settled) => settled.withdrawn).length
    return {
      event: "closing",
      data: { unanswered: withdrawn + restrictedWithdrawn, cancelled: refused + seen.length - restrictedWithdrawn }
    }
  }

  const events = (shows: Shows = showsAll): Stream.Stream<WebEvent> =>
    Stream.unwrap(
      Effect.acquireRelease(
        Effect.flatMap(Queue.unbounded<WebEvent, Cause.Done>(), (queue) =>
          Effect.sync(() => {
            const subscriber: Subscriber = { queue, shows }
            // One synchronous step: the replay and the subscription see the same table.
            for (const entry of pending.values()) {
              if (!shows(entry.request)) continue
              Queue.offerUnsafe(queue, { event: "asked", data: entry.view })
              const claim = claims.get(entry.view.id)
              if (claim !== undefined) Queue.offerUnsafe(queue, claimed(entry, claim))
            }
            if (ended) {
              Queue.offerUnsafe(queue, closing(shows))
              Queue.endUnsafe(queue)
            } else subscribers.add(subscriber)
            return subscriber
          })),
        (subscriber) => Effect.sync(() => subscribers.delete(subscriber))
      ).pipe(Effect.map((subscriber) => Stream.fromQueue(subscriber.queue)))
    )

  const close = Effect.sync(() => {
    if (closed) return
    closed = true
    for (const entry of Array.from(pending.values())) settle(entry, "closed")
  })

  const endStreams = Effect.sync(() => {
    if (ended) return
    ended = true
    // Tells the page not to reconnect: nothing will ever be asked here again.
    for (const { queue, shows } of subscribers) {
      Queue.offerUnsafe(queue, closing(shows))
      Queue.endUnsafe(queue)
    }
    subscribers.clear()
  })

  return {
    register,
    lookup: (id) => pending.get(id),
    list: (shows = showsAll) => Array.from(pending.values()).flatMap((entry) => shows(entry.request) ? [listed(entry)] : []),
    entries: () => Array.from(pending.values()),
    claimOf: (entry) => pending.get(entry.view.id) === entry ? claims.get(entry.view.id) : undefined,
    setClaim,
    settle,
    events,
    close,
    endStreams,
    isClosed: () => closed,
    subscribers: () => subscribers.size
  }
}
