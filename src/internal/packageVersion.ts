/**
 * The package's own version, for `--version` and the protocol handshakes.
 *
 * @internal
 */
import { createRequire } from "node:module"

/** `version` from package.json (two levels up from both `src/internal` and `dist/internal`). */
export const packageVersion: string = (createRequire(import.meta.url)("../../package.json") as { version: string }).version
