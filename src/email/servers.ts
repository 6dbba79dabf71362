/**
 * The mail servers an `EmailProvider` talks to, from their URLs:
 * `smtp://` / `smtps://` to send, `imap://` / `imaps://` to read, each with
 * the user and, unless it comes from elsewhere (the environment), the
 * password. A password never leaves this module as text except to the
 * libraries that log in with it: `mask` takes it out of every message.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"

/** A mail server as the libraries take it. */
export interface MailServer {
  readonly host: string
  readonly port: number
  /** TLS from the first byte (`smtps:`, `imaps:`); otherwise STARTTLS when the server offers it. */
  readonly secure: boolean
  /**
   * Without `secure`, whether STARTTLS is required: for every server not on
   * loopback, so a password never crosses a network in clear text (an
   * attacker on the path could strip the server's STARTTLS offer).
   */
  readonly requireStartTls: boolean
  readonly user: string | undefined
  readonly password: Redacted.Redacted<string> | undefined
  /** The URL as a message may show it: no password. */
  readonly shown: string
}

const schemes = {
  smtp: { plain: "smtp:", tls: "smtps:", plainPort: 587, tlsPort: 465 },
  imap: { plain: "imap:", tls: "imaps:", plainPort: 143, tlsPort: 993 }
} as const

/**
 * The server `url` names for `kind`, the password from the URL or else
 * `password`; a string saying why when `url` is no such server's URL.
 */
export const parseServer = (
  kind: "smtp" | "imap",
  url: string,
  password?: Redacted.Redacted<string> | undefined
): MailServer | string => {
  const scheme = schemes[kind]
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `${kind} URL is not a URL (expected ${scheme.plain}//user@host:port or ${scheme.tls}//…)`
  }
  if (parsed.protocol !== scheme.plain && parsed.protocol !== scheme.tls) {
    return `${kind} URL must start with ${scheme.plain}// or ${scheme.tls}//, not ${parsed.protocol}//`
  }
  if (parsed.hostname === "") return `${kind} URL names no host`
  const secure = parsed.protocol === scheme.tls
  const user = parsed.username === "" ? undefined : decodeURIComponent(parsed.username)
  const inUrl = parsed.password === "" ? undefined : Redacted.make(decodeURIComponent(parsed.password))
  const shownUrl = new URL(parsed.href)
  if (shownUrl.password !== "") shownUrl.password = "***"
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1")
  return {
    host,
    requireStartTls: !secure && !isLoopback(host),
    port: parsed.port === "" ? (secure ? scheme.tlsPort : scheme.plainPort) : Number(parsed.port),
    secure,
    user,
    password: inUrl ?? password,
    shown: shownUrl.href.replace(/\/$/, "")
  }
}

/** Whether `host` names this machine's loopback interface. */
const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host)

/**
 * `text` with each of `secrets` (as given, and as a URL carries it) replaced
 * by `***`: what a library's error says may quote what it was given.
 */
export const mask = (text: string, secrets: ReadonlyArray<Redacted.Redacted<string> | undefined>): string => {
  let out = text
  for (const secret of secrets) {
    if (secret === undefined) continue
    const value = Redacted.value(secret)
    if (value === "") continue
    for (const form of new Set([value, encodeURIComponent(value), Buffer.from(value).toString("base64")])) {
      out = out.split(form).join("***")
    }
  }
  return out
}
