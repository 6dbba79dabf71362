/**
 * Notification targets: how the human learns that a question waits when no
 * one watches the inbox. A target takes a notice (an ask became pending, is
 * about to expire, or settled) and tells someone: an ntfy topic, a webhook,
 * or this machine's desktop. Notifications are targets, not surfaces: they
 * answer nothing and the ask never waits on them (decision 130).
 *
 * `deliver` is how a notice is sent: each try bounded to 10 s, three tries
 * with backoff, then one warning in the log; it never fails.
 *
 * @since 0.3.0
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { sanitizeLine } from "../internal/sanitize.js"

/**
 * What a notice says happened: the ask became pending, its expiry is near
 * (`--remind`), or it was settled.
 *
 * @since 0.3.0
 */
export type NoticeType = "ask.pending" | "ask.reminder" | "ask.settled"

/**
 * The ask a notice is about: a pending durable ask as `DurableInbox` lists it.
 *
 * @since 0.3.0
 */
export interface NoticeAsk {
  readonly id: string
  readonly request: AskUserQuestionRequest
  readonly askedAt: Date
  readonly expiresAt?: Date | undefined
}

/**
 * One notice for a target: what happened to which ask, the link that opens
 * it (the inbox page's, when there is one) and, for `ask.settled`, how it
 * ended (never the answer itself).
 *
 * @since 0.3.0
 */
export interface Notice {
  readonly type: NoticeType
  readonly ask: NoticeAsk
  readonly link?: string | undefined
  readonly outcome?: "answered" | "cancelled" | "declined" | "expired" | "aborted" | undefined
}

/**
 * A target that could not take a notice: refused, an error status, no
 * answer in time, or no configuration (a missing secret).
 *
 * @since 0.3.0
 */
export class NotifyFailed extends Data.TaggedError("NotifyFailed")<{ readonly message: string }> {}

/**
 * Where notices go. `name` says which target it is in a warning (no token,
 * no secret, no topic or path: `ntfy:https://ntfy.sh/…`); `send` makes one try.
 *
 * @since 0.3.0
 */
export interface NotifyTarget {
  readonly name: string
  /** Which notices it takes (default: all). `ntfy` and `desktop` skip `ask.settled`. */
  readonly accepts?: ((type: NoticeType) => boolean) | undefined
  readonly send: (notice: Notice) => Effect.Effect<void, NotifyFailed>
}

/**
 * How `deliver` persists: `timeout` per try (default 10 s), `tries` in all
 * (default 3), the first wait between tries (`backoff`, default 500 ms,
 * doubling).
 *
 * @since 0.3.0
 */
export interface DeliveryPolicy {
  readonly timeout?: Duration.Input | undefined
  readonly tries?: number | undefined
  readonly backoff?: Duration.Input | undefined
}

/**
 * Sends `notice` to `target`: each try bounded by the policy's timeout,
 * retried with exponential backoff, and when every try failed one warning
 * naming the target and the last reason. It never fails, so a caller forks
 * it and forgets it.
 *
 * @since 0.3.0
 */
export const deliver = (target: NotifyTarget, notice: Notice, policy: DeliveryPolicy = {}): Effect.Effect<void> => {
  if (target.accepts !== undefined && !target.accepts(notice.type)) return Effect.void
  const timeout = policy.timeout ?? "10 seconds"
  const oneTry = target.send(notice).pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(new NotifyFailed({ message: `no answer within ${Duration.format(Duration.fromInputUnsafe(timeout))}` }))
    })
  )
  return Effect.retry(oneTry, {
    schedule: Schedule.exponential(policy.backoff ?? "500 millis"),
    times: Math.max(0, (policy.tries ?? 3) - 1)
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning(
        `Could not notify ${sanitizeLine(target.name)} of the ask "${sanitizeLine(notice.ask.id)}" (${notice.type}): ` +
          `${sanitizeLine(error.message)}. Gave up after ${policy.tries ?? 3} tries.`
      ).pipe(Effect.annotateLogs({ module: "effect-user-interaction/notify" }))
    )
  )
}
