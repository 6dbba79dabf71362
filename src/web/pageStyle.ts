/**
 * The answer page's style sheet: one column that fits a phone (360 CSS px
 * wide with no sideways scroll), touch targets of 44 px or more, inputs at
 * 16 px (so a phone does not zoom into them), a visible focus ring, light and
 * dark schemes. A question with
 * previews widens the page on a wide screen and puts the preview panel beside
 * its options; below 48rem the panel goes under them.
 *
 * @internal
 */

/** The CSS inlined into the page (allowed by its hash). */
export const pageStyle = `
:root { color-scheme: light dark; --fg: #1b1b1f; --bg: #f6f6f8; --card: #fff; --muted: #5c5c66; --line: #c9c9d2;
  --accent: #2450c8; --accent-fg: #fff; --danger: #a3222d; --chosen: #e3eaff; --badge: #0d6b3a; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #ececf1; --bg: #15151a; --card: #202028; --muted: #a9a9b6; --line: #43434f;
    --accent: #8eaaff; --accent-fg: #0b0b10; --danger: #ff8a93; --chosen: #2b3556; --badge: #7fdcaa; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 42rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.25rem; margin: 0.25rem 0; }
h2 { font-size: 1.2rem; margin: 0.25rem 0 0.75rem; overflow-wrap: anywhere; }
#connection { color: var(--muted); margin: 0 0 1rem; font-size: 0.9rem; }
#requests { list-style: none; margin: 0 0 1rem; padding: 0; display: grid; gap: 0.4rem; }
.request { width: 100%; text-align: left; display: grid; gap: 0.1rem; }
.request[aria-current="true"] { border-color: var(--accent); box-shadow: inset 4px 0 0 var(--accent); }
.request-agent, .request-count { color: var(--muted); font-size: 0.85rem; }
.request-first { overflow-wrap: anywhere; }
#card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1rem; }
#card[aria-busy="true"] { opacity: 0.6; }
#claim-status:not(:empty) { margin: 0 0 0.75rem; padding: 0.6rem 0.8rem; border-radius: 10px; border: 1px solid var(--accent);
  overflow-wrap: anywhere; }
.text:disabled, label.option:has(input:disabled) { opacity: 0.6; cursor: default; }
.asker, .progress { margin: 0; color: var(--muted); font-size: 0.9rem; }
.chip { display: inline-block; max-width: 100%; box-sizing: border-box; margin: 0.5rem 0 0; padding: 0.1rem 0.6rem;
  border-radius: 0.75rem; border: 1px solid var(--line); font-size: 0.8rem; overflow-wrap: anywhere; }
.options { display: grid; gap: 0.5rem; margin-bottom: 0.75rem; }
button, .option { font: inherit; color: inherit; background: var(--card); border: 1px solid var(--line);
  border-radius: 10px; padding: 0.65rem 0.9rem; min-height: 44px; cursor: pointer; }
.option { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.6rem; width: 100%; text-align: left; }
label.option { align-items: center; }
label.option input { width: 1.25rem; height: 1.25rem; margin: 0; flex: none; }
.option-body { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.6rem; flex: 1; min-width: 0; }
.option-label { font-weight: 600; overflow-wrap: anywhere; }
.escape { direction: ltr; unicode-bidi: isolate; font: 0.85em ui-monospace, monospace; font-weight: normal; color: var(--muted);
  border: 1px dashed currentColor; border-radius: 0.2rem; padding: 0 0.1rem; }
.option-description { flex-basis: 100%; color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.option[aria-pressed="true"], label.option:has(input:checked) { background: var(--chosen); border-color: var(--accent); }
.badge { font-size: 0.75rem; font-weight: 600; color: var(--badge); border: 1px solid currentColor;
  border-radius: 999px; padding: 0 0.5rem; }
.text { width: 100%; font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line);
  border-radius: 10px; padding: 0.6rem 0.8rem; min-height: 44px; margin-bottom: 0.75rem; }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.actions { margin-top: 0.25rem; justify-content: flex-end; }
.actions .primary { margin-right: auto; }
.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); font-weight: 600; }
.danger { color: var(--danger); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
#alert:not(:empty) { margin-top: 1rem; padding: 0.75rem; border-radius: 10px; border: 1px solid var(--danger);
  color: var(--danger); overflow-wrap: anywhere; }
.empty { color: var(--muted); margin: 0; }
.note { color: var(--muted); font-size: 0.9rem; margin: -0.4rem 0 0.75rem; }
label.option:has(input[aria-disabled="true"]) { opacity: 0.55; cursor: not-allowed; }
button:disabled { cursor: default; opacity: 0.6; }
.notify { margin-bottom: 0.75rem; }
.sending { color: var(--muted); margin: 0.75rem 0 0; }
main:has(.has-preview) { max-width: 72rem; }
.choices { display: grid; gap: 0.75rem; margin-bottom: 0.75rem; }
.choices .options { margin-bottom: 0; align-content: start; }
@media (min-width: 48rem) { .choices { grid-template-columns: minmax(0, 1fr) minmax(0, 1.25fr); align-items: start; } }
.preview { min-width: 0; border: 1px solid var(--line); border-radius: 10px; background: var(--bg); }
.preview-title { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; margin: 0;
  padding: 0.4rem 0.75rem; border-bottom: 1px solid var(--line); font-size: 0.9rem; font-weight: 600; }
.preview-pick { font: inherit; font-size: 1rem; font-weight: normal; color: inherit; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; min-height: 44px; max-width: 100%; min-width: 0; padding: 0 0.5rem; }
.preview-body { margin: 0; padding: 0.75rem; max-height: 24rem; overflow: auto; white-space: pre-wrap;
  overflow-wrap: anywhere; font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
@media (max-width: 48rem) { .preview-body { max-height: 16rem; } }
.preview-none { color: var(--muted); font-family: system-ui, sans-serif; }
.review { list-style: none; margin: 0 0 0.75rem; padding: 0; display: grid; gap: 0.5rem; }
.review-row { width: 100%; text-align: left; display: grid; gap: 0.15rem; }
.review-question { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.review-answer { font-weight: 600; overflow-wrap: anywhere; }
.review-note { margin-top: 0; }
.pairing { display: grid; gap: 0.3rem; }
.pairing label { font-weight: 600; }
.pairing .text { margin-bottom: 0.5rem; }
.pairing-why { margin: 0 0 0.75rem; }
.timing { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 30rem) { main { padding: 0.6rem; } .actions { justify-content: stretch; } .actions button { flex: 1; } .actions .primary { flex-basis: 100%; } }
`
