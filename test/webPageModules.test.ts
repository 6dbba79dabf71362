/**
 * The page's script is several compiled modules joined into one inline
 * script (decision 115): each module once, before those that import it, its
 * own names kept to itself; forms it cannot join fail loudly. And the page
 * served with `review` differs from the default only by its `<meta>`.
 */
import { describe, expect, it } from "@effect/vitest"
import { runInNewContext } from "node:vm"
import { webPage } from "../src/web/page.js"
import { joinModules } from "../src/web/pageModules.js"

/** A reader over in-memory modules; throws for a module that is not there, as a missing file would. */
const files = (modules: Record<string, string>) => (file: string) => {
  const text = modules[file]
  if (text === undefined) throw new Error(`ENOENT: ${file}`)
  return text
}

/** Runs a joined script (as the browser would, minus the DOM) and returns what it put in `out`. */
const run = (script: string): unknown => {
  const sandbox: { out: Array<unknown> } = { out: [] }
  runInNewContext(script, sandbox)
  return sandbox.out
}

describe("joining the page's modules", () => {
  it("puts each module once, before the modules that import it, and keeps its private names to itself", () => {
    const modules = {
      "page.js": [
        `import { greet } from "./greet.js";`,
        `import { shout as loud, render } from "./shout.js";`,
        `const render2 = render;`,
        `out.push(greet("ana"), loud("hi"), render2());`,
        `export {};`,
        `//# sourceMappingURL=page.js.map`
      ].join("\n"),
      "greet.js": [`import { shout } from "./shout.js";`, `const render = () => "greet's own";`, `export const greet = (name) => shout(\`hello \${name}\`) + render();`].join("\n"),
      "shout.js": [`const render = () => "shout's own";`, `export function shout(text) { return text.toUpperCase(); }`, `export { render };`].join("\n")
    }
    // `export { … }` is not a form the page uses: refused, naming the module and the line.
    expect(() => joinModules(files(modules), "page.js")).toThrow(/shout\.js .*line 3: export \{ render \};/)

    const fixed = { ...modules, "shout.js": modules["shout.js"].replace("const render = () => \"shout's own\";\n", "").replace("export { render };", "export const render = () => \"shout's own\";") }
    const script = joinModules(files(fixed), "page.js")
    expect(script.match(/const __module_shout =/g)).toHaveLength(1)
    expect(script.indexOf("__module_shout =")).toBeLessThan(script.indexOf("__module_greet ="))
    expect(script).not.toMatch(/^(import|export)\b/m)
    expect(script).not.toContain("sourceMappingURL")
    expect(run(script)).toEqual(["HELLO ANAgreet's own", "HI", "shout's own"])
  })

  it("refuses the forms it cannot join: default, namespace and package imports; an import cycle", () => {
    for (
      const line of [
        `import shout from "./shout.js";`,
        `import * as shout from "./shout.js";`,
        `import { Effect } from "effect";`,
        `import "./shout.js";`,
        `export default 1;`
      ]
    ) {
      expect(() => joinModules(files({ "page.js": `${line}\nout.push(1);` }), "page.js")).toThrow(/cannot join/)
    }
    const cycle = { "page.js": `import { a } from "./a.js";`, "a.js": `import { b } from "./b.js";\nexport const a = 1;`, "b.js": `import { a } from "./a.js";\nexport const b = 2;` }
    expect(() => joinModules(files(cycle), "page.js")).toThrow(/cycle through a\.js/)
  })

  it("the page served with review differs only by its meta element, under the same policy", () => {
    const plain = webPage()
    const reviewing = webPage({ review: true })
    expect(plain.html).not.toContain(`<meta name="review-before-submit"`)
    expect(reviewing.html).toContain(`<meta name="review-before-submit" content="on">`)
    expect(reviewing.html.replace(`<meta name="review-before-submit" content="on">\n`, "")).toBe(plain.html)
    expect(reviewing.contentSecurityPolicy).toBe(plain.contentSecurityPolicy)
    // The built page joins every browser module it imports, and nothing is left to import.
    expect(plain.html).toContain("const __module_choices =")
    expect(plain.html).not.toMatch(/^import /m)
  })
})
