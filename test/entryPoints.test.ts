/**
 * SPEC "Package layout and entry points": importing the core loads no
 * protocol SDK, no HTTP server and no terminal code; importing a surface loads
 * no other surface's dependencies. Each import runs in a fresh Node process
 * against the built package, and the loaded modules are read back from Node's
 * own module registry (`process.moduleLoadList` for built-ins) and its resolve
 * hooks (the URLs of files, imported or required).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The module URLs and built-ins loaded by importing `specifier` from the built package. */
const loadedBy = (specifier: string, then = ""): ReadonlyArray<string> => {
  // A synchronous resolve hook (module.registerHooks, in this thread; it sees require() too)
  // records every URL the import resolves. The off-thread loader of module.register did the
  // same at twice the CPU per process.
  const script = `
    import { registerHooks } from "node:module"
    const seen = []
    registerHooks({ resolve(s, c, next) { const r = next(s, c); seen.push(r.url); return r } })
    const imported = await import(${JSON.stringify(specifier)})
    ${then}
    const builtins = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => "node:" + m.slice(13))
    process.stdout.write(JSON.stringify([...seen, ...builtins]))
  `
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })
  return JSON.parse(out) as Array<string>
}

const protocolSdks = /@modelcontextprotocol|@agentclientprotocol|@slack\//
const http = /^node:(http|https|_http_server|_http_common|_http_agent)$/
const terminalCode = /\/dist\/terminal\/|effect\/dist\/cli\/|node:(readline|tty)$/

describe("entry points", () => {
  it("the package root loads no protocol SDK, no HTTP server and no terminal code", () => {
    const loaded = loadedBy("effect-user-interaction")
    expect(loaded.some((m) => m.endsWith("/dist/index.js"))).toBe(true)
    expect(loaded.filter((m) => protocolSdks.test(m))).toEqual([])
    expect(loaded.filter((m) => http.test(m))).toEqual([])
    expect(loaded.filter((m) => terminalCode.test(m))).toEqual([])
  })

  it("/terminal loads no protocol SDK and no HTTP server", () => {
    const loaded = loadedBy("effect-user-interaction/terminal")
    expect(loaded.some((m) => m.endsWith("/dist/terminal/TerminalProvider.js"))).toBe(true)
    expect(loaded.filter((m) => protocolSdks.test(m))).toEqual([])
    expect(loaded.filter((m) => http.test(m))).toEqual([])
  })

  it.each([
    ["web", /\/dist\/(acp|mcp|terminal|slack)\/|@modelcontextprotocol|@agentclientprotocol|@slack\//],
    ["acp", /\/dist\/(web|mcp|terminal|slack)\/|@modelcontextprotocol|@slack\//],
    ["mcp", /\/dist\/(web|acp|terminal|slack)\/|@agentclientprotocol|@slack\//],
    ["slack", /\/dist\/(web|acp|mcp|terminal|durable)\/|@modelcontextprotocol|@agentclientprotocol/]
  ])("/%s loads no other surface", (surface, others) => {
    const loaded = loadedBy(`effect-user-interaction/${surface}`)
    expect(loaded.some((m) => m.includes(`/dist/${surface}/`))).toBe(true)
    expect(loaded.filter((m) => others.test(m))).toEqual([])
    // The record sees dependencies too: a surface's own SDK shows up in it.
    const sdk = { acp: "@agentclientprotocol/", mcp: "@modelcontextprotocol/", slack: "@slack/socket-mode/" }[surface]
    if (sdk !== undefined) expect(loaded.some((m) => m.includes(sdk))).toBe(true)
    else expect(loaded).toContain("node:http")
  })

  it("/durable loads no other surface and no database driver until a store is opened; a SQLite store never loads the pg driver", { timeout: 120_000 }, () => {
    const other = /\/dist\/(web|acp|mcp|terminal|slack)\/|@modelcontextprotocol|@agentclientprotocol|@slack\//
    const loaded = loadedBy("effect-user-interaction/durable")
    expect(loaded.some((m) => m.includes("/dist/durable/"))).toBe(true)
    expect(loaded.filter((m) => other.test(m) || m.includes("@effect/sql-pg") || m === "node:sqlite")).toEqual([])
    expect(loadedBy("effect-user-interaction").filter((m) => m.includes("/dist/durable/"))).toEqual([])
    const withSqlite = loadedBy(
      "effect-user-interaction/durable",
      `const { Effect } = await import("effect")
       await Effect.runPromise(Effect.provide(Effect.void, imported.DurableStore.layer("sqlite::memory:")))`
    )
    expect(withSqlite).toContain("node:sqlite")
    expect(withSqlite.filter((m) => m.includes("@effect/sql-pg"))).toEqual([])
  })
})
