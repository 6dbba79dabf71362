/**
 * How `ask-user` ends: the exit status for every outcome of an ask, and the
 * diagnostics printed on stderr when it fails. Every mode of the program
 * (terminal, scripted answers, web, ACP, MCP) maps its failures here, so the
 * statuses cannot drift apart.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as CliError from "effect/cli/CliError"
import * as Data from "effect/Data"
import { sanitizeLine } from "../internal/sanitize.js"
import { HarnessError } from "../UserInteractionError.js"
import { CannotWrite, isBrokenPipe } from "./stdout.js"

/**
 * The exit statuses of `ask-user`.
 *
 * @since 0.1.0
 */
export const ExitCode = {
  /** An answer was printed on stdout. */
  answered: 0,
  /** Any other failure: input closed before an answer, provider failed, … */
  failure: 1,
  /** The request (or a command-line argument) is invalid; nothing was asked. */
  badRequest: 2,
  /** The human cancelled or declined. */
  cancelled: 3,
  /** No answer before `--timeout`. */
  timeout: 4,
  /** `answer`, `cancel`, `decline`: the durable ask was already settled. */
  notPending: 5,
  /** `answer`, `cancel`, `decline`, `status`: no durable ask has this id. */
  unknownAsk: 6,
  /** `answer`, `cancel`, `decline`: the ask's `answerableBy` does not allow this answerer. */
  notAuthorized: 7,
  /** `answer`, `cancel`, `decline`: someone else holds a claim on the ask (`--force` breaks it). */
  askClaimed: 8,
  /** Ctrl+C or SIGINT (128 + 2); other signals end with 128 + their number (see `signals.ts`). */
  interrupted: 130,
  /** stdout's reader has gone (EPIPE): 128 + SIGPIPE, as a shell reports a tool that SIGPIPE ended. */
  brokenPipe: 141
} as const

/** @since 0.1.0 */
export type ExitCode = typeof ExitCode[keyof typeof ExitCode]

const byCode: Record<string, ExitCode> = {
  INVALID_REQUEST: ExitCode.badRequest,
  EMPTY_QUESTIONS: ExitCode.badRequest,
  ASK_CANCELLED: ExitCode.cancelled,
  ASK_DECLINED: ExitCode.cancelled,
  ASK_TIMEOUT: ExitCode.timeout,
  ASK_ABORTED: ExitCode.interrupted,
  ASK_NOT_PENDING: ExitCode.notPending,
  UNKNOWN_ASK: ExitCode.unknownAsk,
  NOT_AUTHORIZED: ExitCode.notAuthorized,
  ASK_CLAIMED: ExitCode.askClaimed
}

/**
 * A failure a command ends with a status of its own: `ask-user answer`
 * exits 2 for `INVALID_ANSWER`, which ends an ask with 1 everywhere else
 * (SPEC: "2 the answer breaks the rules").
 *
 * @since 0.2.0
 */
export class WithExitCode extends Data.TaggedError("WithExitCode")<{
  readonly error: unknown
  readonly exitCode: ExitCode
}> {}

/**
 * The exit status for a failure value (one of the error classes, a CLI parse
 * error, or anything else).
 *
 * @since 0.1.0
 */
export const exitCodeFor = (error: unknown): ExitCode => {
  if (error instanceof WithExitCode) return error.exitCode
  if (error instanceof CannotWrite) return isBrokenPipe(error) ? ExitCode.brokenPipe : ExitCode.failure
  if (error instanceof HarnessError) return byCode[error.code] ?? ExitCode.failure
  // effect/cli's parse errors (unknown flag, bad duration, …): the invocation itself is bad.
  if (CliError.isCliError(error)) return ExitCode.badRequest
  return ExitCode.failure
}

/**
 * The exit status for how the program's main fiber ended: 0 on success, 130
 * when it was only interrupted, else the status of its first failure.
 *
 * @since 0.1.0
 */
export const exitCodeForCause = (cause: Cause.Cause<unknown>): ExitCode =>
  Cause.hasInterruptsOnly(cause) ? ExitCode.interrupted : exitCodeFor(Cause.squash(cause))

/**
 * The one-line diagnostic for a failure, as printed on stderr:
 * `ask-user: ASK_CANCELLED: The human cancelled the request.` Messages quote
 * the request and the answers file (ids, labels, JSON parse errors that echo
 * input bytes), which a model wrote: they are made inert like the prompts.
 * Undefined when the program ends quietly (stdout's reader has gone).
 *
 * @since 0.1.0
 */
export const describeFailure = (error: unknown): string | undefined => {
  if (error instanceof WithExitCode) return describeFailure(error.error)
  if (error instanceof CannotWrite && isBrokenPipe(error)) return undefined
  const message = error instanceof HarnessError
    ? `${error.code}: ${error.message}`
    : error instanceof Error
    ? error.message
    : String(error)
  return `ask-user: ${sanitizeLine(message)}`
}

/**
 * Prints a failure's diagnostic on stderr (never stdout, which carries only
 * the answer JSON).
 *
 * @since 0.1.0
 */
export const printFailure = (error: unknown): void => {
  const line = describeFailure(error)
  if (line !== undefined) process.stderr.write(`${line}\n`)
}
