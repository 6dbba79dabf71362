/** Packs this checkout as npm would publish it, into a fresh temp directory. */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Runs npm with its output captured (a failure throws with npm's stderr). */
export const npm = (args: ReadonlyArray<string>, cwd: string): string =>
  execFileSync("npm", [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/** `npm pack` of the built package: the temp directory and the tarball's path in it. */
export const packTarball = (prefix: string): { readonly dir: string; readonly tarball: string } => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  npm(["pack", "--silent", "--ignore-scripts", "--pack-destination", dir], process.cwd())
  return { dir, tarball: join(dir, readdirSync(dir).find((f) => f.endsWith(".tgz"))!) }
}
