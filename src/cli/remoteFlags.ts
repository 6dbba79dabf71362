/**
 * The flags of `ask-user inbox --web --remote`: the inbox over HTTPS on the
 * machine's network addresses for paired devices, with the person's own
 * certificate (`--tls-cert`, `--tls-key`) or behind a proxy that terminates
 * TLS (`--public-url`), and the rules that say which of them apply together.
 * Only flag definitions live here, so start-up loads no server.
 *
 * @internal
 */
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/** The parsed remote flags. */
export interface RemoteFlags {
  readonly remote: boolean
  readonly tlsCert: Option.Option<string>
  readonly tlsKey: Option.Option<string>
  readonly publicUrl: Option.Option<string>
}

/** The remote inbox's port when `--port` is not given. */
export const defaultRemotePort = 8443

/** True for an absolute http(s) URL. */
const isHttpUrl = (text: string): boolean => {
  const url = URL.parse(text)
  return url !== null && (url.protocol === "https:" || url.protocol === "http:")
}

/** The flags, to spread into the `inbox` command's configuration. */
export const remoteFlags = {
  remote: Flag.Boolean("remote").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "With --web: serve the inbox over HTTPS on this machine's network addresses (port 8443 unless --port; 0 = any " +
        "free port) for paired devices (ask-user pair); prints \"Inbox at https://HOST:PORT/ (SHA-256 fingerprint …)\" " +
        "first on stderr and, on a terminal, a QR code to pair a phone."
    )
  ),
  tlsCert: Flag.String("tls-cert").pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription(
      "With --remote: your certificate (PEM; with --tls-key) instead of the self-signed one kept in " +
        "$XDG_STATE_HOME/ask-user/tls/."
    ),
    Flag.optional
  ),
  tlsKey: Flag.String("tls-key").pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription("With --remote and --tls-cert: the certificate's private key (PEM)."),
    Flag.optional
  ),
  publicUrl: Flag.String("public-url").pipe(
    Flag.withMetavar("URL"),
    Flag.filter(isHttpUrl, () => "Expected an http(s) URL, such as https://inbox.example.org/"),
    Flag.withDescription(
      "With --remote, behind a reverse proxy or tunnel that terminates TLS: serve plain HTTP on loopback only; links " +
        "and the QR code use this URL."
    ),
    Flag.optional
  )
}

/**
 * The usage message for the first remote flag that cannot apply with the
 * others; undefined when they all can.
 */
export const remoteFlagRule = (
  flags: RemoteFlags & { readonly web: boolean; readonly token: Option.Option<string> }
): string | undefined => {
  if (flags.remote && !flags.web) return "--remote only applies with --web."
  if (!flags.remote) {
    const given = [["--tls-cert", flags.tlsCert], ["--tls-key", flags.tlsKey], ["--public-url", flags.publicUrl]] as const
    const first = given.find(([, value]) => Option.isSome(value))?.[0]
    return first === undefined ? undefined : `${first} only applies with --remote.`
  }
  if (Option.isSome(flags.token)) return "--token does not apply with --remote: paired devices sign in, not a token."
  if (Option.isSome(flags.tlsCert) !== Option.isSome(flags.tlsKey)) return "--tls-cert and --tls-key go together."
  if (Option.isSome(flags.publicUrl) && Option.isSome(flags.tlsCert)) {
    return "--tls-cert does not apply with --public-url: the proxy in front holds the certificate."
  }
  return undefined
}
