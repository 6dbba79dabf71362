/**
 * SPEC "The inbox on another device" and "Telling the human a question
 * waits", end to end with the built program over real HTTPS: `ask-user inbox
 * --web --remote` prints its address and fingerprint first, keeps its
 * self-signed certificate, records its address for `ask-user pair`; a
 * device pairs with that code and `devices revoke` shuts it out; a local
 * HTTP server stands in for ntfy, checks the publish (title, message, click,
 * action buttons) and presses a button (trusting the certificate by `ca`),
 * which answers the ask as `ntfy:<topic>` on the ntfy surface. Attacks: a
 * replayed press, a forged token and the token of one ask altered to name
 * another record nothing. Also `--public-url` and `--tls-cert/--tls-key`.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { X509Certificate } from "node:crypto"
import { readFileSync, statSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { join } from "node:path"
import { renderUnicodeCompact } from "uqr"
import { program, type Run, start, tempDir } from "./cliHarness.js"
import { makeStore, run, type Store } from "./support/durableCli.js"
import { receiver } from "./support/receiver.js"
import { waitFor } from "./support/webClient.js"

interface Reply {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** One HTTPS request to `url`, trusting only `ca` (as a client pinning the inbox's certificate would). */
const send = (url: string, ca: string, options: { method?: string; body?: unknown; cookie?: string } = {}) =>
  new Promise<Reply>((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const req = httpsRequest(url, {
      method: options.method ?? "GET",
      ca,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(options.cookie === undefined ? {} : { cookie: options.cookie })
      }
    }, (res) => {
      let text = ""
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on("error", reject)
    req.end(body)
  })

/** The first line of the inbox's stderr, once written, and what it says. */
const inboxLine = async (inbox: Run) => {
  await inbox.stderrContains("Inbox at ")
  await waitFor(async () => inbox.stderr().includes("\n"), 10_000, "the whole first line")
  return inbox.stderr().split("\n")[0]!
}

/** Starts `ask-user inbox --web --remote --port 0 ...more` with its state in `state` (and more of `env`). */
const startInbox = (store: Store, state: string, more: ReadonlyArray<string> = [], env: NodeJS.ProcessEnv = {}) =>
  start(["inbox", "--web", "--remote", "--port", "0", "--store", store.url, ...more], {
    env: { XDG_STATE_HOME: state, ...env }
  })

/** Ends the inbox and waits for it. */
const stop = async (inbox: Run) => {
  inbox.child.kill("SIGTERM")
  return inbox.exited
}

const statusOf = async (store: Store, id: string) => JSON.parse((await run(["status", "--store", store.url, id])).stdout)

/** Records an ask of the store's request as pending at once (`--durable --detach`). */
const askDetached = async (store: Store, id: string) => {
  const result = await run(["--durable", "--detach", "--store", store.url, "--ask-id", id, store.requestFile])
  expect(result.code).toBe(0)
}

describe("ask-user inbox --web --remote", () => {
  it("prints its address and the kept certificate's fingerprint first; pair links to it; a paired device reaches it until revoked", async () => {
    const store = makeStore()
    const state = tempDir()
    const inbox = startInbox(store, state)
    try {
      const line = await inboxLine(inbox)
      const [, base, fingerprint] = /^Inbox at (https:\/\/[^/\s]+\/) \(SHA-256 fingerprint ([0-9A-F:]{95})\)$/.exec(line) ?? []
      expect(line).toMatch(/^Inbox at https:\/\//)
      const tls = join(state, "ask-user", "tls")
      const cert = readFileSync(join(tls, "cert.pem"), "utf8")
      expect(new X509Certificate(cert).fingerprint256).toBe(fingerprint)
      expect((statSync(tls).mode & 0o777).toString(8)).toBe("700")
      expect((statSync(join(tls, "key.pem")).mode & 0o777).toString(8)).toBe("600")
      // On the machine's network address (not loopback), the port chosen for --port 0.
      expect(new URL(base!).hostname).not.toBe("127.0.0.1")

      // Nothing answers an unpaired client but /pair.
      expect((await send(new URL("/api/questions", base).href, cert)).status).toBe(401)
      expect((await send(new URL("/pair", base).href, cert)).status).toBe(200)

      const paired = await run(["pair", "--store", store.url])
      expect(paired.code).toBe(0)
      const { code, url } = JSON.parse(paired.stdout)
      expect(url).toBe(`${base}pair#code=${code}`)
      const answer = await send(new URL("/api/pair", base).href, cert, { method: "POST", body: { name: "Ana's phone", code } })
      expect(answer.status).toBe(200)
      const cookie = String(answer.headers["set-cookie"]).split(";")[0]!
      expect((await send(new URL("/api/questions", base).href, cert, { cookie })).status).toBe(200)
      // The code was single use.
      const again = await send(new URL("/api/pair", base).href, cert, { method: "POST", body: { name: "Mallory", code } })
      expect(again.status).toBe(403)

      const listed = await run(["devices", "--store", store.url])
      const devices = listed.stdout.split("\n").filter(Boolean).map((text) => JSON.parse(text))
      expect(devices).toEqual([expect.objectContaining({ name: "Ana's phone", lastSeenAt: expect.any(String) })])

      expect((await run(["devices", "revoke", "--store", store.url, "Ana's phone"])).code).toBe(0)
      expect((await send(new URL("/api/questions", base).href, cert, { cookie })).status).toBe(401)
      expect((await run(["devices", "revoke", "--store", store.url, "Ana's phone"])).code).toBe(6)
    } finally {
      await stop(inbox)
    }
    // Stopped: its address is no longer offered, and the next run keeps the certificate.
    const after = JSON.parse((await run(["pair", "--store", store.url])).stdout)
    expect(after.url).toBeUndefined()
    const second = startInbox(store, state)
    try {
      const line = await inboxLine(second)
      const cert = readFileSync(join(state, "ask-user", "tls", "cert.pem"), "utf8")
      expect(line).toContain(new X509Certificate(cert).fingerprint256)
    } finally {
      await stop(second)
    }
  }, 120_000)

  it("ntfy: the publish links to the ask and carries a button per option; pressing one answers as ntfy:<topic>; replays and forgeries record nothing", async () => {
    const store = makeStore()
    const state = tempDir()
    const ntfy = await receiver()
    const hooks = await receiver()
    const secret = `whsec_${Buffer.from("a test secret of 32 bytes, fine.").toString("base64")}`
    const inbox = startInbox(store, state, ["--notify", `ntfy:${ntfy.url}/phone-topic`, "--notify", `webhook:${hooks.url}/hook`], {
      ASK_USER_WEBHOOK_SECRET: secret
    })
    try {
      const line = await inboxLine(inbox)
      const base = /^Inbox at (\S+) /.exec(line)![1]!
      const cert = readFileSync(join(state, "ask-user", "tls", "cert.pem"), "utf8")
      await askDetached(store, "deploy-a")
      await askDetached(store, "deploy-b")
      await ntfy.until(2)
      const published = ntfy.received.map((received) => JSON.parse(received.body))
      const a = published.find((message) => message.click === `${base}#ask=deploy-a`)
      const b = published.find((message) => message.click === `${base}#ask=deploy-b`)
      expect(a).toMatchObject({ topic: "phone-topic", title: expect.any(String), message: "Ship it?" })
      // A webhook's url is the same link.
      await hooks.until(2)
      const urls = hooks.received.map((received) => JSON.parse(received.body).ask.url).sort()
      expect(urls).toEqual([`${base}#ask=deploy-a`, `${base}#ask=deploy-b`])
      expect(a.actions.map((action: { label: string }) => action.label)).toEqual(["Yes", "No"])
      for (const action of [...a.actions, ...b.actions]) {
        expect(action).toMatchObject({ action: "http", method: "POST", clear: true })
        expect(action.url.startsWith(`${base}act/`)).toBe(true)
      }
      // The page shows both asks (to a paired device) before a button is pressed.
      const { code } = JSON.parse((await run(["pair", "--store", store.url])).stdout)
      const paired = await send(`${base}api/pair`, cert, { method: "POST", body: { name: "phone", code } })
      const cookie = String(paired.headers["set-cookie"]).split(";")[0]!
      await waitFor(async () => {
        const listed = await send(`${base}api/questions`, cert, { cookie })
        return JSON.parse(listed.body).pending.length === 2
      }, 30_000, "both asks on the page")
      const press = (url: string) => send(url, cert, { method: "POST" })
      const [yesA, noA] = a.actions as Array<{ url: string }>
      const pressed = await press(yesA!.url)
      expect([pressed.status, pressed.body]).toEqual([200, "{\"ok\":true}"])
      const answered = await statusOf(store, "deploy-a")
      expect(answered).toMatchObject({
        status: "answered",
        answer: { answers: [{ id: "q", selected: ["Yes"] }] },
        receipt: { surface: "ntfy", by: { id: "ntfy:phone-topic" } }
      })

      // A replayed press, the other option of the settled ask: refused, nothing changes.
      expect((await press(yesA!.url)).status).toBe(403)
      expect((await press(noA!.url)).status).toBe(403)
      expect(await statusOf(store, "deploy-a")).toEqual(answered)

      // The token of ask A moved to ask B (B's nonce with A's MAC), and a token signed by nobody: refused.
      const tokenOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice("/act/".length))
      const noB = b.actions.find((action: { label: string }) => action.label === "No")
      const [nonceB] = tokenOf(noB.url).split(".")
      const [, macA] = tokenOf(noA!.url).split(".")
      expect((await press(`${base}act/${nonceB}.${macA}`)).status).toBe(403)
      expect((await press(`${base}act/${nonceB}.${"A".repeat(43)}`)).status).toBe(403)
      expect((await statusOf(store, "deploy-b")).status).toBe("pending")

      // B's own button still answers B: the forgeries used nothing up.
      expect((await press(noB.url)).status).toBe(200)
      expect(await statusOf(store, "deploy-b")).toMatchObject({ status: "answered", receipt: { surface: "ntfy" } })
    } finally {
      await stop(inbox)
      await ntfy.close()
      await hooks.close()
    }
  }, 120_000)

  it("--public-url: plain HTTP on loopback, the public address in its first line, pair's and notifications' links, the Host check", async () => {
    const store = makeStore()
    const ntfy = await receiver()
    const inbox = startInbox(store, tempDir(), ["--public-url", "https://inbox.example.org/", "--notify", `ntfy:${ntfy.url}/t`])
    try {
      const line = await inboxLine(inbox)
      const [, port] = /^Inbox at https:\/\/inbox\.example\.org\/ \(through your proxy; served on http:\/\/127\.0\.0\.1:(\d+)\/\)$/
        .exec(line) ?? []
      expect(port).toBeDefined()
      const paired = JSON.parse((await run(["pair", "--store", store.url])).stdout)
      expect(paired.url).toBe(`https://inbox.example.org/pair#code=${paired.code}`)
      const get = (host: string) =>
        new Promise<number>((resolve, reject) =>
          httpRequest({ host: "127.0.0.1", port: Number(port), path: "/api/questions", headers: { host } }, (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          }).on("error", reject).end()
        )
      // The proxy's Host passes the check (then the device cookie is missing); another name does not.
      expect(await get("inbox.example.org")).toBe(401)
      expect(await get("evil.example.org")).toBe(403)
      // A push links to the ask, and its buttons post, at the public address.
      await askDetached(store, "via-proxy")
      await ntfy.until(1)
      const published = JSON.parse(ntfy.received[0]!.body)
      expect(published.click).toBe("https://inbox.example.org/#ask=via-proxy")
      expect(published.actions[0].url.startsWith("https://inbox.example.org/act/")).toBe(true)
    } finally {
      await stop(inbox)
      await ntfy.close()
    }
  }, 60_000)

  it("on a terminal, the first line is followed by the pairing URL's QR code and a fresh code", async () => {
    const store = makeStore()
    const state = tempDir()
    // script(1) gives the program a terminal; its own process group, so the whole group is ended.
    const onTty = spawn("script", ["-qfec", `${process.execPath} ${program} inbox --web --remote --port 0 --store ${store.url}`, "/dev/null"], {
      env: { ...process.env, NO_COLOR: "1", XDG_STATE_HOME: state },
      detached: true,
      stdio: ["pipe", "pipe", "ignore"]
    })
    let out = ""
    onTty.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    const ended = new Promise((resolve) => onTty.once("close", resolve))
    try {
      await waitFor(() => out.includes("(single use, valid until "), 30_000, "the pairing code on the terminal")
      const text = out.replace(/\r\n/g, "\n")
      const lines = text.split("\n")
      expect(lines[0]).toMatch(/^Inbox at https:\/\/\S+\/ \(SHA-256 fingerprint [0-9A-F:]{95}\)$/)
      const base = /^Inbox at (\S+) /.exec(lines[0]!)![1]!
      const code = /^Pairing code: (\w{5}) (\w{5}) /m.exec(text)!.slice(1, 3).join("")
      expect(text).toContain(renderUnicodeCompact(`${base}pair#code=${code}`, { border: 2 }))
      // The code shown pairs a device.
      const cert = readFileSync(join(state, "ask-user", "tls", "cert.pem"), "utf8")
      const paired = await send(`${base}api/pair`, cert, { method: "POST", body: { name: "phone", code } })
      expect(paired.status).toBe(200)
    } finally {
      process.kill(-onTty.pid!, "SIGTERM")
      await ended
    }
  }, 60_000)

  it("--tls-cert/--tls-key: serves the person's own certificate and prints its fingerprint", async () => {
    const state = tempDir()
    // A certificate made by a first run stands in for one the person brings.
    const first = startInbox(makeStore(), state)
    await inboxLine(first)
    await stop(first)
    const dir = join(state, "ask-user", "tls")
    const cert = readFileSync(join(dir, "cert.pem"), "utf8")
    const store = makeStore()
    const inbox = startInbox(store, tempDir(), ["--tls-cert", join(dir, "cert.pem"), "--tls-key", join(dir, "key.pem")])
    try {
      const line = await inboxLine(inbox)
      expect(line).toContain(`(SHA-256 fingerprint ${new X509Certificate(cert).fingerprint256})`)
      const base = /^Inbox at (\S+) /.exec(line)![1]!
      expect((await send(new URL("/pair", base).href, cert)).status).toBe(200)
    } finally {
      await stop(inbox)
    }
  }, 60_000)
})
