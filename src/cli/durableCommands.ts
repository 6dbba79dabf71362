/**
 * The durable side of `ask-user`: the root command's `--durable` flags and
 * the answerer commands (`pending`, `answer`, `cancel`, `decline`, `status`,
 * `history`, `inbox`). Only the command tree lives here; each handler loads the durable
 * surface (and its database driver) when it runs.
 *
 * @since 0.2.0
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
// Two small modules of the durable surface, not its index: the command line checks
// --expires and --store with them before any of the engine loads.
import { maxExpiresIn } from "../durable/expiry.js"
import { storeUrlProblem } from "../durable/storeUrl.js"
import { isTarget, targetForms } from "../notify/targetName.js"
import { emailFlagProblem, emailFlags } from "./emailFlags.js"
import { refuse, webOnlyFlag } from "./flagRules.js"
import * as Options from "./options.js"
import { remoteFlagRule, remoteFlags } from "./remoteFlags.js"
import { slackFlagProblem, slackFlags } from "./slackFlags.js"
import { webFlags } from "./webFlags.js"

/**
 * `--store URL`: the durable store (default `$ASK_USER_STORE`, else a SQLite
 * file under `$XDG_STATE_HOME/ask-user/`).
 *
 * @since 0.2.0
 */
export const store: Flag.Flag<Option.Option<string>> = Flag.String("store").pipe(
  Flag.withMetavar("URL"),
  // A URL that names no database (`sqlite:` with no path) is a usage error, not a throwaway store.
  Flag.filterMap(
    (url) => storeUrlProblem(url) === undefined ? Option.some(url) : Option.none(),
    (url) => `Expected ${storeUrlProblem(url)}`
  ),
  Flag.withDescription(
    "The durable store: sqlite:PATH or postgres://… (default $ASK_USER_STORE, else sqlite:$XDG_STATE_HOME/ask-user/asks.db, " +
      "$XDG_STATE_HOME being ~/.local/state when unset)."
  ),
  Flag.optional
)

/**
 * Parses `--expires`: what `--timeout` takes, at most 3650 days (about 10
 * years; see `durable/expiry.ts` for why there is a maximum).
 *
 * @since 0.2.0
 */
export const parseExpires = (text: string): Option.Option<Duration.Duration> =>
  Option.filter(Options.parseTimeout(text), Duration.isLessThanOrEqualTo(maxExpiresIn))

/**
 * The root command's durable flags: `--durable [--store URL] [--ask-id ID] [--expires 1h]`.
 *
 * @since 0.2.0
 */
export const durableFlags = {
  durable: Flag.Boolean("durable").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "Ask durably: the ask outlives this process (Ctrl+C or a crash leave it pending); rerun with the same --ask-id to get its answer."
    )
  ),
  store,
  askId: Flag.String("ask-id").pipe(
    Flag.withMetavar("ID"),
    Flag.filterMap(
      (id) => id.length > 0 && id.length <= 200 ? Option.some(id) : Option.none(),
      () => "an id of 1 to 200 characters"
    ),
    Flag.withDescription("With --durable: the ask's id (default: the request's own id, else a random one, printed on stderr)."),
    Flag.optional
  ),
  expires: Flag.String("expires").pipe(
    Flag.withMetavar("DURATION"),
    Flag.filterMap(
      parseExpires,
      // effect/cli quotes the value; usage.ts turns this into one sentence.
      (text) =>
        Option.isSome(Options.parseTimeout(text))
          ? "Expected a duration of at most 3650 days (about 10 years)"
          : "Expected a duration longer than zero, such as 30s, 5m, 1h or \"2 days\", at most 3650 days"
    ),
    Flag.withDescription(
      "With --durable: the ask expires this long after it is created, even while no process runs (exit 4); at most 3650d."
    ),
    Flag.optional
  ),
  detach: Flag.Boolean("detach").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "With --durable: record the ask as pending and print {\"id\",\"status\"} at once (exit 0); 'ask-user status ID --wait' waits for it."
    )
  )
}

const handlers = Effect.promise(() => import("./durable.js"))

const id = Argument.String("id").pipe(Argument.withDescription("The ask's id (see ask-user pending)."))

/** `--force`: settle an ask someone else has claimed, breaking their claim (the receipt says whose). */
const force = Flag.Boolean("force").pipe(
  Flag.withDefault(false),
  Flag.withDescription("Settle the ask even though someone else has claimed it: breaks their claim, and the record says so.")
)

/** What `answer`, `cancel` and `decline` exit with besides 0. */
const settleExits = "5 not pending (already settled), 6 unknown id, 7 not allowed by the ask's answerableBy, " +
  "8 claimed by someone else (--force breaks the claim)."

const pendingCommand = Command.make("pending", { store }, (config) =>
  Effect.flatMap(handlers, (h) => h.pending(config))).pipe(
    Command.withDescription("List the pending durable asks, one JSON object a line: {id, agent?, questions, askedAt, expiresAt?}.")
  )

const answerCommand = Command.make("answer", {
  store,
  force,
  id,
  file: Argument.String("file").pipe(
    Argument.withDescription("The answer JSON ({\"answers\":[…]}, as ask-user prints it) or the --answers format.")
  )
}, (config) => Effect.flatMap(handlers, (h) => h.answer(config))).pipe(
  Command.withDescription(
    `Answer a pending durable ask as os:<user>@<host>. Exit 0 recorded, 2 bad answer or file, ${settleExits}`
  )
)

const settleCommand = (name: "cancel" | "decline", description: string) =>
  Command.make(name, { store, force, id }, (config) => Effect.flatMap(handlers, (h) => h[name](config))).pipe(
    Command.withDescription(`${description} Exit 0, ${settleExits}`)
  )

const statusCommand = Command.make("status", {
  store,
  id,
  wait: Flag.Boolean("wait").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "Wait for the ask's outcome and print it as --durable does: the answer JSON, or exit 3 cancelled/declined, 4 expired, 1 withdrawn."
    )
  ),
  timeout: Options.timeout
}, (config) =>
  Effect.flatMap(handlers, (h) => config.wait ? h.awaitStatus(config) : h.status(config))).pipe(
    Command.validate(refuse((flags: { readonly wait: boolean; readonly timeout: Option.Option<unknown> }) =>
      !flags.wait && Option.isSome(flags.timeout) ? "--timeout only applies with --wait." : undefined
    )),
    Command.withDescription(
      "Print a durable ask's status as JSON: {id, status, answer?, receipt?}. Exit 0, or 6 unknown id. " +
        "With --wait [--timeout D]: wait for its outcome (exit codes as --durable; 4 when --timeout passes, the ask pending)."
    )
  )

const historyCommand = Command.make("history", {
  store,
  since: Flag.String("since").pipe(
    Flag.withMetavar("DURATION"),
    Flag.filterMap(Options.parseTimeout, () => "Expected a duration longer than zero, such as 30m, 12h or 7d"),
    Flag.withDescription("Only the asks settled this long ago or since: 30m, 12h, 7d."),
    Flag.optional
  ),
  limit: Flag.Int("limit").pipe(
    Flag.withMetavar("N"),
    Flag.filter((n) => n > 0, () => "Expected a whole number above zero"),
    Flag.withDescription("At most this many asks (the newest)."),
    Flag.optional
  )
}, (config) => Effect.flatMap(handlers, (h) => h.history(config))).pipe(
  Command.withDescription(
    "List the settled durable asks, newest first, one JSON object a line: " +
      "{id, agent?, questions, outcome, receipt?, askedAt, settledAt}. The receipt says who settled it, where and when."
  )
)

/**
 * `inbox --notify TARGET` (repeatable): where to tell the human that a
 * question waits. The root command's `--notify bell|desktop|none` is the
 * terminal's own announcement; here `desktop` keeps meaning a desktop
 * notification, and the bell stays `--bell`'s (decision 132).
 */
const notifyTargets = Flag.String("notify").pipe(
  Flag.withMetavar("TARGET"),
  Flag.filter(isTarget, () => `Expected ${targetForms}`),
  Flag.withDescription(
    "Tell someone each new pending ask (repeatable): ntfy:URL (token from $NTFY_TOKEN), webhook:URL (signed with " +
      "$ASK_USER_WEBHOOK_SECRET, whsec_…) or desktop. A target that fails is retried, then reported once on stderr."
  ),
  Flag.atLeast(0)
)

/** `inbox --remind D`: remind this long before a pending ask expires. */
const remind = Flag.String("remind").pipe(
  Flag.withMetavar("DURATION"),
  Flag.filterMap(Options.parseTimeout, () => "Expected a duration longer than zero, such as 30s, 5m, 1h or \"2 days\""),
  Flag.withDescription("With --notify: notify again this long before a pending ask expires."),
  Flag.optional
)

const inboxCommand = Command.make("inbox", {
  store,
  bell: Options.bell,
  plain: Options.plain,
  review: Options.review,
  notifyTargets,
  remind,
  ...webFlags,
  ...remoteFlags,
  ...slackFlags,
  ...emailFlags
}, (config) => Effect.flatMap(handlers, (h) => h.inbox(config))).pipe(
  Command.validate(refuse(webOnlyFlag)),
  Command.validate(refuse(remoteFlagRule)),
  Command.validate(refuse(slackFlagProblem)),
  Command.validate(refuse(emailFlagProblem)),
  Command.validate(refuse((flags: { readonly notifyTargets: ReadonlyArray<string>; readonly remind: Option.Option<unknown> }) =>
    flags.notifyTargets.length === 0 && Option.isSome(flags.remind) ? "--remind only applies with --notify." : undefined
  )),
  Command.withDescription(
    "Serve the pending durable asks, and new ones, to a human until interrupted: on the terminal, or with --web in a " +
      "web page (--web --terminal: both; --web --remote: over HTTPS for paired phones, see ask-user pair), in a " +
      "Slack channel with --slack, or by mail with --email (several of these: each serves every ask, the first answer wins)."
  )
)

/**
 * The answerer subcommands.
 *
 * @since 0.2.0
 */
export const durableCommands = [
  pendingCommand,
  answerCommand,
  settleCommand("cancel", "Cancel a pending durable ask (the agent gets ASK_CANCELLED)."),
  settleCommand("decline", "Decline a pending durable ask (the agent gets ASK_DECLINED)."),
  statusCommand,
  historyCommand,
  inboxCommand
] as const
