/**
 * `npx -p <tarball> ask-user` (`npm exec --package`), as a README reader would try the program
 * before installing it: npm installs the packed package and its dependencies
 * into its own cache and runs the bin.
 */
import { describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { npm, packTarball } from "./support/pack.js"

describe("the published program", () => {
  it("runs through npx -p <tarball>", { timeout: 480_000 }, () => {
    const { dir, tarball } = packTarball("eui-npx-")
    try {
      // --prefer-offline: the dependencies are in npm's cache from this checkout's own install.
      const version = npm(["exec", "--yes", "--prefer-offline", `--package=${tarball}`, "--", "ask-user", "--version"], dir)
      expect(version).toMatch(/^ask-user v\d+\.\d+\.\d+\n$/)
      const help = npm(["exec", "--yes", "--prefer-offline", `--package=${tarball}`, "--", "ask-user", "--help"], dir)
      expect(help).toContain("ask-user")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
