/**
 * Targets as the command line names them (`ntfy:URL`, `webhook:URL`,
 * `desktop`), checked without loading any target: the command line checks
 * `--notify` before anything else loads.
 *
 * @internal
 */

/** The forms, as a usage error names them. */
export const targetForms = "ntfy:URL (an ntfy topic URL), webhook:URL (an http or https URL) or desktop"

const httpUrl = (text: string): boolean =>
  URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol)

/** Where an ntfy topic URL publishes, and its topic; undefined when the URL names no topic. */
export const ntfyTopic = (url: string): { readonly root: string; readonly topic: string } | undefined => {
  if (!httpUrl(url)) return undefined
  const parsed = new URL(url)
  const path = parsed.pathname.replace(/\/+$/, "")
  const cut = path.lastIndexOf("/")
  const topic = path.slice(cut + 1)
  // ntfy's topic names: letters, digits, _ and -, at most 64.
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic)) return undefined
  return { root: `${parsed.origin}${path.slice(0, cut)}/`, topic }
}

/** True when `text` names a target. */
export const isTarget = (text: string): boolean =>
  text === "desktop" ||
  (text.startsWith("ntfy:") && ntfyTopic(text.slice(5)) !== undefined) ||
  (text.startsWith("webhook:") && httpUrl(text.slice(8)))

/**
 * `url` as a warning shows it: its origin only. An ntfy topic is its password
 * and a webhook's path often holds one (Slack's, Discord's), and a warning
 * may end up in a shared log.
 */
export const shownUrl = (url: string): string => URL.canParse(url) ? `${new URL(url).origin}/…` : "(not a URL)"
