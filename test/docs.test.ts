/**
 * The TypeScript in README.md and docs/*.md is what users copy: every ```ts
 * block must type-check, with the project's strict options, against the
 * package's own entry points. A block may lean on context it does not show
 * (a `request` defined earlier on the page, the tool the snippet wraps):
 * an HTML comment right above it, `<!-- prelude: ... -->`, holds that
 * context as code, invisible on the rendered page. A first line
 * `untyped: a, b` in that comment names packages the block imports that are
 * not installed here (the OTLP exporters); they type-check as `any`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { removeTempDirs, runWith, tempFiles } from "./cliHarness.js"

const root = fileURLToPath(new URL("..", import.meta.url))

interface Snippet {
  readonly name: string
  readonly code: string
  readonly untyped: ReadonlyArray<string>
}

/** The ```ts blocks of `file`, each with the prelude and untyped packages its comment gives. */
const snippetsOf = (file: string): ReadonlyArray<Snippet> => {
  const text = readFileSync(join(root, file), "utf8")
  const blocks = text.matchAll(/(?:<!--\s*((?:prelude|untyped):[\s\S]*?)-->\s*\n)?^```ts\n([\s\S]*?)^```/gm)
  return Array.from(blocks, (match, index) => {
    const comment = match[1] ?? ""
    const prelude = /(?:^|\n)prelude:([\s\S]*)$/.exec(comment)?.[1] ?? ""
    const untyped = /^untyped:(.*)/.exec(comment)?.[1]?.split(",").map((name) => name.trim()) ?? []
    // The prelude's imports go first, so the snippet's own `import`s stay legal after it.
    return { name: `${file}#${index + 1}`, code: `${prelude}\n${match[2]!}`, untyped }
  })
}

const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
const snippets = files.flatMap(snippetsOf)

describe("the TypeScript in the docs", () => {
  it("finds the blocks it checks", () => {
    expect(snippets.length).toBeGreaterThanOrEqual(10)
  })

  it("every block type-checks, as a user would paste it", () => {
    const dir = mkdtempSync(join(root, "test", ".docs-"))
    try {
      const names = snippets.map((snippet, i) => {
        const path = join(dir, `snippet${i}.ts`)
        writeFileSync(path, snippet.code)
        return path
      })
      const untyped = Array.from(new Set(snippets.flatMap((s) => s.untyped)))
      const ambient = join(dir, "untyped.d.ts")
      writeFileSync(ambient, untyped.map((name) => `declare module ${JSON.stringify(name)}\n`).join(""))
      const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile)
      const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root)
      const program = ts.createProgram([...names, ambient], { ...options, noEmit: true, noUnusedLocals: false })
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const i = d.file === undefined ? -1 : names.indexOf(d.file.fileName)
        const where = i === -1 ? d.file?.fileName ?? "" : snippets[i]!.name
        const line = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0
        return `${where} line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
      })
      expect(problems).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

describe("the command lines in docs/terminal.md", () => {
  afterAll(removeTempDirs)
  const page = readFileSync(join(root, "docs/terminal.md"), "utf8")
  const [request, keyedAnswers] = Array.from(page.matchAll(/^```json\n([\s\S]*?)^```/gm), (m) => m[1]!)
  const lineMode = /^printf '([^']*)' \| ask-user request\.json/m.exec(page)?.[1]

  it("the page's sample request, answered by its line-mode example and by its keyed --answers example", async () => {
    expect(lineMode).toBeDefined()
    const files = tempFiles({ "request.json": request!, "answers.json": keyedAnswers! })
    const answered = {
      answers: [
        { id: "db", selected: ["SQLite"] },
        { id: "features", selected: ["auth", "billing"] },
        { id: "name", selected: [], custom: "ledger" }
      ]
    }
    // The example's printf escapes, as the shell's printf reads them.
    const piped = await runWith([files["request.json"]!], lineMode!.replaceAll("\\n", "\n"))
    expect(piped.code).toBe(0)
    expect(JSON.parse(piped.stdout)).toEqual(answered)
    const scripted = await runWith(["--answers", files["answers.json"]!, files["request.json"]!])
    expect(scripted.code).toBe(0)
    expect(JSON.parse(scripted.stdout)).toEqual(answered)
  }, 60_000)
})
