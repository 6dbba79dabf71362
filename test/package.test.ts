/**
 * The packed tarball, installed into a fresh project with nothing but its
 * declared dependencies (npm installs the peers), imports cleanly from every
 * entry point and its program starts, installed and through `npx -p`.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync("npm", [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

describe("the published package", () => {
  it("imports cleanly in a fresh project under this Node", { timeout: 480_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "eui-pack-"))
    try {
      npm(["pack", "--silent", "--ignore-scripts", "--pack-destination", dir], process.cwd())
      const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"))!
      const app = join(dir, "app")
      execFileSync("mkdir", [app])
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
      // --prefer-offline: the dependencies are in npm's cache from this checkout's own install.
      npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(dir, tarball)], app)
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
        "const surfaces = { terminal: 'TerminalProvider', web: 'WebProvider', acp: 'AcpProvider', mcp: 'McpProvider', durable: 'DurableStore' }",
        "for (const [path, name] of Object.entries(surfaces)) { const s = await import('effect-user-interaction/' + path); if (!(name in s)) throw new Error(path + ' lacks ' + name) }"
      ].join(";")
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: app, encoding: "utf8" })
      expect(JSON.parse(out)).toEqual({ answers: [{ id: "a", selected: ["x"] }] })
      const help = execFileSync(join(app, "node_modules", ".bin", "ask-user"), ["--help"], { cwd: app, encoding: "utf8" })
      expect(help).toContain("ask-user")
      // `npx -p <tarball> ask-user`, as a README reader would try it before installing.
      const npx = execFileSync("npx", ["--yes", "--prefer-offline", "-p", join(dir, tarball), "ask-user", "--version"], {
        cwd: dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"]
      })
      expect(npx).toMatch(/^ask-user v\d+\.\d+\.\d+/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
