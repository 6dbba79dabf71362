/**
 * The device commands of `ask-user`: `pair` (a fresh pairing code for the
 * remote inbox running on the store) and `devices` (the paired devices;
 * `devices revoke ID|NAME`). Only the command tree lives here; the handlers
 * (`devices.ts`) load the durable surface when they run.
 *
 * @since 0.3.0
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { store } from "./durableCommands.js"

const handlers = Effect.promise(() => import("./devices.js"))

const pairCommand = Command.make("pair", { store }, (config) => Effect.flatMap(handlers, (h) => h.pair(config))).pipe(
  Command.withDescription(
    "Make a pairing code for the remote inbox (ask-user inbox --web --remote) on the store: prints " +
      "{code, url?, expiresAt} (url: https://HOST:PORT/pair#code=CODE of the running inbox), and its QR code on stderr " +
      "when stderr is a terminal. Single use, valid 10 minutes."
  )
)

const revokeCommand = Command.make("revoke", {
  store,
  device: Argument.String("device").pipe(
    Argument.withMetavar("ID|NAME"),
    Argument.withDescription("The device's id, or its name (every device of that name).")
  )
}, (config) => Effect.flatMap(handlers, (h) => h.revoke(config))).pipe(
  Command.withDescription(
    "Revoke a paired device at once: its open pages stop within a second and its next request is refused. " +
      "Prints the devices revoked; exit 0, or 6 when no device has that id or name."
  )
)

const devicesCommand = Command.make("devices", { store }, (config) => Effect.flatMap(handlers, (h) => h.list(config))).pipe(
  Command.withDescription("List the paired devices, one JSON object a line: {id, name, pairedAt, lastSeenAt?}."),
  Command.withSubcommands([revokeCommand])
)

/**
 * The device subcommands.
 *
 * @since 0.3.0
 */
export const devicesCommands = [pairCommand, devicesCommand] as const
