/**
 * The failures of an ask: one tagged class per outcome, each with a stable
 * `code`, so Effect code can `catchTag` and Promise-world tool runners that keep
 * `{ name, code }` of a thrown error route it unchanged.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import { NodeInspectSymbol } from "effect/Inspectable"

/**
 * What every error class accepts: an optional message (each class has a
 * default) and an optional cause.
 *
 * @since 0.1.0
 */
export interface ErrorArgs {
  readonly message?: string | undefined
  readonly cause?: unknown
}

/**
 * The abstract base of every error this package fails with.
 *
 * @since 0.1.0
 */
export abstract class HarnessError extends Data.Error<{ readonly message: string; readonly cause?: unknown }> {
  /** The tag used by `Effect.catchTag`. */
  abstract readonly _tag: string
  /** The stable, machine-readable code. */
  abstract readonly code: string
  constructor(args: ErrorArgs | undefined, defaultMessage: string) {
    super(
      args?.cause === undefined
        ? { message: args?.message ?? defaultMessage }
        : { message: args.message ?? defaultMessage, cause: args.cause }
    )
  }
  /** The shape a model or a JSON log sees. */
  override toJSON(): { readonly name: string; readonly code: string; readonly message: string } {
    return { name: this.name, code: this.code, message: this.message }
  }
  /**
   * What `console.log` and `util.inspect` show: that shape and, for whoever
   * debugs a `PROVIDER_FAILED`, the cause with its stack (as Effect's own
   * errors show theirs). The cause never reaches a model: it is not in `toJSON`.
   */
  override [NodeInspectSymbol](): unknown {
    return this.cause === undefined ? this.toJSON() : { ...this.toJSON(), cause: this.cause }
  }
}
Object.defineProperty(HarnessError.prototype, "name", { value: "UserInteractionError", writable: true })

/** The request's signal was aborted, or the caller was interrupted (Promise API). @since 0.1.0 */
export class AskAborted extends HarnessError {
  readonly _tag = "AskAborted"
  readonly code = "ASK_ABORTED"
  constructor(args?: ErrorArgs) { super(args, "The ask was aborted.") }
}

/** The request has no questions. @since 0.1.0 */
export class EmptyQuestions extends HarnessError {
  readonly _tag = "EmptyQuestions"
  readonly code = "EMPTY_QUESTIONS"
  constructor(args?: ErrorArgs) { super(args, "The request has no questions.") }
}

/** The request does not decode, or repeats a question id or an option label. @since 0.1.0 */
export class InvalidRequest extends HarnessError {
  readonly _tag = "InvalidRequest"
  readonly code = "INVALID_REQUEST"
  constructor(args?: ErrorArgs) { super(args, "The request is invalid.") }
}

/** No provider is registered when the ask starts. @since 0.1.0 */
export class NoProvider extends HarnessError {
  readonly _tag = "NoProvider"
  readonly code = "NO_PROVIDER"
  constructor(args?: ErrorArgs) { super(args, "No user interaction provider is registered.") }
}

/** A second provider tried to register while one is active. @since 0.1.0 */
export class DuplicateProvider extends HarnessError {
  readonly _tag = "DuplicateProvider"
  readonly code = "DUPLICATE_PROVIDER"
  constructor(args?: ErrorArgs) { super(args, "A user interaction provider is already registered.") }
}

/** The human dismissed the whole request. @since 0.1.0 */
export class AskCancelled extends HarnessError {
  readonly _tag = "AskCancelled"
  readonly code = "ASK_CANCELLED"
  constructor(args?: ErrorArgs) { super(args, "The human cancelled the request.") }
}

/** The human explicitly refused to answer. @since 0.1.0 */
export class AskDeclined extends HarnessError {
  readonly _tag = "AskDeclined"
  readonly code = "ASK_DECLINED"
  constructor(args?: ErrorArgs) { super(args, "The human declined to answer.") }
}

/** The host's configured timeout passed before an answer. @since 0.1.0 */
export class AskTimeout extends HarnessError {
  readonly _tag = "AskTimeout"
  readonly code = "ASK_TIMEOUT"
  constructor(args?: ErrorArgs) { super(args, "No answer arrived before the timeout.") }
}

/** The provider's answer breaks the answer rules. @since 0.1.0 */
export class InvalidAnswer extends HarnessError {
  readonly _tag = "InvalidAnswer"
  readonly code = "INVALID_ANSWER"
  constructor(args?: ErrorArgs) { super(args, "The provider's answer breaks the answer rules.") }
}

/** The provider closed while the ask was pending and no successor took it over. @since 0.1.0 */
export class ProviderClosed extends HarnessError {
  readonly _tag = "ProviderClosed"
  readonly code = "PROVIDER_CLOSED"
  constructor(args?: ErrorArgs) { super(args, "The provider closed before answering.") }
}

/** The provider failed in any other way; `cause` keeps the original. @since 0.1.0 */
export class ProviderFailed extends HarnessError {
  readonly _tag = "ProviderFailed"
  readonly code = "PROVIDER_FAILED"
  constructor(args?: ErrorArgs) { super(args, "The provider failed.") }
}

/** A durable ask was already settled (answered, cancelled, declined, expired or withdrawn); the message says how. @since 0.2.0 */
export class AskNotPending extends HarnessError {
  readonly _tag = "AskNotPending"
  readonly code = "ASK_NOT_PENDING"
  constructor(args?: ErrorArgs) { super(args, "The ask is no longer pending.") }
}

/** No durable ask has this id. @since 0.2.0 */
export class UnknownAsk extends HarnessError {
  readonly _tag = "UnknownAsk"
  readonly code = "UNKNOWN_ASK"
  constructor(args?: ErrorArgs) { super(args, "No ask has this id.") }
}

/**
 * An answer, cancel or decline came from an answerer the request's
 * `answerableBy` does not allow (or from one no surface could name); the
 * ask stays pending.
 *
 * @since 0.3.0
 */
export class NotAuthorized extends HarnessError {
  readonly _tag = "NotAuthorized"
  readonly code = "NOT_AUTHORIZED"
  constructor(args?: ErrorArgs) { super(args, "This answerer may not settle the ask.") }
}

/**
 * Someone else holds a claim on the durable ask (the message names the
 * holder and until when); the ask stays pending.
 *
 * @since 0.3.0
 */
export class AskClaimed extends HarnessError {
  readonly _tag = "AskClaimed"
  readonly code = "ASK_CLAIMED"
  constructor(args?: ErrorArgs) { super(args, "Someone else is answering the ask.") }
}

/**
 * Any failure of an ask.
 *
 * @since 0.1.0
 */
export type UserInteractionError =
  | AskAborted
  | EmptyQuestions
  | InvalidRequest
  | NoProvider
  | DuplicateProvider
  | AskCancelled
  | AskDeclined
  | AskTimeout
  | InvalidAnswer
  | ProviderClosed
  | ProviderFailed
  | AskNotPending
  | UnknownAsk
  | NotAuthorized
  | AskClaimed

/**
 * Every stable error code, in the order of the contract's table.
 *
 * @since 0.1.0
 */
export const errorCodes = [
  "ASK_ABORTED",
  "EMPTY_QUESTIONS",
  "INVALID_REQUEST",
  "NO_PROVIDER",
  "DUPLICATE_PROVIDER",
  "ASK_CANCELLED",
  "ASK_DECLINED",
  "ASK_TIMEOUT",
  "INVALID_ANSWER",
  "PROVIDER_CLOSED",
  "PROVIDER_FAILED",
  "ASK_NOT_PENDING",
  "UNKNOWN_ASK",
  "NOT_AUTHORIZED",
  "ASK_CLAIMED"
] as const

/** @since 0.1.0 */
export type ErrorCode = (typeof errorCodes)[number]

/**
 * True for any error of this package.
 *
 * @since 0.1.0
 */
export const isUserInteractionError = (u: unknown): u is UserInteractionError => u instanceof HarnessError
