/**
 * The handlers of `ask-user pair` and `ask-user devices [revoke]`: pairing
 * codes and paired devices in the durable store, where the running remote
 * inbox (`ask-user inbox --web --remote`, perhaps in another process or on
 * another machine sharing a PostgreSQL store) meets them.
 *
 * @since 0.3.0
 */
import { existsSync } from "node:fs"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { DurableInbox } from "../durable/DurableInbox.js"
import type { Device } from "../durable/devices.js"
import { sqlitePath } from "../durable/storeUrl.js"
import { listing, printLine, storeUrl, withInbox } from "./durable.js"
import { ExitCode, WithExitCode } from "./exitCodes.js"
import { pairingBlock, pairUrl } from "./pairingOutput.js"
import { writeStdout } from "./stdout.js"
import { inertJson } from "../internal/sanitize.js"

/** A device as the commands print it: `{id, name, pairedAt, lastSeenAt?}`. */
const deviceJson = (device: Device) => ({
  id: device.id,
  name: device.name,
  pairedAt: device.pairedAt.toISOString(),
  ...(device.lastSeenAt === undefined ? {} : { lastSeenAt: device.lastSeenAt.toISOString() })
})

const printDevices = (what: string, devices: ReadonlyArray<Device>) =>
  devices.length === 0
    ? Effect.void
    : writeStdout(what, `${devices.map((device) => inertJson(deviceJson(device))).join("\n")}\n`)

/**
 * `ask-user pair`: a fresh code as `{"code","url"?,"expiresAt"}` on stdout
 * (`url` when a remote inbox runs on the store), and on a terminal the QR
 * code of that URL and the code on stderr.
 *
 * @since 0.3.0
 */
export const pair = (config: { readonly store: Option.Option<string> }) =>
  Effect.gen(function*() {
    const { devices } = yield* DurableInbox
    const { code, expiresAt } = yield* devices.newCode
    const base = yield* devices.remoteInbox
    const url = base === undefined ? undefined : pairUrl(base, code)
    yield* printLine("the pairing code", { code, ...(url === undefined ? {} : { url }), expiresAt: expiresAt.toISOString() })
    if (process.stderr.isTTY === true) process.stderr.write(pairingBlock(code, expiresAt, url))
    if (url === undefined) {
      process.stderr.write(
        "ask-user: no remote inbox runs on this store now: start one with 'ask-user inbox --web --remote' " +
          "and open its /pair page within 10 minutes.\n"
      )
    }
  }).pipe(withInbox(storeUrl(config.store)))

/**
 * `ask-user devices`: the paired devices, one JSON object a line; nothing
 * when the store does not exist yet.
 *
 * @since 0.3.0
 */
export const list = (config: { readonly store: Option.Option<string> }) =>
  listing(config.store, Effect.flatMap(DurableInbox, ({ devices }) => Effect.flatMap(devices.list, (all) => printDevices("the devices", all))))

/**
 * `ask-user devices revoke ID|NAME`: revokes the device with that id, else
 * every device with that name, and prints them; exit 6 when none has it.
 *
 * @since 0.3.0
 */
export const revoke = (config: { readonly store: Option.Option<string>; readonly device: string }) => {
  const url = storeUrl(config.store)
  const noDevice = (more: string) =>
    Effect.fail(
      new WithExitCode({
        error: new Error(`No paired device has the id or name ${JSON.stringify(config.device)}${more}.`),
        // The status of an unknown ask id: the same "no such thing" for scripts.
        exitCode: ExitCode.unknownAsk
      })
    )
  // A mistyped store path must not leave an empty store behind.
  const file = sqlitePath(url)
  if (file !== undefined && file !== ":memory:" && !existsSync(file)) return noDevice(`: the store ${file} does not exist`)
  return Effect.gen(function*() {
    const { devices } = yield* DurableInbox
    const revoked = yield* devices.revoke(config.device)
    if (revoked.length === 0) return yield* noDevice("")
    yield* printDevices("the revoked devices", revoked)
  }).pipe(withInbox(url))
}
