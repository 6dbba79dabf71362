/**
 * The handlers of `ask-user`'s durable commands: `--durable` asks, and the
 * answerer commands `pending`, `answer`, `cancel`, `decline`, `status` and
 * `inbox`. Loaded only when one of them runs; it loads the durable surface,
 * whose store loads its database driver.
 *
 * @since 0.2.0
 */
import { existsSync, readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { type Duration, Effect, Exit, Layer, Option, References, Schema } from "effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { DurableInbox, DurableProvider, DurableStore } from "../durable/index.js"
import { UserInteraction } from "../UserInteraction.js"
import { formatIssue } from "../internal/schemaPath.js"
import { InvalidRequest, ProviderFailed, UnknownAsk, type UserInteractionError } from "../UserInteractionError.js"
import { answerItem, AnswersFile } from "./answersFile.js"
import { providerFor } from "./providerFor.js"
import type { WebFlags } from "./webFlags.js"

// node:sqlite announces itself as experimental on first use; that line is
// not for the people running ask-user. Only that one warning is dropped.
const emitWarning = process.emitWarning
process.emitWarning = function(warning: string | Error, ...rest: Array<unknown>) {
  const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type
  const message = typeof warning === "string" ? warning : warning.message
  if ((type ?? (warning as Error).name) === "ExperimentalWarning" && message.includes("SQLite")) return
  return (emitWarning as (...args: Array<unknown>) => void).call(process, warning, ...rest)
} as typeof process.emitWarning

/**
 * The store URL: `--store`, else `$ASK_USER_STORE`, else a SQLite file in the
 * user's state directory.
 *
 * @since 0.2.0
 */
export const storeUrl = (flag: Option.Option<string>): string =>
  Option.getOrElse(flag, () => {
    const fromEnv = process.env.ASK_USER_STORE
    if (fromEnv !== undefined && fromEnv !== "") return fromEnv
    const state = process.env.XDG_STATE_HOME || join(homedir(), ".local", "state")
    return `sqlite:${join(state, "ask-user", "asks.db")}`
  })

const sqliteFile = (url: string): string | undefined =>
  url.startsWith("sqlite:") && url !== "sqlite::memory:" ? url.slice("sqlite:".length) : undefined

/** The store for one command; a URL naming no database is a usage error (exit 2). */
const storeLayer = (url: string, runner: boolean): Layer.Layer<DurableStore, InvalidRequest | ProviderFailed> =>
  DurableStore.layer(url, { runner }).pipe(
    Layer.catchTag("DurableStoreUrlError", (error) =>
      Layer.effect(DurableStore, Effect.fail(new InvalidRequest({ message: error.message })))),
    Layer.catchTag("SqlError", (error) =>
      Layer.effect(
        DurableStore,
        Effect.fail(new ProviderFailed({ message: `Cannot open the durable store ${url}: ${error.message}`, cause: error }))
      ))
  )

/** The engine logs its own housekeeping (runners, shards); stderr is for the human here. */
const quietEngine = Effect.provideService(References.MinimumLogLevel, "Error")

const withInbox = (url: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(storeLayer(url, false)))), quietEngine)

const printLine = (value: unknown) => Effect.sync(() => process.stdout.write(`${JSON.stringify(value)}\n`))

/**
 * `ask-user --durable`: ask through the durable provider and print the
 * answer. Interruption leaves the ask pending; the same `--ask-id` joins it.
 *
 * @since 0.2.0
 */
export const askDurably = (
  request: AskUserQuestionRequest,
  flags: {
    readonly store?: Option.Option<string> | undefined
    readonly askId?: Option.Option<string> | undefined
    readonly expires?: Option.Option<Duration.Duration> | undefined
  }
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError> => {
  const askId = Option.getOrUndefined(flags.askId ?? Option.none())
  const expiresIn = Option.getOrUndefined(flags.expires ?? Option.none())
  const id = askId ?? request.id ?? crypto.randomUUID()
  return Effect.gen(function*() {
    if (askId === undefined && request.id === undefined) {
      process.stderr.write(`ask-user: asking durably as ${id} (rerun with --ask-id ${id} to join it)\n`)
    }
    const answer = yield* UserInteraction.ask({ ...request, id })
    yield* printLine(answer)
    return answer
  }).pipe(
    Effect.provide(
      UserInteraction.layerWith(DurableProvider.layer({ expiresIn })).pipe(
        Layer.provide(storeLayer(storeUrl(flags.store ?? Option.none()), true))
      )
    ),
    quietEngine
  )
}

/**
 * `ask-user pending`: one JSON object a line; nothing (exit 0) when the store
 * does not exist yet.
 *
 * @since 0.2.0
 */
export const pending = (config: { readonly store: Option.Option<string> }) => {
  const url = storeUrl(config.store)
  const file = sqliteFile(url)
  if (file !== undefined && !existsSync(file)) return Effect.void
  return Effect.gen(function*() {
    const asks = yield* (yield* DurableInbox).pending
    const lines = asks.map((ask) =>
      JSON.stringify({
        id: ask.id,
        ...(ask.request.agent === undefined ? {} : { agent: ask.request.agent }),
        questions: ask.request.questions,
        askedAt: ask.askedAt.toISOString(),
        ...(ask.expiresAt === undefined ? {} : { expiresAt: ask.expiresAt.toISOString() })
      })
    )
    if (lines.length > 0) yield* Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`))
  }).pipe(withInbox(url))
}

const decodeAnswersFile = Schema.decodeUnknownExit(AnswersFile)

const isAnswerJson = (json: unknown): json is { readonly answers: ReadonlyArray<unknown> } => {
  const answers = (json as { answers?: unknown } | null)?.answers
  return Array.isArray(answers) && answers.every((item) => typeof item === "object" && item !== null && !Array.isArray(item))
}

/**
 * The answer in FILE: the answer JSON as `ask-user` prints it, or the
 * `--answers` format (an object keyed by question id) applied to `request`.
 */
const readAnswer = (path: string, request: AskUserQuestionRequest) =>
  Effect.gen(function*() {
    const json = yield* Effect.try({
      try: () => JSON.parse(readFileSync(path, "utf8").replace(/^\uFEFF/, "")) as unknown,
      catch: (cause) =>
        new InvalidRequest({ message: `Cannot read answer file ${path}: ${(cause as Error).message}`, cause })
    })
    if (isAnswerJson(json)) return json as unknown
    const exit = decodeAnswersFile(json)
    if (Exit.isFailure(exit)) {
      const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error
      return yield* Effect.fail(
        new InvalidRequest({ message: `Invalid answer file ${path}: ${error ? formatIssue(error.issue) : "could not decode"}` })
      )
    }
    const file = exit.value
    const missing = request.questions.find((question) => !Object.hasOwn(file, question.id))
    if (missing !== undefined) {
      return yield* Effect.fail(
        new InvalidRequest({ message: `The answer file ${path} has no answer for question "${missing.id}".` })
      )
    }
    return { answers: request.questions.map((question) => answerItem(question, file[question.id] ?? null)) }
  })

/**
 * `ask-user answer ID FILE`: exit 0 recorded, 2 bad answer or file, 5 not
 * pending, 6 unknown id.
 *
 * @since 0.2.0
 */
export const answer = (config: { readonly store: Option.Option<string>; readonly id: string; readonly file: string }) =>
  Effect.gen(function*() {
    const store = yield* DurableStore
    const record = yield* store.find(config.id)
    if (record === undefined) return yield* Effect.fail(new UnknownAsk({ message: `No ask has the id "${config.id}".` }))
    const answer = yield* readAnswer(config.file, record.request)
    yield* (yield* DurableInbox).answer(config.id, answer).pipe(
      // A bad answer is a bad input here, like a bad file (exit 2).
      Effect.catchTag("InvalidAnswer", (error) => Effect.fail(new InvalidRequest({ message: error.message })))
    )
  }).pipe(withInbox(storeUrl(config.store)))

/** `ask-user cancel ID`. @since 0.2.0 */
export const cancel = (config: { readonly store: Option.Option<string>; readonly id: string }) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.cancel(config.id)).pipe(withInbox(storeUrl(config.store)))

/** `ask-user decline ID`. @since 0.2.0 */
export const decline = (config: { readonly store: Option.Option<string>; readonly id: string }) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.decline(config.id)).pipe(withInbox(storeUrl(config.store)))

/** `ask-user status ID`: the status object as JSON, or exit 6. @since 0.2.0 */
export const status = (config: { readonly store: Option.Option<string>; readonly id: string }) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.status(config.id)).pipe(
    Effect.flatMap(printLine),
    withInbox(storeUrl(config.store))
  )

/**
 * `ask-user inbox [--web] [--terminal]`: serve pending asks until interrupted.
 *
 * @since 0.2.0
 */
export const inbox = (config: WebFlags & { readonly store: Option.Option<string>; readonly bell: boolean }) =>
  Effect.gen(function*() {
    const inbox = yield* DurableInbox
    yield* inbox.serve(providerFor({ ...config, answers: Option.none() }, { requestOnStdin: false }))
    return yield* Effect.never
  }).pipe(Effect.scoped, withInbox(storeUrl(config.store)))
