/**
 * What the seam reports about each ask, for dashboards, audit logs and
 * operators: `Asked` when an ask reaches a provider, `Settled` when it ends,
 * with how it ended, on which surface and after how long.
 *
 * ```ts
 * UserInteraction.events.pipe(
 *   Stream.runForEach((event) => Console.log(event._tag, event.id))
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Answerer } from "./Answerer.js"
import { Agent, AskUserQuestionItem } from "./AskUserQuestion.js"
import { errorCodes } from "./UserInteractionError.js"

/**
 * How an ask ended: `"answered"`, or the code of the error it failed with.
 * An ask whose caller was interrupted counts as `"ASK_ABORTED"`.
 *
 * @since 0.2.0
 */
export const AskOutcome = Schema.Literals(["answered", ...errorCodes]).annotate({ identifier: "AskOutcome" })

/** @since 0.2.0 */
export type AskOutcome = typeof AskOutcome.Type

/**
 * The request as an event carries it: the caller's request without its
 * `signal`, which is neither data nor serializable.
 *
 * @since 0.2.0
 */
export const AskedRequest = Schema.Struct({
  questions: Schema.Array(AskUserQuestionItem),
  agent: Schema.optionalKey(Agent),
  id: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AskedRequest" })

/** @since 0.2.0 */
export type AskedRequest = typeof AskedRequest.Type

/**
 * An ask reached a provider. `id` is the request's `id`, or one the seam
 * generated for it.
 *
 * @since 0.2.0
 */
export const Asked = Schema.TaggedStruct("Asked", {
  id: Schema.String,
  request: AskedRequest,
  at: Schema.Date
}).annotate({ identifier: "Asked" })

/** @since 0.2.0 */
export type Asked = typeof Asked.Type

/**
 * An ask that reached a provider ended. `surface` is the `name` of the
 * provider (for a fan-out, of the member) that settled it, absent when the
 * seam ended it (timeout, abort, a closed provider) or the provider has no
 * name; `by` is who settled it when the surface could say (an answer, a
 * cancel, a decline); `millis` runs from `Asked` to now.
 *
 * @since 0.2.0
 */
export const Settled = Schema.TaggedStruct("Settled", {
  id: Schema.String,
  outcome: AskOutcome,
  surface: Schema.optionalKey(Schema.String),
  by: Schema.optionalKey(Answerer),
  millis: Schema.Number,
  at: Schema.Date
}).annotate({ identifier: "Settled" })

/** @since 0.2.0 */
export type Settled = typeof Settled.Type

/**
 * One event of `UserInteraction.events`.
 *
 * @since 0.2.0
 */
export const AskEvent = Schema.Union([Asked, Settled]).annotate({ identifier: "AskEvent" })

/** @since 0.2.0 */
export type AskEvent = typeof AskEvent.Type
