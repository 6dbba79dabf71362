/**
 * The handlers of `ask-user`'s durable commands: `--durable` asks, and the
 * answerer commands `pending`, `answer`, `cancel`, `decline`, `status` and
 * `inbox`. Loaded only when one of them runs; it loads the durable surface,
 * whose store loads its database driver.
 *
 * @since 0.2.0
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import * as Duration from "effect/Duration"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as References from "effect/References"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { DurableInbox, DurableProvider, DurableStore, type UnreadableAsk } from "../durable/index.js"
import { storeFaultWords } from "../durable/storeFault.js"
import { shownStoreUrl, sqlitePath, storeUrlProblem } from "../durable/storeUrl.js"
import type { AskRecord, HistoryOptions } from "../durable/index.js"
import { osAnswerer } from "../internal/osAnswerer.js"
import { parseTarget } from "../notify/parse.js"
import { inertJson, sanitizeLine } from "../internal/sanitize.js"
import { FanoutProvider } from "../FanoutProvider.js"
import { UserInteraction } from "../UserInteraction.js"
import {
  AskTimeout,
  InvalidRequest,
  ProviderClosed,
  ProviderFailed,
  UnknownAsk,
  type UserInteractionError
} from "../UserInteractionError.js"
import { UserInteractionProvider } from "../UserInteractionProvider.js"
import { askAndPrintAnswer } from "./answerOutput.js"
import { answersFromFile, readAnswersFile } from "./answersFile.js"
import { ExitCode, WithExitCode } from "./exitCodes.js"
import { providerFor } from "./providerFor.js"
import { inboxAskTimes, inboxClaims } from "./inboxClaims.js"
import { stateHome } from "./stateHome.js"
import { durableStderr } from "./stderrLog.js"
import { type CannotWrite, writeStdout } from "./stdout.js"
import type { RemoteFlags } from "./remoteFlags.js"
import { type SlackFlags, slackSettings } from "./slackFlags.js"
import type { EmailFlags } from "./emailFlags.js"
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
    return `sqlite:${join(stateHome(), "ask-user", "asks.db")}`
  })

/**
 * A bad store URL's message, saying where the URL came from when it was not
 * the command line: `--store` is checked as a flag, so a bad URL that gets
 * this far is `$ASK_USER_STORE`'s, which the person may not know is set.
 */
const badUrlMessage = (url: string, message: string): string =>
  process.env.ASK_USER_STORE === url ? `${message} It comes from $ASK_USER_STORE.` : message

/** `$ASK_USER_STORE` checked before anything looks at the file it names. */
const checkedUrl = (url: string): Effect.Effect<string, InvalidRequest> => {
  const problem = storeUrlProblem(url)
  return problem === undefined
    ? Effect.succeed(url)
    : Effect.fail(
      new InvalidRequest({ message: badUrlMessage(url, `Unsupported store URL "${shownStoreUrl(url)}": use ${problem}.`) })
    )
}

/** The store for one command; a URL naming no database is a usage error (exit 2). */
const storeLayer = (url: string, runner: boolean): Layer.Layer<DurableStore, InvalidRequest | ProviderFailed> =>
  DurableStore.layer(url, { runner }).pipe(
    Layer.catchTag("DurableStoreUrlError", (error) =>
      Layer.effect(DurableStore, Effect.fail(new InvalidRequest({ message: badUrlMessage(url, error.message) })))),
    // A bad address setting is a usage error (exit 2); an address in use is the store's failure (exit 1).
    Layer.catchTag("DurableClusterError", (error) =>
      Layer.effect(
        DurableStore,
        Effect.fail(
          error.reason === "InvalidSetting"
            ? new InvalidRequest({ message: error.message })
            : new ProviderFailed({ message: `${error.message} The store is ${shownStoreUrl(url)}.`, cause: error })
        )
      )),
    Layer.catchTag("SqlError", (error) =>
      Layer.effect(
        DurableStore,
        Effect.fail(
          new ProviderFailed({ message: `Cannot open the durable store ${shownStoreUrl(url)}: ${storeFaultWords(error)}`, cause: error })
        )
      ))
  )

/**
 * The engine logs its own housekeeping (runners, shards); stderr is for the
 * human here: the store's own warnings, and the engine's errors in words, the
 * same cause once a minute (`stderrLog.ts`).
 */
const quietEngine = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provideService(References.MinimumLogLevel, "Warn"), Effect.provide(durableStderr))

/**
 * Runs `effect` with the inbox of the store at `url` (an answerer's: it
 * runs no asks), the engine's log quietened.
 *
 * @since 0.3.0
 */
export const withInbox = (url: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(storeLayer(url, false)))), quietEngine)

/**
 * `withInbox`, for a command about one ask: on a SQLite file that does not
 * exist the ask is unknown, and no store is created (a mistyped path would
 * otherwise leave an empty store behind and say only "no ask has the id").
 */
const withInboxOf = (url: string, id: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const file = sqlitePath(url)
  return file !== undefined && file !== ":memory:" && !existsSync(file)
    ? Effect.fail(new UnknownAsk({ message: `No ask has the id "${id}": the store ${file} does not exist.` }))
    : withInbox(url)(effect)
}

/** Prints `value` as one inert JSON line on stdout. @since 0.3.0 */
export const printLine = (what: string, value: unknown) => writeStdout(what, `${inertJson(value)}\n`)

/**
 * One warning line on stderr for each pending row the store cannot read
 * (a deadline that is not a date, a request that does not decode): it is
 * skipped, and the other asks are still listed and served.
 */
const warn = (unreadable: ReadonlyArray<UnreadableAsk>): void => {
  for (const { id, reason } of unreadable) {
    const line = `skipped the ask ${JSON.stringify(id)}: ${reason} ('ask-user cancel ID' clears it)`
    process.stderr.write(`ask-user: warning: ${sanitizeLine(line)}\n`)
  }
}

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
    readonly receipt?: boolean | undefined
    readonly detach?: boolean | undefined
  }
): Effect.Effect<AskUserQuestionAnswer | void, UserInteractionError | CannotWrite | WithExitCode> => {
  const askId = Option.getOrUndefined(flags.askId ?? Option.none())
  const expiresIn = Option.getOrUndefined(flags.expires ?? Option.none())
  const id = askId ?? request.id ?? crypto.randomUUID()
  const url = storeUrl(flags.store ?? Option.none())
  if (flags.detach === true) return submitDurably({ ...request, id }, expiresIn, url)
  return Effect.gen(function*() {
    if (askId === undefined && request.id === undefined) {
      process.stderr.write(`ask-user: asking durably as ${id} (rerun with --ask-id ${id} to join it)\n`)
    }
    // On a terminal a silent wait looks hung: say what it waits for, and how to answer.
    if (process.stderr.isTTY === true) process.stderr.write(`${waitingLine(id)}\n`)
    return yield* askAndPrintAnswer({ ...request, id }, flags.receipt === true).pipe(
      // Here ASK_ABORTED can only mean the ask was withdrawn by its agent, a settled end: 130 would
      // say "interrupted, the ask stays pending", and a wrapper that reruns on it would loop.
      Effect.catchTag("AskAborted", (error) => Effect.fail(new WithExitCode({ error, exitCode: ExitCode.failure })))
    )
  }).pipe(
    Effect.provide(
      UserInteraction.layerWith(DurableProvider.layer({ expiresIn })).pipe(
        Layer.provide(storeLayer(url, true))
      )
    ),
    quietEngine
  )
}

/** What a waiting asker says on a terminal (the id shown inert: it may come from a request file). */
const waitingLine = (id: string): string =>
  sanitizeLine(
    `ask-user: waiting for an answer to ${id}: answer it with 'ask-user answer ${id} FILE' or in 'ask-user inbox'; ` +
      "Ctrl+C stops waiting and leaves it pending"
  )

/**
 * `ask-user --durable --detach`: records the ask as pending (or joins the
 * ask of the same id) and prints `{"id","status"}` at once; `ask-user
 * status ID --wait` waits for it later.
 */
const submitDurably = (request: AskUserQuestionRequest, expiresIn: Duration.Duration | undefined, url: string) =>
  Effect.gen(function*() {
    const inbox = yield* DurableInbox
    const id = yield* inbox.submit(request, { expiresIn })
    const { status } = yield* inbox.status(id)
    yield* printLine("the ask", { id, status })
  }).pipe(
    Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(storeLayer(url, true)))),
    quietEngine
  )

/**
 * `ask-user status ID --wait [--timeout D]`: waits for the ask's outcome and
 * prints it as `--durable` does (the answer JSON, or the failure with its
 * exit status); `--timeout` ends only the wait (exit 4), the ask staying
 * pending.
 *
 * @since 0.3.0
 */
export const awaitStatus = (config: {
  readonly store: Option.Option<string>
  readonly id: string
  readonly timeout: Option.Option<Duration.Duration>
}) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.await(config.id)).pipe(
    (wait) =>
      Option.match(config.timeout, {
        onNone: () => wait,
        onSome: (timeout) =>
          Effect.timeoutOrElse(wait, {
            duration: timeout,
            orElse: () =>
              Effect.fail(
                new AskTimeout({
                  message: `No outcome of the ask "${config.id}" within ${Duration.format(timeout)}; it stays pending.`
                })
              )
          })
      }),
    Effect.flatMap((answer) => printLine("the answer", answer)),
    // As for --durable: a withdrawn ask is a settled end, not an interruption (exit 1, not 130).
    Effect.catchTag("AskAborted", (error) => Effect.fail(new WithExitCode({ error, exitCode: ExitCode.failure }))),
    withInboxOf(storeUrl(config.store), config.id)
  )

/**
 * `ask-user pending`: one JSON object a line; nothing (exit 0) when the store
 * does not exist yet.
 *
 * @since 0.2.0
 */
export const pending = (config: { readonly store: Option.Option<string> }) => listing(config.store, listPending)

/**
 * A listing of the store: nothing, and no store created, when it is a
 * SQLite file that does not exist yet.
 *
 * @since 0.3.0
 */
export const listing = <E>(store: Option.Option<string>, list: Effect.Effect<void, E, DurableStore | DurableInbox>) =>
  Effect.flatMap(checkedUrl(storeUrl(store)), (url) => {
    const file = sqlitePath(url)
    if (file !== undefined && file !== ":memory:" && !existsSync(file)) return Effect.void
    return list.pipe(withInbox(url))
  })

/**
 * `ask-user history [--since 1d] [--limit N]`: the settled asks, newest
 * first, one JSON object a line with its receipt; nothing (exit 0) when the
 * store does not exist yet.
 *
 * @since 0.3.0
 */
export const history = (config: {
  readonly store: Option.Option<string>
  readonly since: Option.Option<Duration.Duration>
  readonly limit: Option.Option<number>
}) =>
  listing(
    config.store,
    Effect.suspend(() =>
      listHistory({
        since: Option.getOrUndefined(Option.map(config.since, (ago) => new Date(Date.now() - Duration.toMillis(ago)))),
        limit: Option.getOrUndefined(config.limit)
      })
    )
  )

/** The settled asks, one JSON line each (`{id, agent?, questions, outcome, receipt?, askedAt, settledAt}`). */
const listHistory = (options: HistoryOptions) =>
  Effect.flatMap(DurableStore, (store) => store.history(options)).pipe(Effect.flatMap((found) =>
    printAsks("the history", found, (ask) => ({
      outcome: ask.status,
      ...(ask.receipt === undefined ? {} : { receipt: ask.receipt }),
      askedAt: ask.askedAt.toISOString(),
      settledAt: (ask.settledAt ?? ask.askedAt).toISOString()
    }))
  ))

/** The pending asks, one JSON line each, after a warning line for each unreadable row. */
const listPending = Effect.flatMap(DurableStore, (store) => store.scan).pipe(Effect.flatMap((found) =>
  printAsks("the pending asks", found, (ask) => ({
    askedAt: ask.askedAt.toISOString(),
    ...(ask.expiresAt === undefined ? {} : { expiresAt: ask.expiresAt.toISOString() })
  }))
))

/** One JSON line an ask (`{id, agent?, questions, …more}`), after a warning line for each row that cannot be read. */
const printAsks = (
  what: string,
  found: { readonly asks: ReadonlyArray<AskRecord>; readonly unreadable: ReadonlyArray<UnreadableAsk> },
  more: (ask: AskRecord) => object
) =>
  Effect.suspend(() => {
    warn(found.unreadable)
    const lines = found.asks.map((ask) =>
      inertJson({
        id: ask.id,
        ...(ask.request.agent === undefined ? {} : { agent: ask.request.agent }),
        questions: ask.request.questions,
        ...more(ask)
      })
    )
    return lines.length === 0 ? Effect.void : writeStdout(what, `${lines.join("\n")}\n`)
  })

/**
 * Who settles an ask from the command line: the account running it, as
 * `os:<user>@<host>`, on the surface `"cli"`; `--force` breaks someone
 * else's claim (the receipt says whose).
 */
const fromCommandLine = (force: boolean) => ({ by: osAnswerer(), surface: "cli", force })

/**
 * `ask-user answer ID FILE`: exit 0 recorded, 2 bad answer or file, 5 not
 * pending, 6 unknown id, 7 not allowed by the ask's `answerableBy`, 8
 * claimed by someone else (`--force` breaks the claim).
 *
 * @since 0.2.0
 */
export const answer = (
  config: { readonly store: Option.Option<string>; readonly id: string; readonly file: string; readonly force: boolean }
) =>
  Effect.gen(function*() {
    const store = yield* DurableStore
    const record = yield* store.find(config.id)
    if (record === undefined) return yield* Effect.fail(new UnknownAsk({ message: `No ask has the id "${config.id}".` }))
    // Either form, read as --answers reads it; every key becomes an item, so the answer
    // rules judge a missing, repeated or unknown question alike in both forms.
    const notices: Array<string> = []
    const answer = answersFromFile(yield* readAnswersFile(config.file), record.request.questions, (question, text) =>
      notices.push(`recorded ${JSON.stringify(text)} as Other text for question ${question.id}: no option has that label`))
    yield* (yield* DurableInbox).answer(config.id, answer, fromCommandLine(config.force)).pipe(
      // INVALID_ANSWER, but a bad input here, like a bad file: exit 2 (SPEC), not 1 as for an ask.
      Effect.catchTag("InvalidAnswer", (error) => Effect.fail(new WithExitCode({ error, exitCode: ExitCode.badRequest })))
    )
    // Said once it is recorded: a label mistyped beyond its case reads as the person's own words.
    for (const notice of notices) process.stderr.write(`ask-user: ${sanitizeLine(notice)}\n`)
  }).pipe(withInboxOf(storeUrl(config.store), config.id))

/** `ask-user cancel ID`. @since 0.2.0 */
export const cancel = (config: { readonly store: Option.Option<string>; readonly id: string; readonly force: boolean }) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.cancel(config.id, fromCommandLine(config.force))).pipe(
    withInboxOf(storeUrl(config.store), config.id)
  )

/** `ask-user decline ID`. @since 0.2.0 */
export const decline = (config: { readonly store: Option.Option<string>; readonly id: string; readonly force: boolean }) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.decline(config.id, fromCommandLine(config.force))).pipe(
    withInboxOf(storeUrl(config.store), config.id)
  )

/** `ask-user status ID`: the status object as JSON (with its receipt once settled), or exit 6. @since 0.2.0 */
export const status = (config: { readonly store: Option.Option<string>; readonly id: string }) =>
  Effect.flatMap(DurableInbox, (inbox) => inbox.status(config.id)).pipe(
    Effect.flatMap((report) => printLine("the status", report)),
    withInboxOf(storeUrl(config.store), config.id)
  )

/**
 * `ask-user inbox [--web [--remote]] [--terminal]`: serve pending asks until
 * interrupted; with `--remote`, over HTTPS to paired devices (`remoteInbox.ts`).
 *
 * @since 0.2.0
 */
export const inbox = (
  config: WebFlags & Partial<RemoteFlags> & Partial<SlackFlags> & {
    readonly store: Option.Option<string>
    readonly bell: boolean
    readonly plain?: boolean
    readonly review?: boolean
    readonly notifyTargets?: ReadonlyArray<string>
    readonly remind?: Option.Option<Duration.Duration>
  } & Partial<EmailFlags>
) =>
  Effect.gen(function*() {
    const store = yield* DurableStore
    warn((yield* store.scan).unreadable)
    const inbox = yield* DurableInbox
    // The web page claims what it shows, but not beside this terminal: both are this one person's,
    // and the page's claim would refuse their own answer here.
    const claims = config.terminal ? undefined : inboxClaims(store)
    // The remote inbox first: its address is what notifications link to, and its buttons' tokens.
    const remote = config.web && config.remote === true
      ? yield* Effect.flatMap(
        Effect.promise(() => import("./remoteInbox.js")),
        ({ startRemoteInbox }) =>
          startRemoteInbox({
            remote: true,
            tlsCert: config.tlsCert ?? Option.none(),
            tlsKey: config.tlsKey ?? Option.none(),
            publicUrl: config.publicUrl ?? Option.none(),
            host: config.host,
            port: config.port,
            review: config.review
          }, inbox, store, claims)
      )
      : undefined
    // Before serving, so the first asks are announced as they are shown. Links only to a remote
    // inbox: the loopback page's address carries its access token and no phone can reach it (decision 133).
    if (config.notifyTargets !== undefined && config.notifyTargets.length > 0) {
      yield* Effect.orDie(inbox.notify(config.notifyTargets.map((text) => parseTarget(text, remote?.actions)), {
        remind: Option.getOrUndefined(config.remind ?? Option.none()),
        link: remote?.link
      }))
    }
    // Ctrl+C on a prompt (the surface's own AskAborted) quits the inbox, as it quits `ask-user`:
    // that ask, and every other, stays pending.
    const quit = yield* Deferred.make<void>()
    const flags = { ...config, answers: Option.none() }
    const provider = remote === undefined
      ? providerFor(flags, { requestOnStdin: false, claims, askTimes: inboxAskTimes(store) })
      : config.terminal
      ? FanoutProvider.layer(remote.surface, providerFor({ ...flags, web: false }, { requestOnStdin: false }))
      : remote.surface
    const local = Layer.effect(UserInteractionProvider, Effect.map(UserInteractionProvider, quitsOnCtrlC(quit))).pipe(
      Layer.provide(provider)
    )
    const chatAndMail = chatAndMailSurfaces(config, store)
    const surface = combine(chatAndMail.length === 0 || config.web || config.terminal ? [local, ...chatAndMail] : chatAndMail)
    const quitting = Effect.andThen(
      Deferred.await(quit),
      // Exit 130 as for any Ctrl+C, but without ASK_ABORTED's code: here no ask was withdrawn.
      Effect.fail(
        new WithExitCode({ error: new Error("Quit (Ctrl+C): every ask stays pending."), exitCode: ExitCode.interrupted })
      )
    )
    // With --web, --slack or --email, the page, the channel or the mailbox can answer as long as the inbox runs.
    if (config.web || chatAndMail.length > 0 || process.stdin.isTTY === true) {
      yield* inbox.serve(surface)
      return yield* quitting
    }
    // In line mode the terminal reads its answers from stdin: once that has ended, nothing more can
    // be answered here. The answers it read before the end are recorded first.
    const prompts = new LinePrompts()
    yield* inbox.serve(Layer.effect(UserInteractionProvider, Effect.map(UserInteractionProvider, prompts.watch)).pipe(
      Layer.provide(surface)
    ))
    yield* inputEnded
    yield* prompts.recorded(store)
    return yield* Effect.fail(
      new ProviderClosed({ message: "Input ended: no more asks can be answered on it; they stay pending." })
    )
  }).pipe(Effect.scoped, withInbox(storeUrl(config.store)))

type InboxSurface = Layer.Layer<UserInteractionProvider, InvalidRequest | ProviderFailed>

/**
 * The chat and mail surfaces the inbox serves: the Slack channel (its
 * presses claiming the ask in the store first) and the mailbox. Their SDKs
 * load only when asked for.
 */
const chatAndMailSurfaces = (
  config: Partial<SlackFlags> & Partial<EmailFlags>,
  store: DurableStore["Service"]
): ReadonlyArray<InboxSurface> => {
  const surfaces: Array<InboxSurface> = []
  if (config.slack === true) {
    const settings = slackSettings(config as SlackFlags)
    surfaces.push(Layer.unwrap(Effect.map(
      Effect.promise(() => import("../slack/index.js")),
      ({ SlackProvider }) => SlackProvider.layer({ ...settings, claims: inboxClaims(store) })
    )))
  }
  if (config.email === true) {
    const flags = config as EmailFlags
    surfaces.push(Layer.unwrap(Effect.map(Effect.promise(() => import("./emailInbox.js")), ({ emailSurface }) => emailSurface(flags))))
  }
  return surfaces
}

/** One surface, or several as a fan-out (the first answer wins). */
const combine = (surfaces: ReadonlyArray<InboxSurface>): InboxSurface =>
  surfaces.length === 1 ? surfaces[0]! : FanoutProvider.layer(surfaces[0]!, ...surfaces.slice(1))

/** `provider`, whose asks that end `AskAborted` (Ctrl+C on the terminal) complete `quit`. */
const quitsOnCtrlC = (quit: Deferred.Deferred<void>) =>
(provider: UserInteractionProvider["Service"]): UserInteractionProvider["Service"] => ({
  ...provider,
  ask: (request) =>
    Effect.tapError(provider.ask(request), (error) => error._tag === "AskAborted" ? Deferred.succeed(quit, undefined) : Effect.void)
})

/**
 * The terminal's prompts in line mode: how many are up, and the asks a
 * person settled there (answered, cancelled, declined), which `serve`
 * records just after the prompt returns.
 */
class LinePrompts {
  #up = 0
  readonly #settled = new Set<string>()

  readonly watch = (provider: UserInteractionProvider["Service"]): UserInteractionProvider["Service"] => ({
    ...provider,
    ask: (request) =>
      Effect.suspend(() => {
        this.#up++
        return provider.ask(request).pipe(Effect.onExit((exit) =>
          Effect.sync(() => {
            this.#up--
            const settledByPerson = Exit.isSuccess(exit) ||
              exit.cause.reasons.some((reason) =>
                Cause.isFailReason(reason) && (reason.error._tag === "AskCancelled" || reason.error._tag === "AskDeclined")
              )
            if (settledByPerson && request.id !== undefined) this.#settled.add(request.id)
          })
        ))
      })
  })

  /** Waits for the prompts up to come down and for what people settled on them to be recorded (at most 10 s). */
  recorded(store: DurableStore["Service"]): Effect.Effect<void> {
    const settled = this.#settled
    const up = () => this.#up
    return Effect.gen(function*() {
      while (up() > 0) yield* Effect.sleep("20 millis")
      for (const id of settled) {
        while ((yield* store.find(id))?.status === "pending") yield* Effect.sleep("20 millis")
      }
    }).pipe(Effect.timeoutOption("10 seconds"), Effect.asVoid)
  }
}

/** Completes once stdin has been read to its end. */
const inputEnded = Effect.callback<void>((resume) => {
  const ended = () => resume(Effect.void)
  if (process.stdin.readableEnded) return ended()
  process.stdin.once("end", ended)
  return Effect.sync(() => void process.stdin.off("end", ended))
})
