/**
 * The root command of `ask-user`: read a request from FILE or stdin, ask it
 * through the provider the flags choose, print the answer JSON on stdout.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { readFile } from "node:fs/promises"
import { text } from "node:stream/consumers"
import { type AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { decodeRequestJson } from "../AskUserQuestionArgs.js"
import { invalidRequestFrom } from "../internal/schemaPath.js"
import { UserInteraction } from "../UserInteraction.js"
import { InvalidRequest, type UserInteractionError } from "../UserInteractionError.js"
import { askAndPrintAnswer } from "./answerOutput.js"
import type { WithExitCode } from "./exitCodes.js"
import { parseJsonText } from "./jsonText.js"
import { type ProviderContext, providerFor, type ProviderFlags } from "./providerFor.js"
import type { CannotWrite } from "./stdout.js"

/**
 * The parsed flags and argument of the root command.
 *
 * @since 0.1.0
 */
export interface AskConfig extends ProviderFlags {
  readonly file: Option.Option<string>
  /** `--durable` and its flags (`durableCommands.ts`). */
  readonly durable?: boolean | undefined
  readonly store?: Option.Option<string> | undefined
  readonly askId?: Option.Option<string> | undefined
  readonly expires?: Option.Option<Duration.Duration> | undefined
  readonly timeout: Option.Option<Duration.Duration>
  /** `--receipt`: print the answer's receipt beside it. */
  readonly receipt?: boolean | undefined
}

const readSource = (file: Option.Option<string>): Effect.Effect<string, InvalidRequest> =>
  Effect.tryPromise({
    try: () => Option.isSome(file) ? readFile(file.value, "utf8") : text(process.stdin),
    catch: (cause) =>
      new InvalidRequest({
        message: `Cannot read the request from ${Option.getOrElse(file, () => "stdin")}: ${(cause as Error).message}`,
        cause
      })
  })

/**
 * The request file's own `id`, held to the request's rule (1 to 200
 * characters). Only the file's: the tool's arguments, ACP prompts and MCP
 * calls decode without it, so a model never picks an ask's identity
 * (decision 088).
 */
const decodeFileId = Schema.decodeUnknownExit(Schema.Struct({ id: AskUserQuestionRequest.fields.id }))

/**
 * Parses and checks a request from JSON text (a leading byte-order mark is
 * ignored): `InvalidRequest` naming the path, or `EmptyQuestions`. The
 * file's `id` is kept: it is the ask's identity for `--durable`; one that is
 * not 1 to 200 characters is `InvalidRequest`, never dropped.
 *
 * @since 0.1.0
 */
export const parseRequest = (source: string): Effect.Effect<AskUserQuestionRequest, UserInteractionError> =>
  Effect.flatMap(parseJsonText(source, "Invalid request"), (json) =>
    Result.match(decodeRequestJson(json), {
      onFailure: Effect.fail,
      onSuccess: (request) => {
        const id = decodeFileId(json)
        if (Exit.isFailure(id)) return Effect.fail(invalidRequestFrom(id))
        return Effect.succeed(id.value.id === undefined ? request : { ...request, id: id.value.id })
      }
    }))

/**
 * Asks `request` through the provider chosen by `flags` and prints the answer
 * JSON (one line) on stdout, with its receipt when `flags.receipt`.
 *
 * @since 0.1.0
 */
export const askAndPrint = (
  request: AskUserQuestionRequest,
  flags: ProviderFlags & { readonly timeout: Option.Option<Duration.Duration>; readonly receipt?: boolean | undefined },
  context: ProviderContext
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError | CannotWrite> =>
  askAndPrintAnswer(request, flags.receipt === true).pipe(
    Effect.provide(
      UserInteraction.layerWith(
        providerFor(flags, context),
        Option.match(flags.timeout, { onNone: () => ({}), onSome: (timeout) => ({ timeout }) })
      )
    )
  )

/**
 * Runs the root command.
 *
 * @since 0.1.0
 */
export const run = (config: AskConfig): Effect.Effect<void, UserInteractionError | CannotWrite | WithExitCode> =>
  Effect.gen(function*() {
    // "-" is stdin, as for most programs that read a file (a file of that name is ./-).
    if (Option.getOrUndefined(config.file) === "-") config = { ...config, file: Option.none() }
    if (Option.isNone(config.file) && process.stdin.isTTY) {
      process.stderr.write("ask-user: reading the request JSON from stdin (end with Ctrl+D; see --help)\n")
    }
    const request = yield* Effect.flatMap(readSource(config.file), parseRequest)
    if (config.durable === true) {
      const durable = yield* Effect.promise(() => import("./durable.js"))
      return yield* Effect.asVoid(durable.askDurably(request, config))
    }
    yield* askAndPrint(request, config, { requestOnStdin: Option.isNone(config.file) })
  })
