/**
 * `ask-user inbox --slack [--slack-channel ID]`: the flags, and what they
 * need from the environment (`SLACK_BOT_TOKEN`, `SLACK_APP_TOKEN`, the
 * channel from the flag or `SLACK_CHANNEL`; `SLACK_API_URL` points the Web
 * API elsewhere, for a stand-in). Only flag definitions and checks live
 * here, so the program's start-up does not load the Slack SDK.
 *
 * @internal
 */
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/** The parsed Slack flags. */
export interface SlackFlags {
  readonly slack: boolean
  readonly slackChannel: Option.Option<string>
}

/** The flags, to spread into the inbox command's configuration. */
export const slackFlags = {
  slack: Flag.Boolean("slack").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "Serve the asks in a Slack channel over Socket Mode (tokens from $SLACK_BOT_TOKEN and $SLACK_APP_TOKEN); " +
        "with --web or --terminal, there too, the first answer wins."
    )
  ),
  slackChannel: Flag.String("slack-channel").pipe(
    Flag.withMetavar("ID"),
    Flag.filter((id) => /^[A-Z0-9]+$/.test(id), () => "Expected a Slack channel id, such as C0123456789"),
    Flag.withDescription("With --slack: the channel's id (default $SLACK_CHANNEL)."),
    Flag.optional
  )
}

/** What `--slack` runs with, read from the flags and the environment. */
export interface SlackSettings {
  readonly botToken: string
  readonly appToken: string
  readonly channel: string
  readonly apiUrl: string | undefined
}

const nonEmpty = (value: string | undefined): string | undefined => value === undefined || value.trim() === "" ? undefined : value

/**
 * The usage message for Slack flags that cannot run: `--slack-channel`
 * without `--slack`, or `--slack` without a token or a channel (naming the
 * variable to set); undefined when they can.
 */
export const slackFlagProblem = (flags: SlackFlags, env: NodeJS.ProcessEnv = process.env): string | undefined => {
  if (!flags.slack) return Option.isSome(flags.slackChannel) ? "--slack-channel only applies with --slack." : undefined
  if (nonEmpty(env["SLACK_BOT_TOKEN"]) === undefined) return "--slack needs the bot token (xoxb-…) in $SLACK_BOT_TOKEN."
  if (nonEmpty(env["SLACK_APP_TOKEN"]) === undefined) return "--slack needs the app-level token (xapp-…) in $SLACK_APP_TOKEN."
  if (Option.isNone(flags.slackChannel) && nonEmpty(env["SLACK_CHANNEL"]) === undefined) {
    return "--slack needs the channel's id: --slack-channel ID or $SLACK_CHANNEL."
  }
  return undefined
}

/** The settings of checked flags (see `slackFlagProblem`). */
export const slackSettings = (flags: SlackFlags, env: NodeJS.ProcessEnv = process.env): SlackSettings => ({
  botToken: env["SLACK_BOT_TOKEN"]!,
  appToken: env["SLACK_APP_TOKEN"]!,
  channel: Option.getOrElse(flags.slackChannel, () => env["SLACK_CHANNEL"]!),
  apiUrl: nonEmpty(env["SLACK_API_URL"])
})
