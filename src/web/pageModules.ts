/**
 * The answer page's script as one text, from the browser modules `tsc`
 * compiled into `web/browser/` (decision 115). The page is served inline,
 * under a Content-Security-Policy hash, so it cannot import a file: each
 * module the entry imports (and each they import) is put before it as a
 * function scope that returns its exports, and each `import` becomes a
 * destructuring of that scope's result. Names a module keeps to itself stay
 * its own, so two modules may each have a `render`.
 *
 * Only the forms `tsc` writes for the page's own code are taken: `import {
 * a, b as c } from "./x.js"` and `export const|let|function|class`. Anything
 * else (a default or namespace import, a package import, `export { … }`)
 * throws when the page is first built, so a module written another way fails
 * every web test at once instead of breaking the page in a browser.
 *
 * @internal
 */

/** One compiled module, read apart. */
interface Parsed {
  readonly imports: ReadonlyArray<{ readonly from: string; readonly names: string }>
  readonly exports: ReadonlyArray<string>
  /** Its text with the import and export syntax taken out (imports become destructurings). */
  readonly body: string
}

const importLine = /^import \{ ([\w$]+(?: as [\w$]+)?(?:, [\w$]+(?: as [\w$]+)?)*) \} from "\.\/([\w-]+\.js)";$/
const exportDeclaration = /^export ((?:async )?function\*? |const |let |class )([\w$]+)/

/** The name of the constant that holds a module's exports: `page-preview.js` -> `__module_page_preview`. */
const scopeName = (file: string) => `__module_${file.replace(/\.js$/, "").replace(/\W/g, "_")}`

const parse = (file: string, text: string): Parsed => {
  const imports: Array<{ from: string; names: string }> = []
  const exports: Array<string> = []
  const lines = text.split("\n").flatMap((line, i) => {
    if (line.startsWith("//# sourceMappingURL=") || line === "export {};") return []
    const imported = importLine.exec(line)
    if (imported !== null) {
      const names = imported[1]!.replace(/ as /g, ": ")
      imports.push({ from: imported[2]!, names })
      return [`const { ${names} } = ${scopeName(imported[2]!)};`]
    }
    const exported = exportDeclaration.exec(line)
    if (exported !== null) {
      exports.push(exported[2]!)
      return [line.slice("export ".length)]
    }
    if (/^(import|export)\b/.test(line)) {
      throw new Error(
        `The web page's module ${file} has a form of import or export the page cannot join (line ${i + 1}: ${line}); ` +
          `use named imports from "./module.js" and "export const/function/class".`
      )
    }
    return [line]
  })
  return { imports, exports, body: lines.join("\n") }
}

/**
 * The page's script: `entry` after every module it needs, each module once,
 * each before the modules that import it. `read` gives a module's compiled
 * text by file name. A cycle of imports throws.
 */
export const joinModules = (read: (file: string) => string, entry: string): string => {
  const parts: Array<string> = []
  const state = new Map<string, "joining" | "joined">()
  const join = (file: string) => {
    const seen = state.get(file)
    if (seen === "joined") return
    if (seen === "joining") throw new Error(`The web page's modules import each other in a cycle through ${file}.`)
    state.set(file, "joining")
    const module = parse(file, read(file))
    for (const { from } of module.imports) join(from)
    state.set(file, "joined")
    parts.push(
      file === entry
        ? module.body
        : `const ${scopeName(file)} = (() => {\n${module.body}\nreturn { ${module.exports.join(", ")} };\n})();\n`
    )
  }
  join(entry)
  return parts.join("")
}
