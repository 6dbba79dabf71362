/**
 * The packed tarball, installed into a fresh project with nothing but its
 * declared dependencies (npm installs the peers), imports cleanly from every
 * entry point and its program starts (`npx -p` in `packageNpx.test.ts`, a
 * file of its own so the two installs run side by side).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { npm, packTarball } from "./support/pack.js"

describe("the published package", () => {
  it("imports cleanly in a fresh project under this Node", { timeout: 480_000 }, () => {
    const { dir, tarball } = packTarball("eui-pack-")
    try {
      const app = join(dir, "app")
      execFileSync("mkdir", [app])
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
      // --prefer-offline: the dependencies are in npm's cache from this checkout's own install.
      npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], app)
      const script = [
        "const m = await import('effect-user-interaction')",
        "const names = ['UserInteraction', 'UserInteractionProvider', 'ScriptedProvider', 'makeUserInteractionClient', 'HarnessError', 'AskUserQuestionRequest']",
        "const missing = names.filter((n) => !(n in m))",
        "if (missing.length) throw new Error('missing ' + missing)",
        "const c = m.makeUserInteractionClient()",
        "c.registerProvider({ ask: async () => ({ answers: [{ id: 'a', selected: ['x'] }] }) })",
        "console.log(JSON.stringify(await c.ask({ questions: [{ id: 'a', question: 'A?', options: [{ label: 'x' }] }] })))",
        "await c.dispose()",
        // Every surface is its own entry point.
        "const surfaces = { terminal: 'TerminalProvider', web: 'WebProvider', acp: 'AcpProvider', mcp: 'McpProvider', durable: 'DurableStore', slack: 'SlackProvider' }",
        "for (const [path, name] of Object.entries(surfaces)) { const s = await import('effect-user-interaction/' + path); if (!(name in s)) throw new Error(path + ' lacks ' + name) }"
      ].join(";")
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: app, encoding: "utf8" })
      expect(JSON.parse(out)).toEqual({ answers: [{ id: "a", selected: ["x"] }] })
      const help = execFileSync(join(app, "node_modules", ".bin", "ask-user"), ["--help"], { cwd: app, encoding: "utf8" })
      expect(help).toContain("ask-user")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
