/**
 * The command-line flags of `ask-user`'s web mode: `--web`, `--port`,
 * `--host`, `--token` and `--terminal`. Only flag definitions live here, so
 * the program's start-up does not load the HTTP server.
 *
 * @internal
 */
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/** The parsed web flags. */
export interface WebFlags {
  /** Ask in a web page (`--web`). */
  readonly web: boolean
  /** Also ask on the terminal, the first answer wins (`--terminal`, with `--web`). */
  readonly terminal: boolean
  readonly port: Option.Option<number>
  readonly host: Option.Option<string>
  readonly token: Option.Option<string>
}

/** The flags, to spread into the root command's configuration. */
export const webFlags = {
  web: Flag.Boolean("web").pipe(
    Flag.withDefault(false),
    Flag.withDescription("Ask in a web page served on loopback; prints \"Answer at <url>\" first on stderr.")
  ),
  terminal: Flag.Boolean("terminal").pipe(
    Flag.withDefault(false),
    Flag.withDescription("With --web: ask on the terminal too; the first answer wins.")
  ),
  port: Flag.Int("port").pipe(
    Flag.withMetavar("N"),
    Flag.filterMap(
      (port) => Number.isInteger(port) && port >= 0 && port <= 65535 ? Option.some(port) : Option.none(),
      () => "Expected a port from 0 (any free port) to 65535"
    ),
    Flag.withDescription("With --web: the port to listen on (default 0, any free port)."),
    Flag.optional
  ),
  host: Flag.String("host").pipe(
    Flag.withMetavar("HOST"),
    Flag.withDescription("With --web: the address to listen on (default 127.0.0.1; the token is still required)."),
    Flag.optional
  ),
  token: Flag.String("token").pipe(
    Flag.withMetavar("TOKEN"),
    Flag.filterMap(
      (token) => /^[\x21-\x7e]+$/.test(token) ? Option.some(token) : Option.none(),
      () => "Expected printable ASCII without spaces"
    ),
    Flag.withDescription("With --web: the token every request must carry (default: random)."),
    Flag.optional
  )
}
