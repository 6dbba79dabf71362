/**
 * `npx -p <tarball> ask-user` (`npm exec --package`), as a README reader would try the program
 * before installing it: npm installs the packed package and its dependencies
 * into its own cache and runs the bin.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { npm, packTarball } from "./support/pack.js"

/** The directories of npm's `npx` cache under `root` (one per package list run through `npm exec`). */
const npxInstalls = (root: string): Set<string> =>
  new Set(existsSync(root) ? readdirSync(root).map((name) => join(root, name)) : [])

describe("the published program", () => {
  it("runs through npx -p <tarball>", { timeout: 480_000 }, () => {
    const { dir, tarball } = packTarball("eui-npx-")
    const npxRoot = join(npm(["config", "get", "cache"], dir).trim(), "_npx")
    const before = npxInstalls(npxRoot)
    try {
      // --prefer-offline: the dependencies are in npm's cache from this checkout's own install.
      const version = npm(["exec", "--yes", "--prefer-offline", `--package=${tarball}`, "--", "ask-user", "--version"], dir)
      expect(version).toMatch(/^ask-user v\d+\.\d+\.\d+\n$/)
      const help = npm(["exec", "--yes", "--prefer-offline", `--package=${tarball}`, "--", "ask-user", "--help"], dir)
      expect(help).toContain("ask-user")
    } finally {
      rmSync(dir, { recursive: true, force: true })
      // Each run's tarball is a new package to npx: its install (about 115 MB) would stay in the
      // cache for good. Remove the one this run made, and only if it holds this package.
      for (const install of npxInstalls(npxRoot)) {
        if (!before.has(install) && existsSync(join(install, "node_modules", "effect-user-interaction"))) {
          rmSync(install, { recursive: true, force: true })
        }
      }
    }
  })
})
