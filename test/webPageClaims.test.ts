/**
 * Claims on the web inbox's page in headless Chromium: a durable inbox (a
 * SQLite store in a temporary folder) served on a web page whose answerer is
 * told apart by a cookie, standing in for two paired devices in two browser
 * contexts. The device that shows a request claims it in the store; the
 * other says who is answering, with the request's controls (and Esc)
 * disabled, until the first leaves it (moves to another request, closes its
 * tab); an answer through the store meanwhile is ASK_CLAIMED. And the same
 * through `ask-user inbox --web`: the page's claim makes `ask-user answer`
 * exit 8.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer } from "effect"
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import {
  type Answerer,
  type AskUserQuestionRequest,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { DurableInbox, DurableProvider, DurableStore } from "effect-user-interaction/durable"
import { WebProvider } from "effect-user-interaction/web"
import { inboxClaims } from "../src/cli/inboxClaims.js"
import { start, tempDir } from "./cliHarness.js"
import { accessibleOf, Chromium, promise } from "./support/chromium.js"
import { makeKeeper } from "./support/claimsKeeper.js"
import { ask as askDurably, makeStore, run, untilStatus } from "./support/durableCli.js"
import { waitFor } from "./support/webClient.js"

const ana: Answerer = { id: "device:a", name: "Ana's phone" }
const bob: Answerer = { id: "device:b", name: "Bob's laptop" }
const devices: Record<string, Answerer> = { a: ana, b: bob }

const request = (id: string): AskUserQuestionRequest => ({
  id,
  questions: [{ id: "go", question: `Ship ${id}?`, options: [{ label: "Yes" }, { label: "No" }] }]
})

/** A browser context whose requests carry `device=<device>` (its credential, here), closed with the test. */
const deviceContext = (url: string, device: string) =>
  Effect.gen(function*() {
    const browser = yield* Chromium
    const context = yield* Effect.acquireRelease(
      promise(() => browser.newContext()),
      (context) => promise(() => context.close())
    )
    yield* promise(() => context.addCookies([{ name: "device", value: device, url: new URL(url).origin }]))
    return context
  })

/** A page of `context` on `url`, with its dialogs and script errors collected in `problems`. */
const openPage = (context: BrowserContext, url: string, problems: Array<string>) =>
  promise(async () => {
    const page = await context.newPage()
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`)
      void dialog.dismiss()
    })
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
    await page.goto(url)
    return page
  })

const claimStatus = (page: Page) => page.locator("#claim-status")
const yesButton = (page: Page) => page.getByRole("button", { name: "Yes", exact: true })

// Live services: these tests wait on a real browser and a real store, not on the TestClock.
layer(Chromium.layer, { timeout: 120_000, excludeTestServices: true })("web inbox claims in Chromium", (it) => {
  it.effect("two devices: the second sees who is answering and cannot answer until the first leaves the request", () =>
    Effect.gen(function*() {
      const stores = Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer()), DurableInbox.layer).pipe(
        Layer.provideMerge(DurableStore.layer(`sqlite:${join(tempDir(), "asks.db")}`))
      )
      const durable = yield* Layer.build(stores)
      const inbox = Context.get(durable, DurableInbox)
      const webContext = yield* Layer.build(WebProvider.layer({
        // As a remote inbox names its paired devices from their credential; here, a cookie.
        answerer: (request) => Effect.succeed(devices[request.cookies["device"] ?? ""]),
        claims: inboxClaims(Context.get(durable, DurableStore))
      }))
      const web = Context.get(webContext, WebProvider)
      yield* inbox.serve(Layer.succeed(UserInteractionProvider, Context.get(webContext, UserInteractionProvider)))
      const askOne = (id: string) =>
        UserInteraction.askWithReceipt(request(id)).pipe(Effect.provideContext(durable), Effect.forkChild)
      const claimOf = (id: string) =>
        Effect.map(inbox.pending, (pending) => pending.find((ask) => ask.id === id)?.claim?.by.id)
      const untilClaimedBy = (id: string, by: string) =>
        Effect.gen(function*() {
          while ((yield* claimOf(id)) !== by) yield* Effect.sleep("50 millis")
        })

      const first = yield* askOne("deploy-1")
      while ((yield* web.pending).length < 1) yield* Effect.sleep("50 millis")
      const second = yield* askOne("deploy-2")
      while ((yield* web.pending).length < 2) yield* Effect.sleep("50 millis")

      const problems: Array<string> = []
      const anasPage = yield* openPage(yield* deviceContext(web.url, "a"), web.url, problems)
      yield* promise(() => anasPage.getByRole("heading", { name: "Ship deploy-1?" }).waitFor())
      // Ana's page shows deploy-1: it claims it in the store.
      yield* untilClaimedBy("deploy-1", ana.id)
      expect(yield* promise(() => claimStatus(anasPage).textContent())).toBe("")

      const bobsPage = yield* openPage(yield* deviceContext(web.url, "b"), web.url, problems)
      yield* promise(() => bobsPage.getByRole("heading", { name: "Ship deploy-1?" }).waitFor())
      const held = "Ana's phone is answering this request. You can answer it once they leave it."
      yield* promise(() => claimStatus(bobsPage).getByText(held).waitFor())
      // A status, which a screen reader announces as it changes.
      expect((yield* accessibleOf(bobsPage, "#claim-status")).role).toBe("status")
      expect(yield* promise(() => yesButton(bobsPage).isDisabled())).toBe(true)
      expect(yield* promise(() => bobsPage.getByRole("button", { name: "Cancel", exact: true }).isDisabled())).toBe(true)
      expect(yield* promise(() => bobsPage.getByRole("textbox", { name: "Other" }).isDisabled())).toBe(true)
      // Esc cancels nothing while Ana answers.
      yield* promise(() => bobsPage.keyboard.press("Escape"))
      // The store's own rule: an answer from anyone else is refused while Ana's claim holds.
      const refused = yield* Effect.flip(inbox.answer("deploy-1", { answers: [{ id: "go", selected: ["No"] }] }, {
        by: { id: "os:carol@build-01" },
        surface: "cli"
      }))
      expect(refused.code).toBe("ASK_CLAIMED")
      expect(refused.message).toContain("Ana's phone (device:a)")
      expect(yield* claimOf("deploy-1")).toBe(ana.id)
      expect((yield* inbox.status("deploy-1")).status).toBe("pending")

      // Ana moves on to deploy-2: her claim on deploy-1 goes, and Bob may answer it.
      yield* promise(() => anasPage.getByRole("button", { name: /Ship deploy-2\?/ }).click())
      yield* promise(() => anasPage.getByRole("heading", { name: "Ship deploy-2?" }).waitFor())
      yield* promise(() => claimStatus(bobsPage).getByText("Ana's phone left this request: you can answer it now.").waitFor())
      yield* untilClaimedBy("deploy-1", bob.id)
      yield* untilClaimedBy("deploy-2", ana.id)
      yield* promise(() => yesButton(bobsPage).click())
      expect((yield* Fiber.join(first)).receipt.by).toEqual(bob)

      // Bob's page moves on to deploy-2, which Ana holds; she closes her tab and it is his.
      yield* promise(() => bobsPage.getByRole("heading", { name: "Ship deploy-2?" }).waitFor())
      yield* promise(() => claimStatus(bobsPage).getByText(held).waitFor())
      expect(yield* promise(() => yesButton(bobsPage).isDisabled())).toBe(true)
      yield* promise(() => anasPage.close())
      yield* untilClaimedBy("deploy-2", bob.id)
      yield* promise(() => yesButton(bobsPage).click())
      expect((yield* Fiber.join(second)).receipt.by).toEqual(bob)
      expect(problems).toEqual([])
    }), { timeout: 120_000 })

  it.effect("a page lets its request go while its person is away (nothing done for the claim's length, the tab out of view) and claims it again on their return", () =>
    Effect.gen(function*() {
      // A claim of 4 s: renewed every 1.3 s, let go after 4 s without a key or a tap, or 1 s out of view.
      const keeper = makeKeeper("4 seconds")
      const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({
        answerer: (request) => Effect.succeed(devices[request.cookies["device"] ?? ""]),
        claims: keeper.claims
      })))
      const web = Context.get(context, WebProvider)
      const asker = yield* Effect.forkChild(UserInteraction.ask(request("away-1")).pipe(Effect.provideContext(context)))
      const problems: Array<string> = []
      const page = yield* openPage(yield* deviceContext(web.url, "a"), web.url, problems)
      yield* promise(() => page.getByRole("heading", { name: "Ship away-1?" }).waitFor())
      const count = (call: string) => keeper.calls.filter((made) => made === call).length
      const claims = () => count("claim away-1 device:a")
      const releases = () => count("release away-1 device:a")
      // Held while the person is at it: claimed, then renewed.
      yield* promise(() => waitFor(() => claims() >= 2, 20_000, "a claim and a renewal"))
      // Nothing done on the page since it opened: it lets go.
      yield* promise(() => waitFor(() => releases() === 1, 20_000, "the release of an idle page"))
      const afterIdle = claims()
      yield* Effect.sleep("1500 millis")
      expect(claims()).toBe(afterIdle)
      // A key press: the person is back, and the request is theirs again.
      yield* promise(() => page.keyboard.press("Shift"))
      yield* promise(() => waitFor(() => claims() > afterIdle, 20_000, "a claim on the person's return"))

      // The tab goes out of view: after a quarter of the claim's length it lets go; back in view, it claims again.
      const visibility = (state: "hidden" | "visible") =>
        promise(() =>
          page.evaluate((state) => {
            Object.defineProperty(document, "visibilityState", { value: state, configurable: true })
            document.dispatchEvent(new Event("visibilitychange"))
          }, state)
        )
      yield* visibility("hidden")
      yield* promise(() => waitFor(() => releases() === 2, 20_000, "the release of a hidden tab"))
      const afterHidden = claims()
      yield* visibility("visible")
      yield* promise(() => waitFor(() => claims() > afterHidden, 20_000, "a claim once in view again"))
      yield* promise(() => page.getByRole("button", { name: "Yes", exact: true }).click())
      expect(yield* Fiber.join(asker)).toEqual({ answers: [{ id: "go", selected: ["Yes"] }] })
      expect(problems).toEqual([])
    }), { timeout: 120_000 })

  it.effect("a holder's name is shown as text: markup stays text, controls show as escapes, and its direction stays its own", () =>
    Effect.gen(function*() {
      const keeper = makeKeeper()
      const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({
        answerer: (request) => Effect.succeed(devices[request.cookies["device"] ?? ""]),
        claims: keeper.claims
      })))
      const web = Context.get(context, WebProvider)
      // A device named at pairing by whoever paired it: nothing the page may trust.
      keeper.take("named-1", { id: "device:x", name: "<img src=x onerror=\"window.__pwned=1\">\u202eenohp s'anA" })
      const asker = yield* Effect.forkChild(UserInteraction.ask(request("named-1")).pipe(Effect.provideContext(context)))
      const problems: Array<string> = []
      const page = yield* openPage(yield* deviceContext(web.url, "a"), web.url, problems)
      yield* promise(() => claimStatus(page).getByText("is answering this request", { exact: false }).waitFor())
      expect(yield* promise(() => claimStatus(page).textContent())).toBe(
        "<img src=x onerror=\"window.__pwned=1\">\\u202eenohp s'anA is answering this request. You can answer it once they leave it."
      )
      expect(yield* promise(() => claimStatus(page).locator("bdi").count())).toBe(1)
      expect(yield* promise(() => page.locator("img").count())).toBe(0)
      expect(yield* promise(() => page.evaluate(() => (window as { __pwned?: unknown }).__pwned))).toBeUndefined()
      expect(yield* promise(() => yesButton(page).isDisabled())).toBe(true)
      yield* Fiber.interrupt(asker)
      expect(problems).toEqual([])
    }), { timeout: 120_000 })

  it.effect("ask-user inbox --web: the page's claim makes `ask-user answer` exit 8 naming web:token, and the page then answers", () =>
    Effect.gen(function*() {
      const browser = yield* Chromium
      const store = makeStore()
      const inbox = yield* Effect.acquireRelease(
        Effect.sync(() => start(["inbox", "--web", "--store", store.url])),
        (inbox) => Effect.sync(() => inbox.child.kill("SIGKILL"))
      )
      yield* promise(() => inbox.stderrContains("Answer at"))
      const url = /Answer at (\S+)/.exec(inbox.stderr())![1]!
      const asker = askDurably(store, "web-claim-1")
      yield* promise(() => untilStatus(store, "web-claim-1", (status) => status === "pending", asker))
      const page = yield* Effect.acquireRelease(promise(() => browser.newPage()), (page) => promise(() => page.close()))
      yield* promise(() => page.goto(url))
      yield* promise(() => page.getByRole("heading", { name: "Ship it?" }).waitFor())

      // The page claims the ask as it shows it (the inbox's own listing says so once the claim is in).
      const token = new URL(url).searchParams.get("token")!
      yield* promise(() =>
        waitFor(async () => {
          const listed = await (await fetch(new URL("/api/questions", url), { headers: { authorization: `Bearer ${token}` } })).json()
          return listed.pending[0]?.claim?.by.id === "web:token"
        }, 30_000, "the page's claim")
      )
      // It holds the ask in the store: the command line's answer is refused.
      const refused = yield* promise(() => run(["answer", "--store", store.url, "web-claim-1", store.file("no.json", { q: "No" })]))
      expect(refused.code).toBe(8)
      expect(refused.stderr).toContain("ASK_CLAIMED")
      expect(refused.stderr).toContain("claimed by web:token until")

      yield* promise(() => page.getByRole("button", { name: "Yes", exact: true }).click())
      expect(yield* promise(() => asker.exited)).toBe(0)
      expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
      const status = yield* promise(() => run(["status", "--store", store.url, "web-claim-1"]))
      expect(JSON.parse(status.stdout).receipt).toMatchObject({ surface: "web", by: { id: "web:token" } })
    }), { timeout: 120_000 })
})
