/**
 * The answer page as the server sends it: a fixed HTML shell with the style
 * sheet and the compiled page script (`web/browser/page.js`) inlined, and a
 * Content-Security-Policy that allows exactly those two by hash and nothing
 * else (no other script, no inline handler, no frame, no remote load).
 *
 * Nothing request-specific goes into the HTML: the page reads its token from
 * its own URL and fetches the questions, so model text never passes through
 * an HTML parser.
 *
 * @internal
 */
import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { unsafeSource } from "../internal/sanitize.js"
import { joinModules } from "./pageModules.js"
import { pageStyle } from "./pageStyle.js"

/** The page and the headers it must be served with. */
export interface WebPage {
  readonly html: string
  readonly contentSecurityPolicy: string
}

// Beside the compiled module (dist/web/browser); from the bundled program
// (dist/bin/chunks) the same file; and, when this module runs from source
// (src/web), the build of the same file in dist/.
const scriptCandidates = [
  new URL("./browser/page.js", import.meta.url),
  new URL("../../web/browser/page.js", import.meta.url),
  new URL("../../dist/web/browser/page.js", import.meta.url)
]

const loadScript = (): string => {
  const found = scriptCandidates.find((url) => existsSync(fileURLToPath(url)))
  if (found === undefined) {
    throw new Error(`The web page script is missing: build the package (npm run build) so that dist/web/browser/page.js exists.`)
  }
  // Source map comments are dropped with the modules' syntax: a map would be one more request the policy refuses.
  return joinModules((file) => readFileSync(new URL(file, found), "utf8"), "page.js")
}

/**
 * The page's script: its compiled module after the one constant it needs from
 * the package, the pattern of characters the terminal shows as escapes, so
 * that the page shows exactly those (the script is a file of its own and
 * imports nothing).
 */
const pageScript = (): string => `const inertPattern = new RegExp(${JSON.stringify(unsafeSource)}, "gu");\n${loadScript()}`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

let cached: WebPage | undefined

/** Builds the page once per process (the script is read from disk the first time). */
export const webPage = (): WebPage => {
  if (cached !== undefined) return cached
  const script = pageScript()
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Questions for you</title>
<link rel="icon" href="data:,">
<style>${pageStyle}</style>
</head>
<body>
<main>
<header>
<h1>Questions for you</h1>
<p id="connection" role="status">Connecting…</p>
</header>
<nav id="requests-nav" aria-label="Pending requests" hidden><ul id="requests"></ul></nav>
<section id="card" aria-labelledby="question-text"></section>
<div id="alert" role="alert"></div>
<div id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
</main>
<script type="module">${script}</script>
</body>
</html>
`
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(pageStyle)}`,
    "connect-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")
  cached = { html, contentSecurityPolicy }
  return cached
}
