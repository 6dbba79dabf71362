/**
 * The flags of `ask-user inbox --email`: `--smtp URL --imap URL --email-to
 * ADDR --email-from ADDR [--email-inbox-url URL]`, and the rule that each is
 * given with `--email` and only with it. Passwords are not flags (a flag is
 * seen by every user of the machine in the process list): they come from the
 * URLs or from `ASK_USER_SMTP_PASSWORD` / `ASK_USER_IMAP_PASSWORD`. Only flag
 * definitions live here, so the program's start-up does not load the mail
 * libraries.
 *
 * @internal
 */
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/** The parsed email flags. */
export interface EmailFlags {
  readonly email: boolean
  readonly smtp: Option.Option<string>
  readonly imap: Option.Option<string>
  readonly emailTo: Option.Option<string>
  readonly emailFrom: Option.Option<string>
  readonly emailInboxUrl: Option.Option<string>
}

const address = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withMetavar("ADDR"),
    Flag.filter((value) => /^[^\s@<>]+@[^\s@<>]+$/.test(value), () => "Expected an address, name@domain"),
    Flag.withDescription(description),
    Flag.optional
  )

/** The flags, to spread into the inbox command's configuration. */
export const emailFlags = {
  email: Flag.Boolean("email").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "Serve the inbox by mail: each ask is mailed to --email-to, and a reply answers it. Passwords come from the " +
        "URLs or from $ASK_USER_SMTP_PASSWORD and $ASK_USER_IMAP_PASSWORD."
    )
  ),
  smtp: Flag.String("smtp").pipe(
    Flag.withMetavar("URL"),
    Flag.withDescription("With --email: the server that sends, smtp://user@host:port (STARTTLS when offered) or smtps://…."),
    Flag.optional
  ),
  imap: Flag.String("imap").pipe(
    Flag.withMetavar("URL"),
    Flag.withDescription("With --email: --email-from's mailbox, where replies arrive, imap://user@host:port or imaps://…."),
    Flag.optional
  ),
  emailTo: address("email-to", "With --email: who is asked; only replies from this address are read."),
  emailFrom: address("email-from", "With --email: the address asks come from; its plus addresses must reach --imap's mailbox."),
  emailInboxUrl: Flag.String("email-inbox-url").pipe(
    Flag.withMetavar("URL"),
    Flag.withDescription("With --email: the inbox page each mail links to (a secret question is answered only there)."),
    Flag.optional
  )
}

/** Why these flags do not go together, or undefined: each mail flag needs --email, and --email needs four of them. */
export const emailFlagProblem = (flags: EmailFlags): string | undefined => {
  const given: ReadonlyArray<readonly [string, Option.Option<string>]> = [
    ["--smtp URL", flags.smtp],
    ["--imap URL", flags.imap],
    ["--email-to ADDR", flags.emailTo],
    ["--email-from ADDR", flags.emailFrom],
    ["--email-inbox-url URL", flags.emailInboxUrl]
  ]
  if (!flags.email) {
    const stray = given.find(([, value]) => Option.isSome(value))
    return stray === undefined ? undefined : `${stray[0].split(" ")[0]} only applies with --email.`
  }
  const missing = given.slice(0, 4).filter(([, value]) => Option.isNone(value)).map(([flag]) => flag)
  return missing.length === 0 ? undefined : `--email needs ${missing.join(", ")}.`
}
