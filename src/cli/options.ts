/**
 * Command-line flags shared by the modes of `ask-user` (terminal, scripted
 * answers, web, ACP, MCP), so that `--timeout` and `--no-bell` mean the same
 * thing everywhere.
 *
 * @since 0.1.0
 */
import * as Flag from "effect/cli/Flag"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import { parseTimeout as parseDuration } from "../internal/duration.js"

/**
 * Parses a timeout as written on a command line: the short forms `500ms`,
 * `30s`, `5m`, `1h`, `2d`, or anything Effect's `Duration` decodes, such as
 * `5 minutes` or `1.5 seconds`. Only finite, positive durations are accepted.
 * A request's own `timeout` is read by the same parser.
 *
 * @since 0.1.0
 */
export const parseTimeout: (text: string) => Option.Option<Duration.Duration> = parseDuration

/**
 * `--timeout DURATION`: how long the human has to answer (the whole ask);
 * none by default. Feeds `UserInteraction.layerConfig({ timeout })`.
 *
 * @since 0.1.0
 */
export const timeout: Flag.Flag<Option.Option<Duration.Duration>> = Flag.String("timeout").pipe(
  Flag.withMetavar("DURATION"),
  Flag.filterMap(
    parseTimeout,
    // effect/cli quotes the value; usage.ts turns this into one sentence.
    () => "Expected a duration longer than zero, such as 30s, 5m, 1h or \"5 minutes\""
  ),
  Flag.withDescription("Give up after this long without an answer (exit 4): 30s, 5m, 1h, \"5 minutes\"."),
  Flag.optional
)

/**
 * `--bell` / `--no-bell`: ring the terminal bell when a question appears
 * (on by default).
 *
 * @since 0.1.0
 */
export const bell: Flag.Flag<boolean> = Flag.Boolean("bell").pipe(
  Flag.withDefault(true),
  Flag.withDescription("Ring the terminal bell when a question appears (--no-bell to keep quiet).")
)

/**
 * `--notify bell|desktop|none`: how the terminal announces a question (default
 * `bell`; `desktop` also sends a desktop notification). `--no-bell` still
 * silences the bell, so `--notify desktop --no-bell` notifies without a sound.
 *
 * @since 0.2.0
 */
export const notify: Flag.Flag<"bell" | "desktop" | "none"> = Flag.Literals("notify", ["bell", "desktop", "none"]).pipe(
  Flag.withDefault("bell"),
  Flag.withDescription(
    "How the terminal announces a question: bell (default), desktop (also a desktop notification, OSC 777/9), none."
  )
)

/**
 * `--plain`: ask in plain numbered lines on the terminal too (no cursor
 * movement, redraw or colour), for screen readers; `ASK_USER_PLAIN=1` and
 * `TERM=dumb` choose it as well.
 *
 * @since 0.3.0
 */
export const plain: Flag.Flag<boolean> = Flag.Boolean("plain").pipe(
  Flag.withDefault(false),
  Flag.withDescription(
    "Ask in numbered lines with no cursor movement, redraw or colour, for screen readers (also ASK_USER_PLAIN=1, TERM=dumb)."
  )
)

/**
 * `--answers FILE`: answer from a file instead of asking a human (for CI and
 * evals). See `answersFile.ts` for the two forms.
 *
 * @since 0.1.0
 */
export const answers: Flag.Flag<Option.Option<string>> = Flag.String("answers").pipe(
  Flag.withMetavar("FILE"),
  Flag.withDescription(
    "Answer from this JSON file instead of asking: the answer JSON a run printed, or " +
      "{ \"<question id>\": \"Label\" | [\"A\", \"B\"] | { \"custom\": \"text\" } | null }."
  ),
  Flag.optional
)

/**
 * `--receipt`: print the answer's receipt beside it (`"receipt": { "surface",
 * "by"?, "at", "millis", "defaulted"? }`): where, by whom and when the ask
 * was answered.
 *
 * @since 0.3.0
 */
export const receipt: Flag.Flag<boolean> = Flag.Boolean("receipt").pipe(
  Flag.withDefault(false),
  Flag.withDescription(
    "Add \"receipt\" to the answer JSON: the surface, who answered (by, e.g. os:ana@build-01), when (at) and after how long (millis)."
  )
)

/**
 * `--review`: a request of two or more questions ends, on the terminal and
 * the web page, with a review of every answer before they are sent (off by
 * default, so scripts that drive the prompts keep working).
 *
 * @since 0.3.0
 */
export const review: Flag.Flag<boolean> = Flag.Boolean("review").pipe(
  Flag.withDefault(false),
  Flag.withDescription(
    "End a request of two or more questions with a review of every answer (terminal and web page): Submit sends, choosing a question changes it."
  )
)

/**
 * `--allow-piped-secrets`: in line mode (answers piped on stdin), read a
 * secret question's answer from the pipe; without it such a request fails
 * before anything is asked.
 *
 * @since 0.3.0
 */
export const allowPipedSecrets: Flag.Flag<boolean> = Flag.Boolean("allow-piped-secrets").pipe(
  Flag.withDefault(false),
  Flag.withDescription(
    "With answers piped on stdin, read a secret question's answer from the pipe (never printed); without it such a request fails (exit 1)."
  )
)

/**
 * `--secret-page` / `--no-secret-page` (`ask-user mcp` and `ask-user acp`):
 * take each secret question on a one-time page on loopback, sent to the
 * client as a URL-mode elicitation (on by default; the page's server starts
 * with the first secret question). Off, a secret question fails
 * `PROVIDER_FAILED` before anything is sent.
 *
 * @since 0.3.0
 */
export const secretPage: Flag.Flag<boolean> = Flag.Boolean("secret-page").pipe(
  Flag.withDefault(true),
  Flag.withDescription(
    "Take a secret question on a one-time page on 127.0.0.1 that the client opens (URL-mode elicitation); " +
      "--no-secret-page: secret questions fail PROVIDER_FAILED."
  )
)
