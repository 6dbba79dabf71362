/**
 * Builds `dist/` once before the suite (`npm run build`: the library with tsc,
 * the bundled program with esbuild): the end-to-end tests run the built
 * `ask-user` program, as a user would. Type errors are reported by
 * `npm run typecheck`; here only a failed emit stops the run.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"

/** What the end-to-end tests drive besides Node; `.ci/run` installs them when missing. */
const requiredTools = [
  ["tmux", ["-V"]],
  ["/usr/bin/chromium", ["--version"]]
] as const

export default function setup(): void {
  const missing = requiredTools.filter(([tool, args]) => spawnSync(tool, args).status !== 0).map(([tool]) => tool)
  if (missing.length > 0) {
    throw new Error(`The end-to-end tests need ${missing.join(" and ")}: apt-get install -y tmux chromium`)
  }
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  try {
    // Build mode: nothing to do when the sources did not change since the last build (npm ci's).
    execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { stdio: "pipe" })
  } catch (error) {
    if (!existsSync("dist/index.js")) throw error
    process.stderr.write(`tsc reported errors; testing what it emitted:\n${String((error as { stdout?: unknown }).stdout)}\n`)
  }
  execFileSync(process.execPath, ["scripts/bundle-bin.mjs"], { stdio: "pipe" })
}
