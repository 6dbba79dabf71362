/**
 * What a person (or an attacker) does with a secret page's address, on
 * `node:http` so a test can send any `Host`, `Origin` or body: open it, post
 * the page's form (the secret, or Skip).
 */
import { type Reply, send, type Send } from "./webClient.js"

/** The port and path of a page's address. */
export const addressOf = (url: string): { readonly port: number; readonly path: string } => {
  const parsed = new URL(url)
  return { port: Number(parsed.port), path: parsed.pathname }
}

/** Requests the page at `url`. */
export const openPage = (url: string, options: Send = {}): Promise<Reply> => {
  const { path, port } = addressOf(url)
  return send(port, path, options)
}

/** Posts the page's form as a browser would: urlencoded, from the page's own origin. */
export const postSecret = (
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {}
): Promise<Reply> => {
  const { path, port } = addressOf(url)
  return send(port, path, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(url).origin,
      ...headers
    },
    body: new URLSearchParams(fields).toString()
  })
}
