/**
 * Asks in a Slack channel: each ask is one message with buttons, checkboxes
 * or an "Answer" button opening a modal (see `render.ts`), posted with the
 * Web API (`@slack/web-api`); presses and modal submissions come back over
 * Socket Mode (`@slack/socket-mode`), so no public URL is needed. The SDK
 * reconnects when the socket drops; an ask is posted once, whatever the
 * socket does, and an envelope Slack delivers twice is acknowledged and
 * taken once.
 *
 * ```ts
 * const layer = UserInteraction.layerWith(SlackProvider.layer({
 *   botToken: process.env.SLACK_BOT_TOKEN!, appToken: process.env.SLACK_APP_TOKEN!, channel: "C0123456789"
 * }))
 * ```
 *
 * Whoever presses answers as `slack:<user id>`, with their display name;
 * one the request's `answerableBy` does not allow is told so in a notice
 * only they see (`chat.postEphemeral`) and nothing is recorded. When the
 * ask settles, here or anywhere else (a fan-out's other surface, the durable
 * inbox), the message is updated to say how and by whom, and its controls
 * go; a press on it after that gets the same line as a notice, and so does
 * a press that came just after it settled elsewhere (it passes the ask's
 * `OutcomeGate`, and is not recorded). A secret
 * question is never answered in Slack: its message links to the web inbox
 * (`inboxUrl`), or, without one, the ask fails `PROVIDER_FAILED` before
 * anything is posted.
 *
 * @since 0.3.0
 */
import { SocketModeClient, type Logger, LogLevel } from "@slack/socket-mode"
import { WebClient } from "@slack/web-api"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { type Answerer, answererTitle, isAnswerableBy } from "../Answerer.js"
import { settleFirst } from "../OutcomeGate.js"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import {
  describeSurface,
  interruptionReason,
  type ProviderAnswer,
  settledElsewhere,
  UserInteractionProvider
} from "../UserInteractionProvider.js"
import { NotAuthorized, ProviderClosed, ProviderFailed, type UserInteractionError } from "../UserInteractionError.js"
import { answerModal, askMessage, type Block, escapeText, inertMrkdwn, otherModal, outcomeLine, settledMessage, shapeOf } from "./render.js"
import { interactionOf, type Press, pressAnswer, slackAnswerer, type SlackUser, type Submission, submissionAnswer } from "./replies.js"

/**
 * The claims of whatever keeps the asks (a durable inbox), which a press
 * takes before it answers: of a Slack press and an answer elsewhere at the
 * same moment, one is recorded and the other told. `ask-user inbox --slack`
 * passes the store's claims.
 *
 * @since 0.3.0
 */
export interface SlackClaims {
  /** Claims the ask (named by `request.id`) for `by`; fails when someone else holds it or it is no longer pending. */
  readonly claim: (askId: string, by: Answerer) => Effect.Effect<unknown, UserInteractionError>
  /** Ends `by`'s claim: when the ask ended here between the claim and the answer (the inbox stopping). */
  readonly release?: ((askId: string, by: Answerer) => Effect.Effect<unknown, UserInteractionError>) | undefined
}

/**
 * Options of `SlackProvider.layer`: the bot token (`xoxb-…`, scopes
 * `chat:write` and `users:read`), the app-level token (`xapp-…`, scope
 * `connections:write`) and the channel's id.
 *
 * @since 0.3.0
 */
export interface SlackProviderOptions {
  readonly botToken: string
  readonly appToken: string
  readonly channel: string
  /** The Web API's base URL (default `https://slack.com/api/`): a stand-in's, in tests. */
  readonly apiUrl?: string | undefined
  /** Where secret questions are answered (the web inbox's address); without it they fail `PROVIDER_FAILED`. */
  readonly inboxUrl?: string | undefined
  /** The asks' claims, taken by a press before it answers (see `SlackClaims`). */
  readonly claims?: SlackClaims | undefined
}

/** How people read this surface in "Answered by Ana in Slack.". */
const where = "Slack"

/** How many settled asks' outcomes are kept, to answer late presses. */
const rememberedOutcomes = 1000

/** How long the Socket Mode connection may take to open (the SDK retries `apps.connections.open` meanwhile). */
const startTimeout = "30 seconds"

/** How many envelope ids are kept, to spot one Slack delivers again. */
const rememberedEnvelopes = 1000

/** One ask's message and its wait. */
interface Posted {
  readonly ref: string
  readonly request: AskUserQuestionRequest
  readonly channel: string
  readonly ts: string
  readonly answer: Deferred.Deferred<ProviderAnswer, ProviderClosed>
  /** Who is answering it now (their claim in flight): others are told, not recorded. */
  answering: Answerer | undefined
}

/** An envelope as the Socket Mode client hands it over. */
interface Envelope {
  readonly ack: (response?: Record<string, unknown>) => Promise<void>
  readonly envelope_id?: string | undefined
  readonly body: unknown
}

/** Whether any Slack user could match one of `answerableBy`'s patterns. */
const slackMayAnswer = (request: AskUserQuestionRequest): boolean =>
  request.answerableBy === undefined || request.answerableBy.some((pattern) => pattern === "*" || pattern.startsWith("slack:"))

/** Why a Web API call failed, as Slack says it (`invalid_auth`, `channel_not_found`), never with a token. */
const slackReason = (error: unknown): string => {
  const data = (error as { readonly data?: { readonly error?: unknown } }).data
  if (typeof data?.error === "string") return data.error
  return error instanceof Error ? error.message : String(error)
}

/** A bounded insertion-ordered memory. */
const remember = <V>(map: Map<string, V>, key: string, value: V, max: number): void => {
  map.set(key, value)
  if (map.size > max) map.delete(map.keys().next().value!)
}

/**
 * How an ask's exit reads on its message: who answered here, or where it
 * was settled instead, or why it is no longer asked.
 */
const outcomeOf = (exit: Exit.Exit<ProviderAnswer, unknown>): string => {
  if (Exit.isSuccess(exit)) return outcomeLine("Answered", where, exit.value.by)
  const elsewhere = settledElsewhere(exit.cause)
  if (elsewhere !== undefined) {
    const verb = elsewhere.outcome === "answered" ? "Answered" : elsewhere.outcome === "ASK_DECLINED" ? "Declined" : "Cancelled"
    return outcomeLine(verb, describeSurface(elsewhere.surface), elsewhere.by)
  }
  if (!Cause.hasInterrupts(exit.cause)) return "No longer asked here."
  switch (interruptionReason(exit.cause)) {
    case "timeout":
      return "Nobody answered in time."
    case "closed":
      return "No longer asked here: the Slack connection closed."
    // The agent gave up, or whoever served the ask here stopped (an inbox's Ctrl+C): both read as
    // the caller's interruption, and only "no longer asked here" is true of both.
    default:
      return "No longer asked here."
  }
}

/** The Socket Mode client's log, into Effect's: its warnings and errors (a dropped socket, a failed reconnect). */
const sdkLogger = (warn: (message: string) => void): Logger => ({
  debug: () => undefined,
  info: () => undefined,
  warn: (...parts: Array<unknown>) => warn(parts.map(String).join(" ")),
  error: (...parts: Array<unknown>) => warn(parts.map(String).join(" ")),
  setLevel: () => undefined,
  getLevel: () => LogLevel.WARN,
  setName: () => undefined
})

/**
 * The running Slack provider: its channel and the bot user that posts.
 *
 * @since 0.3.0
 */
export class SlackProvider extends Context.Service<SlackProvider, {
  /** The channel asks are posted in. */
  readonly channel: string
  /** The bot's own user id, from `auth.test`. */
  readonly botUserId: string | undefined
}>()("effect-user-interaction/SlackProvider") {
  /**
   * Checks the bot token (`auth.test`), opens the Socket Mode connection and
   * provides the provider, scoped; fails `ProviderFailed` when Slack refuses
   * either token. Closing the scope ends every pending ask `ProviderClosed`
   * (its message says it is no longer asked here) and closes the socket.
   *
   * @since 0.3.0
   */
  static layer(options: SlackProviderOptions): Layer.Layer<UserInteractionProvider | SlackProvider, ProviderFailed> {
    return Layer.effectContext(Effect.gen(function*() {
      const run = yield* FiberSet.makeRuntime<never, unknown, unknown>()
      const logger = sdkLogger((message) =>
        void run(Effect.logWarning(`Slack: ${message}`).pipe(Effect.annotateLogs({ module: "effect-user-interaction/slack" })))
      )
      const web = new WebClient(options.botToken, {
        ...(options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl }),
        logger,
        timeout: 30_000,
        retryConfig: { retries: 2, factor: 2, minTimeout: 500 }
      })
      const call = (method: string, args: Record<string, unknown>) =>
        Effect.tryPromise({
          try: () => web.apiCall(method, args),
          catch: (error) => new ProviderFailed({ message: `Slack's ${method} failed: ${slackReason(error)}.` })
        })

      const auth = yield* call("auth.test", {})
      const posted = new Map<string, Posted>()
      const settled = new Map<string, string>()
      const envelopes = new Map<string, true>()
      const names = new Map<string, string | undefined>()
      let closed = false

      /** A notice only `user` sees, in the ask's channel: plain text, escaped. */
      const notice = (user: string, channel: string, text: string) =>
        call("chat.postEphemeral", {
          channel,
          user,
          text: inertMrkdwn(text),
          blocks: [{ type: "section", text: { type: "plain_text", text: escapeText(text), emoji: false } }]
        }).pipe(Effect.catch((error) => Effect.logWarning(error.message)), Effect.asVoid)

      /** The answerer a Slack user is, with their display name (`users.info`), else the name in the payload. */
      const answererFor = (user: SlackUser) =>
        Effect.gen(function*() {
          if (!names.has(user.id)) {
            const info = yield* Effect.result(call("users.info", { user: user.id }))
            const profile = Result.isSuccess(info)
              ? info.success as { readonly user?: { readonly name?: string; readonly real_name?: string; readonly profile?: { readonly display_name?: string; readonly real_name?: string } } }
              : {}
            const name = [profile.user?.profile?.display_name, profile.user?.profile?.real_name, profile.user?.real_name, profile.user?.name]
              .find((candidate) => typeof candidate === "string" && candidate.trim() !== "")
            // A failed look-up is not remembered: the next press tries again.
            if (Result.isSuccess(info)) remember(names, user.id, name, rememberedOutcomes)
            return slackAnswerer(user, name)
          }
          return slackAnswerer(user, names.get(user.id))
        })

      /** Late, or for an ask of another run: the line its message ends with, if this process knows it. */
      const gone = (ref: string, user: string, channel: string | undefined) =>
        notice(user, channel ?? options.channel, settled.get(ref) ?? "This question is no longer asked here.")

      /**
       * Settles `entry` with `answer` given `by`: unless someone else is
       * answering it, or (with claims) the keeper of the asks refuses the claim.
       */
      const settle = (entry: Posted, answer: AskUserQuestionAnswer, by: Answerer, user: string) =>
        Effect.gen(function*() {
          // Ended while this press was read (its presser looked up): told as a late press is.
          if (!posted.has(entry.ref)) return yield* gone(entry.ref, user, entry.channel)
          if (entry.answering !== undefined) {
            return yield* notice(user, entry.channel, `${answererTitle(entry.answering)} is answering this question.`)
          }
          entry.answering = by
          const askId = entry.request.id
          if (options.claims !== undefined && askId !== undefined) {
            const claimed = yield* Effect.result(options.claims.claim(askId, by))
            if (Result.isFailure(claimed)) {
              entry.answering = undefined
              return yield* notice(user, entry.channel, `Not recorded: ${claimed.failure.message}`)
            }
          }
          if (yield* Deferred.succeed(entry.answer, { ...answer, by })) return
          // Ended meanwhile: the claim would hold the ask from everyone else for nothing.
          if (options.claims?.release !== undefined && askId !== undefined) {
            yield* Effect.ignore(options.claims.release(askId, by))
          }
          yield* gone(entry.ref, user, entry.channel)
        })

      /** Whether `by` may answer `entry`; when not, they are told so. */
      const mayAnswer = (entry: Posted, by: Answerer, user: string) =>
        isAnswerableBy(entry.request.answerableBy, by)
          ? Effect.succeed(true)
          : Effect.as(notice(user, entry.channel, "You may not answer this question: it asks someone else. Nothing was recorded."), false)

      const openView = (press: Press, view: Block) =>
        press.triggerId === undefined
          ? Effect.void
          : call("views.open", { trigger_id: press.triggerId, view }).pipe(
            Effect.catch((error) => Effect.logWarning(error.message)),
            Effect.asVoid
          )

      const onPress = (press: Press) =>
        Effect.gen(function*() {
          // A checkbox ticked (read again at Submit) or the link to the web inbox followed: nothing to do.
          if (press.control === "checks" || press.control === "inbox") return
          const entry = posted.get(press.ref)
          if (entry === undefined) return yield* gone(press.ref, press.user.id, press.channel)
          const by = yield* answererFor(press.user)
          if (!(yield* mayAnswer(entry, by, press.user.id))) return
          switch (press.control) {
            case "other":
              return yield* openView(press, otherModal(entry.request, entry.ref))
            case "answer":
              return yield* openView(press, answerModal(entry.request, entry.ref))
            default: {
              const answer = pressAnswer(entry.request, press)
              if (answer === undefined) {
                return yield* notice(press.user.id, entry.channel, "Choose at least one option first, or use Other….")
              }
              return yield* settle(entry, answer, by, press.user.id)
            }
          }
        })

      const onSubmission = (submission: Submission, ack: (response?: Record<string, unknown>) => Effect.Effect<void>) =>
        Effect.gen(function*() {
          const entry = posted.get(submission.ref)
          if (entry === undefined) {
            yield* ack()
            return yield* gone(submission.ref, submission.user.id, undefined)
          }
          const answer = submissionAnswer(entry.request, submission)
          // Slack shows each error under its field and keeps the modal open.
          if (Result.isFailure(answer)) return yield* ack({ response_action: "errors", errors: answer.failure })
          yield* ack()
          const by = yield* answererFor(submission.user)
          if (!(yield* mayAnswer(entry, by, submission.user.id))) return
          yield* settle(entry, answer.success, by, submission.user.id)
        })

      const onEnvelope = (envelope: Envelope) => {
        const ack = (response?: Record<string, unknown>) =>
          Effect.promise(() => envelope.ack(response).catch(() => undefined))
        const id = envelope.envelope_id
        // Slack delivers an envelope again when its ack did not arrive in time: acknowledged, taken once.
        if (id !== undefined && envelopes.has(id)) return ack()
        if (id !== undefined) remember(envelopes, id, true, rememberedEnvelopes)
        const interaction = interactionOf(envelope.body)
        if (interaction === undefined) return ack()
        if (interaction._tag === "Submission") return onSubmission(interaction, ack)
        return Effect.andThen(ack(), onPress(interaction))
      }

      const socket = new SocketModeClient({
        appToken: options.appToken,
        logger,
        ...(options.apiUrl === undefined ? {} : { clientOptions: { slackApiUrl: options.apiUrl } })
      })
      socket.on("interactive", (envelope: Envelope) => void run(onEnvelope(envelope)))
      // Added before the start, so a start that fails or hangs leaves no socket or retry behind.
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => socket.disconnect()).pipe(
          Effect.timeoutOption("5 seconds"),
          Effect.andThen(Effect.sync(() => socket.removeAllListeners()))
        )
      )
      yield* Effect.tryPromise({
        try: () => socket.start(),
        catch: (error) => new ProviderFailed({ message: `Slack's Socket Mode connection failed: ${slackReason(error)}.` })
      }).pipe(Effect.timeoutOrElse({
        duration: startTimeout,
        orElse: () => Effect.fail(new ProviderFailed({ message: "Slack's Socket Mode connection did not open within 30 seconds." }))
      }))

      /** Replaces the ask's message with how it ended, without its controls. */
      const finish = (entry: Posted, exit: Exit.Exit<ProviderAnswer, unknown>) =>
        Effect.suspend(() => {
          posted.delete(entry.ref)
          const outcome = outcomeOf(exit)
          remember(settled, entry.ref, outcome, rememberedOutcomes)
          const message = settledMessage(entry.request, outcome, Exit.isSuccess(exit) ? exit.value : undefined)
          // Pressed, but settled elsewhere first: the presser is told their press was not recorded.
          const lost = Exit.isFailure(exit) && Deferred.isDoneUnsafe(entry.answer) && entry.answering !== undefined &&
              settledElsewhere(exit.cause) !== undefined
            ? notice(entry.answering.id.slice("slack:".length), entry.channel, `Not recorded: ${outcome}`)
            : Effect.void
          return call("chat.update", { channel: entry.channel, ts: entry.ts, text: message.text, blocks: message.blocks }).pipe(
            Effect.timeoutOption("10 seconds"),
            Effect.catch((error) => Effect.logWarning(error.message)),
            Effect.andThen(lost),
            Effect.asVoid
          )
        })

      const ask: UserInteractionProvider["Service"]["ask"] = (request) =>
        Effect.suspend((): Effect.Effect<ProviderAnswer, UserInteractionError> => {
          if (closed) return Effect.fail(new ProviderClosed({ message: "The Slack provider is closed." }))
          // SPEC "Answerers": a surface shows an ask only where someone may settle it.
          if (!slackMayAnswer(request)) {
            return Effect.fail(new NotAuthorized({ message: "No Slack user may settle this ask: its answerableBy names no slack: answerer." }))
          }
          if (shapeOf(request) === "inbox" && options.inboxUrl === undefined) {
            return Effect.fail(new ProviderFailed({
              message: "A secret question cannot be answered in Slack, and the Slack provider has no inboxUrl to link to; nothing was posted."
            }))
          }
          // Posting is not interrupted halfway (the Web API call has its own timeout): a message
          // that went out is always tracked, and updated once the ask ends.
          return Effect.uninterruptibleMask((restore) =>
            Effect.gen(function*() {
              const ref = crypto.randomUUID().replace(/-/g, "")
              const message = askMessage(request, ref, options.inboxUrl)
              const result = yield* call("chat.postMessage", { channel: options.channel, text: message.text, blocks: message.blocks })
              const { channel, ts } = result as { readonly channel?: string; readonly ts?: string }
              if (typeof ts !== "string") return yield* Effect.fail(new ProviderFailed({ message: "Slack's chat.postMessage returned no ts." }))
              const entry: Posted = {
                ref,
                request,
                channel: channel ?? options.channel,
                ts,
                answer: yield* Deferred.make<ProviderAnswer, ProviderClosed>(),
                answering: undefined
              }
              posted.set(ref, entry)
              // A press counts once through the ask's gate; one that lost to an answer elsewhere is told in `finish`.
              return yield* restore(Deferred.await(entry.answer).pipe(settleFirst("slack"))).pipe(
                Effect.onExit((exit) => finish(entry, exit))
              )
            })
          )
        })

      // The seam interrupts its pending asks before this runs; this covers direct use of the provider.
      yield* Effect.addFinalizer(() =>
        Effect.suspend(() => {
          closed = true
          const error = new ProviderClosed({ message: "The Slack provider closed while the question was open." })
          return Effect.forEach(Array.from(posted.values()), (entry) => Deferred.fail(entry.answer, error), { discard: true })
        })
      )

      const botUserId = (auth as { readonly user_id?: string }).user_id
      return Context.make(UserInteractionProvider, UserInteractionProvider.of({ ask, name: "slack" })).pipe(
        Context.add(SlackProvider, SlackProvider.of({ channel: options.channel, botUserId }))
      )
    }))
  }
}
