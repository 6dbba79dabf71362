/**
 * `ask-user inbox --email`: the mail surface built from the command line's
 * flags. Loaded only when `--email` is given, so no other command loads the
 * mail libraries.
 *
 * @internal
 */
import * as Option from "effect/Option"
import { EmailProvider } from "../email/EmailProvider.js"
import type { EmailFlags } from "./emailFlags.js"

/**
 * The email provider for these flags (each required one checked present by
 * `emailFlagProblem`); passwords from the URLs or the environment.
 */
export const emailSurface = (flags: EmailFlags) =>
  EmailProvider.layer({
    smtp: Option.getOrThrow(flags.smtp),
    imap: Option.getOrThrow(flags.imap),
    to: Option.getOrThrow(flags.emailTo),
    from: Option.getOrThrow(flags.emailFrom),
    inboxUrl: Option.getOrUndefined(flags.emailInboxUrl)
  })
