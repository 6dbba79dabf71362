/**
 * The remote inbox's page in real headless Chromium over HTTPS, the
 * self-signed certificate trusted by its public key's fingerprint (never by
 * turning certificate checks off): pair from the QR code's address, answer,
 * be revoked, at a phone's 360×640 viewport and at a desktop one; the phone
 * layout's sizes; and model text that stays text.
 */
import { expect, layer } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { Context, Effect, Fiber, Layer } from "effect"
import type { Page } from "playwright-core"
import { type AskUserQuestionRequest, UserInteraction } from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"
import { Chromium, promise } from "./support/chromium.js"
import { loopbackCertificate, memoryAccess } from "./support/webAccess.js"
import { waitFor } from "./support/webClient.js"

/** Each test's limit: a browser, TLS and a few page loads, on a machine that may be busy. */
const slow = 90_000

const phone = { width: 360, height: 640 }
const desktop = { width: 1280, height: 800 }

const deploy: AskUserQuestionRequest = {
  agent: { id: "builder", name: "Builder" },
  timeout: "1h",
  questions: [{
    id: "go",
    header: "Deploy",
    question: "Ship release 4.2 to production now?",
    options: [{ label: "Ship it", description: "Deploys to every region" }, { label: "Wait", description: "Keep the current release" }]
  }]
}

/** Model text that would be markup if it ever reached the page as HTML. */
const hostile: AskUserQuestionRequest = {
  questions: [{
    options: [{ label: "<script>alert(1)</script>" }, { label: "plain" }],
    question: `Pick <img src=x onerror="document.title='pwned'"> one`,
    header: "<i>hdr</i>",
    id: "q"
  }],
  agent: { id: "x", name: "<b>Evil</b> agent" }
}

/** What makes a page hard to use on a phone: sideways scroll, small targets, inputs a phone zooms into. */
const phoneProblems = (page: Page) =>
  promise(() =>
    page.evaluate(() => {
      const problems: Array<string> = []
      const root = document.documentElement
      if (root.scrollWidth > root.clientWidth) problems.push(`sideways scroll: ${root.scrollWidth} > ${root.clientWidth}`)
      const visible = (element: Element) => (element as HTMLElement).offsetParent !== null
      for (const target of document.querySelectorAll("button, .option, select, input:not([type=checkbox]):not([type=radio])")) {
        if (!visible(target)) continue
        const height = target.getBoundingClientRect().height
        if (height < 44) problems.push(`${target.tagName} "${target.textContent ?? ""}" is ${height}px high`)
      }
      for (const input of document.querySelectorAll("input, select, textarea")) {
        if (!visible(input)) continue
        const size = parseFloat(getComputedStyle(input).fontSize)
        if (size < 16) problems.push(`${input.id || input.tagName} has a ${size}px font`)
      }
      return problems
    })
  )

/** A remote inbox over HTTPS with in-memory devices, and a browser that trusts its certificate alone. */
const remote = Effect.gen(function*() {
  const tls = yield* loopbackCertificate()
  const browser = Context.get(yield* Layer.build(Chromium.trusting(tls.spkiHash)), Chromium)
  const access = memoryAccess()
  const context = yield* Layer.build(
    UserInteraction.layerWith(WebProvider.layer({ tls: { cert: tls.cert, key: tls.key }, access }))
  )
  const web = Context.get(context, WebProvider)
  const ask = (request: AskUserQuestionRequest) =>
    UserInteraction.askWithReceipt(request).pipe(Effect.provideContext(context))
  return { access, ask, browser, web }
})

/** A browser window of `viewport` (closed with the scope), its dialogs and page errors collected. */
const windowOf = (browser: Context.Service.Shape<typeof Chromium>, viewport: { width: number; height: number }) =>
  Effect.gen(function*() {
    const context = yield* Effect.acquireRelease(
      promise(() => browser.newContext({ viewport })),
      (context) => promise(() => context.close())
    )
    const page = yield* promise(() => context.newPage())
    const problems: Array<string> = []
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`)
      void dialog.dismiss()
    })
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
    return { page, problems }
  })

/** A remote inbox and a phone-sized window paired with it through the pairing form, the inbox live. */
const pairedPhone = Effect.gen(function*() {
  const { access, ask, browser, web } = yield* remote
  const { page, problems } = yield* windowOf(browser, phone)
  yield* promise(() => page.goto(`${web.url}pair#code=${access.newCode()}`))
  yield* promise(() => page.getByLabel("Device name").fill("phone"))
  yield* promise(() => page.getByRole("button", { name: "Pair", exact: true }).click())
  yield* promise(() => page.getByText("Live: new questions appear here as they arrive.").waitFor())
  return { ask, page, problems, web }
})

// Live services: these tests wait on a real browser, not on the TestClock.
layer(Layer.empty, { timeout: slow, excludeTestServices: true })("remote inbox page in Chromium", (it) => {
  for (const [size, viewport] of [["a phone", phone], ["a desktop", desktop]] as const) {
    it.effect(`pairs from the QR code's address, answers, and is revoked (${size}, ${viewport.width}×${viewport.height})`, () =>
      Effect.gen(function*() {
        const { access, ask, browser, web } = yield* remote
        const { page, problems } = yield* windowOf(browser, viewport)

        // Unpaired: the inbox itself answers 401 and shows the pairing form.
        const unpaired = yield* promise(() => page.goto(web.url))
        expect(unpaired?.status()).toBe(401)
        yield* promise(() => page.getByRole("heading", { name: "Pair this device" }).waitFor())

        // The QR code's address: the code comes in the fragment, so the server never sees it in a URL.
        const code = access.newCode()
        const started = Date.now()
        yield* promise(() => page.goto(`${web.url}pair#code=${code}`))
        expect(yield* promise(() => page.getByLabel("Pairing code").inputValue())).toBe(code)
        if (viewport === phone) expect(yield* phoneProblems(page)).toEqual([])
        yield* promise(() => page.getByLabel("Device name").fill("Ana's phone"))
        yield* promise(() => page.getByRole("button", { name: "Pair", exact: true }).click())
        yield* promise(() => page.getByText("Live: new questions appear here as they arrive.").waitFor())
        expect(new URL(page.url()).pathname + new URL(page.url()).hash).toBe("/")
        const [device] = access.devices()
        expect(device?.name).toBe("Ana's phone")

        const first = yield* Effect.forkChild(ask(deploy))
        const second = yield* Effect.forkChild(ask({
          agent: { id: "docs", name: "Docs writer" },
          timeout: "2h",
          questions: [{ id: "notes", question: "Publish the release notes too?", options: [{ label: "Yes" }, { label: "No" }] }]
        }))
        yield* promise(() => page.getByRole("heading", { name: "Ship release 4.2 to production now?" }).waitFor())
        // The list: each ask's agent, age and time left; the card says them too.
        const list = page.getByRole("navigation", { name: "Pending requests" })
        yield* promise(() => list.getByText("Docs writer").waitFor())
        expect(yield* promise(() => list.textContent())).toMatch(/Builder.*asked just now · 59 min left.*Docs writer.*asked just now · 1 h 59 min left/s)
        expect(yield* promise(() => page.locator(".asker").textContent())).toMatch(/^Builder asks · asked just now · 59 min left$/)
        if (viewport === phone) {
          expect(yield* phoneProblems(page)).toEqual([])
          mkdirSync("docs/images", { recursive: true })
          yield* promise(() => page.screenshot({ path: "docs/images/phone-inbox.png" }))
        }

        yield* promise(() => page.getByRole("button", { name: /^Ship it/ }).click())
        const { answer, receipt } = yield* Fiber.join(first)
        expect(answer.answers).toEqual([{ id: "go", selected: ["Ship it"] }])
        expect(receipt).toMatchObject({ surface: "web", by: { id: `device:${device!.id}`, name: "Ana's phone" } })
        yield* Effect.logInfo(`pairing to first answer (${size}): ${Date.now() - started} ms`)

        // Revoked: the open stream ends, the page finds itself unpaired and says so; requests get 401.
        access.revoke(device!.id)
        yield* promise(() => page.getByRole("heading", { name: "Pair this device" }).waitFor({ timeout: 10_000 }))
        expect(yield* promise(() => page.getByText(/pairing was revoked/).isVisible())).toBe(true)
        expect(yield* promise(() => page.evaluate(() => fetch("/api/questions").then((response) => response.status)))).toBe(401)
        expect(yield* promise(() => page.evaluate(() => document.cookie))).toBe("")
        expect(yield* Effect.map(web.pending, (pending) => pending.length)).toBe(1)
        yield* Fiber.interrupt(second)
        expect(problems).toEqual([])
      }), slow)
  }

  it.effect("a notification's link (#ask=<id>) opens that ask, not the oldest", () =>
    Effect.gen(function*() {
      const { ask, page, problems, web } = yield* pairedPhone
      const older = yield* Effect.forkChild(ask({ ...deploy, id: "older" }))
      const linked = yield* Effect.forkChild(ask({
        id: "linked",
        questions: [{ id: "notes", question: "Publish the release notes too?", options: [{ label: "Yes" }, { label: "No" }] }]
      }))
      yield* promise(() => waitFor(() => Effect.runPromise(web.pending).then((pending) => pending.length === 2), 10_000, "two asks"))
      // The link opens in a new tab of the same browser, as a notification's click does.
      const tab = yield* promise(() => page.context().newPage())
      tab.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
      yield* promise(() => tab.goto(`${web.url}#ask=linked`))
      yield* promise(() => tab.getByRole("heading", { name: "Publish the release notes too?" }).waitFor())
      expect(yield* promise(() => tab.locator(".request[aria-current=true]").textContent())).toContain("Publish the release notes too?")
      yield* promise(() => tab.getByRole("button", { name: /^Yes/ }).click())
      expect((yield* Fiber.join(linked)).answer.answers).toEqual([{ id: "notes", selected: ["Yes"] }])
      yield* Fiber.interrupt(older)
      expect(problems).toEqual([])
    }), slow)

  it.effect("model text with HTML in it stays text on the phone page", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* pairedPhone
      const fiber = yield* Effect.forkChild(ask(hostile))
      yield* promise(() => page.getByRole("heading", { name: /^Pick <img/ }).waitFor())
      const card = page.locator("#card")
      expect(yield* promise(() => card.locator("img, script, b, i").count())).toBe(0)
      expect(yield* promise(() => card.textContent())).toContain(`<b>Evil</b> agent asks`)
      expect(yield* promise(() => card.textContent())).toContain("<i>hdr</i>")
      expect(yield* promise(() => page.getByRole("button", { name: "<script>alert(1)</script>" }).isVisible())).toBe(true)
      expect(yield* promise(() => page.title())).not.toBe("pwned")
      expect(yield* phoneProblems(page)).toEqual([])
      yield* Fiber.interrupt(fiber)
      expect(problems).toEqual([])
    }), slow)
})
