/**
 * What the model-facing tool and the Promise client's
 * `executeAskUserQuestion` share: turning a model's tool arguments into a
 * request (in the order `ask` checks things), and rebuilding an error class
 * from the JSON a model was shown.
 *
 * @internal
 */
import * as Result from "effect/Result"
import type { Agent, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { decodeRequestJson } from "../AskUserQuestionArgs.js"
import { markWellFormed } from "./wellFormed.js"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  AskTimeout,
  DuplicateProvider,
  EmptyQuestions,
  type ErrorArgs,
  type ErrorCode,
  InvalidAnswer,
  InvalidRequest,
  NoProvider,
  ProviderClosed,
  ProviderFailed,
  AskNotPending,
  UnknownAsk,
  NotAuthorized,
  AskClaimed,
  type UserInteractionError
} from "../UserInteractionError.js"

/** What the caller of a tool call knows that the model does not. */
export interface ToolCallOptions {
  readonly signal?: AbortSignal | undefined
  readonly agent?: Agent | undefined
  /** Who may answer the asks the tool makes: the harness's choice, never the model's. */
  readonly answerableBy?: ReadonlyArray<string> | undefined
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** What a model may set: the questions, and how long to wait and what the end of that wait means. */
const modelKeys = ["questions", "timeout", "on_timeout", "onTimeout"] as const

/** Keeps only the keys a model may set of an object; anything else is left to fail decoding. */
const pickArgs = (args: unknown): unknown => {
  if (!isRecord(args)) return args
  const picked: Record<string, unknown> = {}
  for (const key of modelKeys) if (Object.hasOwn(args, key)) picked[key] = args[key]
  return picked
}

/**
 * Turns tool arguments into a request: an aborted signal first, then
 * decoding. Only `questions`, `timeout` and `on_timeout` are taken from the
 * model; who asks (`agent`) and how to stop (`signal`) come from the caller,
 * never from model text.
 */
export const requestFromToolArgs = (
  args: unknown,
  options: ToolCallOptions = {}
): Result.Result<AskUserQuestionRequest, AskAborted | InvalidRequest | EmptyQuestions> => {
  if (options.signal?.aborted === true) {
    return Result.fail(new AskAborted({ message: "The ask was aborted by its signal." }))
  }
  const picked = pickArgs(args)
  const input = !isRecord(picked) || (options.agent === undefined && options.answerableBy === undefined)
    ? picked
    : {
      ...picked,
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      ...(options.answerableBy === undefined ? {} : { answerableBy: options.answerableBy })
    }
  const decoded = decodeRequestJson(input)
  if (Result.isFailure(decoded)) return decoded
  const signal = options.signal
  if (signal === undefined) return Result.succeed(markWellFormed(decoded.success))
  const request = { ...decoded.success, signal }
  // A signal that is not one is left for the seam to refuse, naming it.
  return Result.succeed(signal instanceof AbortSignal ? markWellFormed(request) : request)
}

const classes: { readonly [Code in ErrorCode]: new(args?: ErrorArgs) => UserInteractionError } = {
  ASK_ABORTED: AskAborted,
  EMPTY_QUESTIONS: EmptyQuestions,
  INVALID_REQUEST: InvalidRequest,
  NO_PROVIDER: NoProvider,
  DUPLICATE_PROVIDER: DuplicateProvider,
  ASK_CANCELLED: AskCancelled,
  ASK_DECLINED: AskDeclined,
  ASK_TIMEOUT: AskTimeout,
  INVALID_ANSWER: InvalidAnswer,
  PROVIDER_CLOSED: ProviderClosed,
  PROVIDER_FAILED: ProviderFailed,
  ASK_NOT_PENDING: AskNotPending,
  UNKNOWN_ASK: UnknownAsk,
  NOT_AUTHORIZED: NotAuthorized,
  ASK_CLAIMED: AskClaimed
}

/** The error class of `code`, rebuilt with the message the model was shown. */
export const errorFromCode = (code: ErrorCode, message: string): UserInteractionError => new classes[code]({ message })
