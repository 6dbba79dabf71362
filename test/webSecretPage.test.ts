/**
 * `WebSecretPage`: the one-time page on which a human types the secret an
 * MCP or ACP client must never see. One address per secret question, 256
 * random bits in its path; a password field; one POST, after which the
 * address is dead (410), as it is once its ask ended; the web surface's gate
 * (Host, Origin, body type and size) in front; model text shown as text.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Redacted, Schema, Scope } from "effect"
import { type AskUserQuestionItem, type AskUserQuestionRequest, SecretPage } from "effect-user-interaction"
import { WebSecretPage } from "effect-user-interaction/web"
import { request as httpsRequest } from "node:https"
import { type Browser, chromium } from "playwright-core"
import { generate } from "selfsigned"
import { hasUnsafe, sanitize } from "../src/internal/sanitize.js"
import { formPage, htmlText } from "../src/web/secretPageHtml.js"
import { addressOf, openPage, postSecret } from "./support/secretPageClient.js"
import { send } from "./support/webClient.js"

const value = "hunter2-correct-horse"
const token: AskUserQuestionItem = { id: "token", question: "Deploy token?", header: "Deploy", secret: true }
const request: AskUserQuestionRequest = { questions: [token], agent: { id: "a1", name: "Builder" } }

/** A page opened in `scope`, which the test closes when it likes. */
const openIn = (page: SecretPage["Service"], scope: Scope.Scope, question = token, asked = request) =>
  page.open(question, asked).pipe(Scope.provide(scope))

describe("WebSecretPage", () => {
  it.live("opens a one-time page on loopback: a password field; the POSTed secret reaches the asker as a Redacted; then the address is dead", () =>
    Effect.gen(function*() {
      const page = yield* WebSecretPage.make()
      const scope = yield* Scope.make()
      const opened = yield* openIn(page, scope)
      expect(opened.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/)
      const shown = yield* Effect.promise(() => openPage(opened.url))
      expect(shown.status).toBe(200)
      expect(shown.headers["content-type"]).toContain("text/html")
      expect(shown.body).toContain(`<input id="secret" name="secret" type="password" autocomplete="off"`)
      expect(shown.body).toContain(`<form class="card" method="post" autocomplete="off">`)
      expect(shown.body).toContain("Builder asks for a secret")
      expect(shown.body).toContain("Deploy token?")
      expect(shown.body).not.toContain("<script")
      expect(shown.headers["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/)
      expect(shown.headers).toMatchObject({
        "x-content-type-options": "nosniff",
        "x-frame-options": "DENY",
        "cache-control": "no-store",
        "referrer-policy": "same-origin",
        connection: "close"
      })
      const waiting = yield* Effect.forkChild(opened.value)
      const posted = yield* Effect.promise(() => postSecret(opened.url, { secret: value }))
      expect(posted.status).toBe(200)
      expect(posted.body).toContain("The secret was received.")
      expect(posted.body).not.toContain(value)
      const secret = yield* Fiber.join(waiting)
      expect(Redacted.value(secret)).toBe(value)
      // Used once: the page, a replay of the same POST and a second answer are all refused.
      expect((yield* Effect.promise(() => openPage(opened.url))).status).toBe(410)
      const replay = yield* Effect.promise(() => postSecret(opened.url, { secret: value }))
      expect(replay.status).toBe(410)
      expect(replay.body).toContain("This page is closed")
      expect((yield* Effect.promise(() => postSecret(opened.url, { secret: "another" }))).status).toBe(410)
      yield* Scope.close(scope, Exit.void)
      expect((yield* Effect.promise(() => openPage(opened.url))).status).toBe(410)
    }))

  it.live("an empty secret is refused (422) and the page stays open; Skip answers with an empty secret (a skip)", () =>
    Effect.gen(function*() {
      const page = yield* WebSecretPage.make()
      const opened = yield* page.open(token, request)
      const empty = yield* Effect.promise(() => postSecret(opened.url, { secret: "" }))
      expect(empty.status).toBe(422)
      expect(empty.body).toContain("Type the secret, or choose Skip.")
      expect(empty.body).toContain(`type="password"`)
      const skipped = yield* Effect.promise(() => postSecret(opened.url, { secret: "typed but skipped", skip: "1" }))
      expect(skipped.status).toBe(200)
      expect(skipped.body).toContain("The question was skipped.")
      expect(Redacted.value(yield* opened.value)).toBe("")
      expect((yield* Effect.promise(() => openPage(opened.url))).status).toBe(410)
    }))

  it.live("pages of one server are independent; an address never opened is 404; the page's path takes nothing else", () =>
    Effect.gen(function*() {
      const page = yield* WebSecretPage.make()
      const first = yield* page.open(token, request)
      const second = yield* page.open({ ...token, id: "other", question: "Other secret?" }, request)
      expect(addressOf(first.url).port).toBe(addressOf(second.url).port)
      expect(first.url).not.toBe(second.url)
      expect((yield* Effect.promise(() => postSecret(second.url, { secret: "two" }))).status).toBe(200)
      expect(Redacted.value(yield* second.value)).toBe("two")
      // The first is still open.
      expect((yield* Effect.promise(() => openPage(first.url))).status).toBe(200)
      const { port } = addressOf(first.url)
      for (const path of ["/secret/" + "A".repeat(43), "/secret/short", "/", "/secret/"]) {
        expect((yield* Effect.promise(() => send(port, path))).status).toBe(404)
      }
      const put = yield* Effect.promise(() => openPage(first.url, { method: "PUT" }))
      expect(put.status).toBe(405)
      expect(put.headers["allow"]).toBe("GET, HEAD, POST")
    }))

  it.live("the gate: a foreign Host or another spelling of the address (403), a cross-site Origin (403), a body that is not the form (415) or too large (413)", () =>
    Effect.gen(function*() {
      const page = yield* WebSecretPage.make()
      const opened = yield* page.open(token, request)
      const { port } = addressOf(opened.url)
      for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `127.0.0.1:${port + 1}`]) {
        expect((yield* Effect.promise(() => openPage(opened.url, { headers: { host } }))).status).toBe(403)
        expect((yield* Effect.promise(() => postSecret(opened.url, { secret: value }, { host }))).status).toBe(403)
      }
      expect((yield* Effect.promise(() => openPage(opened.url, { headers: { host: `localhost:${port}` } }))).status).toBe(200)
      for (const origin of ["https://evil.example", "null", `http://localhost:${port + 1}`]) {
        expect((yield* Effect.promise(() => postSecret(opened.url, { secret: value }, { origin }))).status).toBe(403)
      }
      const json = yield* Effect.promise(() =>
        openPage(opened.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ secret: value }) })
      )
      expect(json.status).toBe(415)
      const large = yield* Effect.promise(() => postSecret(opened.url, { secret: "x".repeat(70 * 1024) }))
      expect(large.status).toBe(413)
      const chunked = yield* Effect.promise(() =>
        openPage(opened.url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `secret=${"y".repeat(70 * 1024)}`,
          chunked: true
        })
      )
      expect(chunked.status).toBe(413)
      // None of those took the page: a POST without Origin (a script) still can.
      const fromScript = yield* Effect.promise(() =>
        openPage(opened.url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ secret: value }).toString()
        })
      )
      expect([fromScript.status, Redacted.value(yield* opened.value)]).toEqual([200, value])
    }))

  it.live("model text on the page is text: markup escaped, controls and BiDi overrides shown as escapes", () =>
    Effect.gen(function*() {
      const page = yield* WebSecretPage.make()
      const hostile: AskUserQuestionItem = {
        id: "x",
        question: "<script>alert(1)</script><img src=x onerror=alert(2)> \u202egnp.exe \u001b[2J",
        header: "\"><b>bold</b>",
        secret: true
      }
      const opened = yield* page.open(hostile, { questions: [hostile], agent: { id: "a", name: "<i>agent</i>" } })
      const body = (yield* Effect.promise(() => openPage(opened.url))).body
      expect(body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; \\u202egnp.exe \\x1b[2J")
      expect(body).toContain("&quot;&gt;&lt;b&gt;bold&lt;/b&gt;")
      expect(body).toContain("&lt;i&gt;agent&lt;/i&gt; asks for a secret")
      expect(body).not.toMatch(/<script|<img|<b>|<i>|\u202e|\u001b/)
    }))

  it.live("a page whose ask ends (its scope closes) is dead at once, and a POST then is refused", () =>
    Effect.gen(function*() {
      const page = yield* WebSecretPage.make()
      const scope = yield* Scope.make()
      const opened = yield* openIn(page, scope)
      expect((yield* Effect.promise(() => openPage(opened.url))).status).toBe(200)
      yield* Scope.close(scope, Exit.void)
      expect((yield* Effect.promise(() => openPage(opened.url))).status).toBe(410)
      expect((yield* Effect.promise(() => postSecret(opened.url, { secret: value }))).status).toBe(410)
    }))

  it.live("when the server's scope closes, a page still waiting fails ProviderClosed and the port is closed", () =>
    Effect.gen(function*() {
      const serverScope = yield* Scope.make()
      const page = yield* WebSecretPage.make().pipe(Scope.provide(serverScope))
      const opened = yield* page.open(token, request)
      const waiting = yield* Effect.forkChild(opened.value)
      yield* Scope.close(serverScope, Exit.void)
      const error = yield* Effect.flip(Fiber.join(waiting))
      expect(error.code).toBe("PROVIDER_CLOSED")
      const refused = yield* Effect.promise(() => openPage(opened.url).then(() => "answered", (e: NodeJS.ErrnoException) => e.code))
      expect(refused).toBe("ECONNREFUSED")
      expect((yield* Effect.flip(page.open(token, request))).code).toBe("PROVIDER_FAILED")
    }))

  it.live("a port in use fails the open that tried to start the server, PROVIDER_FAILED; the page of a busy port opens nothing", () =>
    Effect.gen(function*() {
      const first = yield* WebSecretPage.make()
      const port = addressOf((yield* first.open(token, request)).url).port
      const second = yield* WebSecretPage.make({ port })
      const error = yield* Effect.flip(second.open(token, request))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("The secret page could not start")
    }))

  it.live("another address than loopback needs TLS: without a certificate, PROVIDER_FAILED before anything listens", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(WebSecretPage.make({ host: "0.0.0.0" }))
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toBe(
        "A secret page is served on loopback or over TLS only: 0.0.0.0 is not a loopback address, and no certificate was given."
      )
    }))

  it.live("over TLS: an https address, Strict-Transport-Security, an https Origin accepted and an http one refused", () =>
    Effect.gen(function*() {
      const pems = yield* Effect.promise(() =>
        generate([{ name: "commonName", value: "127.0.0.1" }], {
          keySize: 2048,
          extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }]
        })
      )
      const page = yield* WebSecretPage.make({ tls: { cert: pems.cert, key: pems.private } })
      const opened = yield* page.open(token, request)
      expect(opened.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/)
      const { path, port } = addressOf(opened.url)
      const tls = (method: string, origin?: string) =>
        new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
          const req = httpsRequest({
            host: "127.0.0.1",
            port,
            path,
            method,
            ca: pems.cert,
            headers: {
              host: `127.0.0.1:${port}`,
              ...(origin === undefined ? {} : { origin }),
              ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {})
            }
          }, (res) => {
            res.resume()
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
          })
          req.on("error", reject)
          req.end(method === "POST" ? `secret=${value}` : undefined)
        })
      const shown = yield* Effect.promise(() => tls("GET"))
      expect(shown.status).toBe(200)
      expect(shown.headers["strict-transport-security"]).toBe("max-age=31536000")
      expect((yield* Effect.promise(() => tls("POST", `http://127.0.0.1:${port}`))).status).toBe(403)
      expect((yield* Effect.promise(() => tls("POST", `https://127.0.0.1:${port}`))).status).toBe(200)
      expect(Redacted.value(yield* opened.value)).toBe(value)
    }))

  it.live("SecretPage.layer provides the service", () =>
    Effect.gen(function*() {
      const page = yield* SecretPage
      const opened = yield* page.open(token, request)
      expect((yield* Effect.promise(() => openPage(opened.url))).status).toBe(200)
    }).pipe(Effect.provide(WebSecretPage.layer())))
})

describe("model text on the secret page", () => {
  const unescape = (html: string) =>
    html.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: "\"", "#39": "'" })[name]!)

  it.prop(
    "is inert whatever it holds: no markup character, no control or invisible one, and it reads back as the terminal shows it",
    { text: Schema.String },
    ({ text }) => {
      const html = htmlText(text)
      expect(html).not.toMatch(/[<>"']/)
      expect(html.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&")
      expect(hasUnsafe(html)).toBe(false)
      expect(unescape(html)).toBe(sanitize(text))
      // The page around it keeps its own markup only.
      const page = formPage({ id: "q", question: `${text}?`, secret: true }, { questions: [] }).html
      expect(page.match(/<label/g)).toHaveLength(1)
      expect(page.match(/<input/g)).toHaveLength(1)
    },
    { arbitrary: { runs: 1000 } }
  )
})

describe("WebSecretPage in Chromium", () => {
  it.live("the human types into the password field and submits: the asker gets the value; the tab says it was received", () =>
    Effect.gen(function*() {
      const browser: Browser = yield* Effect.acquireRelease(
        Effect.promise(() =>
          chromium.launch({
            executablePath: "/usr/bin/chromium",
            args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
          })
        ),
        (browser) => Effect.promise(() => browser.close())
      )
      const page = yield* WebSecretPage.make()
      const opened = yield* page.open(token, request)
      const tab = yield* Effect.promise(() => browser.newPage())
      const origins: Array<string | undefined> = []
      tab.on("request", (r) => {
        if (r.method() === "POST") origins.push(r.headers()["origin"])
      })
      yield* Effect.promise(() => tab.goto(opened.url))
      const field = tab.getByLabel("Deploy token?")
      expect(yield* Effect.promise(() => field.getAttribute("type"))).toBe("password")
      expect(yield* Effect.promise(() => field.getAttribute("autocomplete"))).toBe("off")
      // The field has the focus: typing goes straight in.
      yield* Effect.promise(() => tab.keyboard.type(value))
      yield* Effect.promise(() => tab.getByRole("button", { name: "Submit" }).click())
      expect(Redacted.value(yield* opened.value)).toBe(value)
      yield* Effect.promise(() => tab.getByText("The secret was received.").waitFor())
      expect(yield* Effect.promise(() => tab.content())).not.toContain(value)
      // The browser sent the page's own origin (not `null`), and the gate took it.
      expect(origins).toEqual([new URL(opened.url).origin])
      // Back and resubmit: the page is gone.
      const again = yield* Effect.promise(() => tab.goto(opened.url))
      expect(again?.status()).toBe(410)
    }))
})
