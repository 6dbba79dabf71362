/**
 * The secret page's HTML: one form with a password field, posted back to the
 * page's own one-time address, and the short pages that follow it (received,
 * closed, not found). No script at all: the form posts as a browser posts
 * any form, and the Content-Security-Policy allows the one inlined style
 * sheet, by hash, and form posts to this origin, nothing else.
 *
 * The question is model text: every character the terminal would show as an
 * escape is shown so here too (`sanitize`), then the text is escaped for
 * HTML, so it reads as text and never as markup.
 *
 * @internal
 */
import { createHash } from "node:crypto"
import type { AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { sanitize } from "../internal/sanitize.js"

/** A page and the Content-Security-Policy it is served with. */
export interface SecretPageHtml {
  readonly html: string
  readonly contentSecurityPolicy: string
}

const style = `
:root { color-scheme: light dark; --fg: #1b1b1f; --bg: #f6f6f8; --card: #fff; --muted: #5c5c66; --line: #c9c9d2;
  --accent: #2450c8; --accent-fg: #fff; --danger: #a3222d; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #ececf1; --bg: #15151a; --card: #202028; --muted: #a9a9b6; --line: #43434f;
    --accent: #8eaaff; --accent-fg: #0b0b10; --danger: #ff8a93; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 36rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.25rem; margin: 0.25rem 0 0.75rem; overflow-wrap: anywhere; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1rem; }
.header, .note { color: var(--muted); font-size: 0.9rem; margin: 0 0 0.5rem; overflow-wrap: anywhere; }
label { display: block; font-weight: 600; margin: 0 0 0.5rem; overflow-wrap: anywhere; white-space: pre-wrap; }
input { width: 100%; min-height: 44px; font-size: 16px; padding: 0.5rem; border: 1px solid var(--line);
  border-radius: 8px; background: var(--bg); color: var(--fg); }
.actions { display: flex; gap: 0.5rem; margin-top: 0.75rem; flex-wrap: wrap; }
button { min-height: 44px; min-width: 44px; font-size: 16px; padding: 0.5rem 1rem; border-radius: 8px;
  border: 1px solid var(--line); background: var(--card); color: var(--fg); cursor: pointer; }
button[type="submit"]:first-child { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.alert { color: var(--danger); margin: 0.5rem 0 0; }
`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/** The page's policy: the inlined style sheet, and form posts to this origin; no script, frame or load. */
const contentSecurityPolicy = [
  "default-src 'none'",
  `style-src ${sha256(style)}`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join("; ")

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** Model text as HTML text: invisible and control characters shown as escapes, markup characters escaped. */
export const htmlText = (text: string): string => sanitize(text).replace(/[&<>"']/g, (char) => entities[char]!)

const nonBlank = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

const page = (title: string, body: string): SecretPageHtml => ({
  html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`,
  contentSecurityPolicy
})

/**
 * The form for one secret question: who asks, the question as the
 * password field's label, Submit and Skip. `notice` says why the last post
 * was refused (an empty secret), if it was.
 */
export const formPage = (
  question: AskUserQuestionItem,
  request: AskUserQuestionRequest,
  notice?: string
): SecretPageHtml => {
  const who = nonBlank(request.agent?.name) ? htmlText(request.agent.name) : "The agent"
  const header = nonBlank(question.header) ? `<p class="header">${htmlText(question.header)}</p>\n` : ""
  const alert = notice === undefined ? "" : `<p class="alert" role="alert">${htmlText(notice)}</p>\n`
  return page(
    "A secret for the agent",
    `<h1>${who} asks for a secret</h1>
<form class="card" method="post" autocomplete="off">
${header}<label for="secret">${htmlText(question.question)}</label>
<input id="secret" name="secret" type="password" autocomplete="off" autocapitalize="off" spellcheck="false" required autofocus>
${alert}<p class="note">This page takes one answer and then closes. What you type goes to the program that asked; the model is only told that it was received.</p>
<div class="actions">
<button type="submit">Submit</button>
<button type="submit" name="skip" value="1" formnovalidate>Skip</button>
</div>
</form>`
  )
}

/** After the post: the secret was taken (or the question skipped), and the page is closed. */
export const receivedPage = (skipped: boolean): SecretPageHtml =>
  page(
    skipped ? "Skipped" : "Received",
    `<h1>${skipped ? "Skipped" : "Received"}</h1>
<p class="card" role="status">${
      skipped ? "The question was skipped." : "The secret was received."
    } This page is closed now; you can close the tab.</p>`
  )

/** A page that was used, or whose question ended. */
export const closedPage: SecretPageHtml = page(
  "Closed",
  `<h1>This page is closed</h1>
<p class="card">It has been used already, or the question it was for has ended. Nothing you send here is taken.</p>`
)

/** An address that never was a secret page. */
export const notFoundPage: SecretPageHtml = page(
  "Not found",
  `<h1>Not found</h1>
<p class="card">There is no page at this address.</p>`
)
