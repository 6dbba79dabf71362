/**
 * The web provider's gate, as pure functions: which `Host` headers name this
 * server (DNS rebinding), which `Origin`s may POST (cross-site requests), and
 * whether a request carries the token. Kept apart from the routes so each rule
 * reads on its own.
 *
 * @internal
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { isIP } from "node:net"
import { networkInterfaces } from "node:os"

/** The largest request body the server reads: 64 KiB (SPEC). */
export const maxBodyBytes = 64 * 1024

/** A fresh token: 32 random bytes, URL-safe. */
export const randomToken = (): string => randomBytes(32).toString("base64url")

const isWildcard = (host: string) => host === "0.0.0.0" || host === "::" || host === ""

/** Whether a bind address is a loopback one (reachable from this machine only). */
export const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** `::1` -> `[::1]`: the form an IPv6 address takes in a URL and a Host header. */
const urlHost = (host: string) => isIP(host) === 6 ? `[${host}]` : host.toLowerCase()

/**
 * The host and port of a `Host` header value, exactly as written (the host
 * in lower case), or undefined when it is not `host[:port]`. No URL parser:
 * it reads `127.1`, `0x7f000001` and `2130706433` as `127.0.0.1` and
 * `08080` as `8080`, so other spellings of an address passed as the one
 * served (decision 089).
 */
const parseHostHeader = (value: string): { readonly hostname: string; readonly port: string } | undefined => {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]\\]+)(?::([0-9]+))?$/.exec(value)
  return match === null ? undefined : { hostname: match[1]!.toLowerCase(), port: match[2] ?? "" }
}

/** Whether `hostname` is an IP address written in its one usual form (dotted quad, or an IPv6 literal in brackets). */
const isPlainIp = (hostname: string): boolean =>
  hostname.startsWith("[") ? isIP(hostname.slice(1, -1)) === 6 : isIP(hostname) === 4

/**
 * Decides whether a `Host` header names this server, as written: a loopback
 * bind accepts `localhost`, `127.0.0.1` and `[::1]`; a wildcard bind
 * (`0.0.0.0`, `::`) accepts any IP address in its usual form, never a DNS
 * name (which is what a rebinding attack sends); any other bind accepts
 * exactly the name or address it was given. The port must be the served one
 * as digits without a leading zero (left out only for port 80). Any other
 * spelling of an address (`127.1`, `0x7f000001`, `2130706433`, `127.0.0.1:08080`)
 * is refused. `defaultPort` is the scheme's (443 on TLS), the port a Host
 * header may leave out.
 */
export const makeHostCheck = (
  bindHost: string,
  port: number,
  defaultPort = 80
): (hostHeader: string | undefined) => boolean => {
  const allowed = new Set([urlHost(bindHost)])
  if (isLoopback(bindHost)) for (const name of ["localhost", "127.0.0.1", "[::1]"]) allowed.add(name)
  const wildcard = isWildcard(bindHost)
  if (wildcard) allowed.add("localhost")
  const wantPort = String(port)
  return (hostHeader) => {
    if (hostHeader === undefined) return false
    const parsed = parseHostHeader(hostHeader)
    // A Host header may leave out the default port.
    if (parsed === undefined || (parsed.port === "" ? String(defaultPort) : parsed.port) !== wantPort) return false
    if (allowed.has(parsed.hostname)) return true
    return wildcard && isPlainIp(parsed.hostname)
  }
}

/**
 * Why a request's `Host` header lines are malformed, if they are (RFC 9112
 * §3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host line
 * and to any request with more than one). Node keeps only the first of several
 * Host lines, so the check reads the raw header list: otherwise the first
 * line passes the rebinding check while a proxy in front may have read another.
 */
export const hostLinesProblem = (rawHeaders: ReadonlyArray<string>, httpVersion: string): string | undefined => {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === "host") count++
  if (count > 1) return "More than one Host header."
  if (count === 0 && httpVersion !== "1.0") return "The Host header is missing."
  return undefined
}

/** The challenge a 401 carries (RFC 9110 §11.6.1): the token goes in as a Bearer token. */
export const authenticateChallenge = `Bearer realm="ask-user"`

/**
 * Decides whether a POST may go ahead: no `Origin` (curl, scripts) is fine;
 * otherwise it must be this very server, the one its `Host` header named,
 * on the scheme it serves (`http:` unless told).
 */
export const originAllowed = (
  origin: string | undefined,
  hostHeader: string | undefined,
  scheme: "http:" | "https:" = "http:"
): boolean => {
  if (origin === undefined) return true
  if (hostHeader === undefined) return false
  try {
    const url = new URL(origin)
    return url.protocol === scheme && url.host === new URL(`${scheme}//${hostHeader}`).host
  } catch {
    // Includes the opaque origin "null" (sandboxed frames, file: pages).
    return false
  }
}

const digest = (s: string) => createHash("sha256").update(s).digest()

/**
 * Whether a request carries the token, as `Authorization: Bearer <token>` or
 * as `?token=`. Compared in constant time.
 */
export const makeTokenCheck = (token: string) => {
  const expected = digest(token)
  const matches = (candidate: string | null | undefined) =>
    candidate !== null && candidate !== undefined && timingSafeEqual(digest(candidate), expected)
  return (authorization: string | undefined, queryToken: string | null): boolean => {
    const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
    return matches(bearer) || matches(queryToken)
  }
}

/**
 * The host to print in the page's URL: the bind host itself, or for a
 * wildcard bind the first external IPv4 address (what a phone on the same
 * network can reach), else loopback.
 */
export const displayHost = (bindHost: string): string => {
  if (!isWildcard(bindHost)) return urlHost(bindHost)
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address
    }
  }
  return "127.0.0.1"
}
