/**
 * The answer page in real headless Chromium (playwright-core): keyboard use,
 * accessible names, live updates, and model text that stays text.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import type { Page } from "playwright-core"
import {
  AskDeclined,
  type AskUserQuestionRequest,
  FanoutProvider,
  UserInteraction,
  UserInteractionProvider
} from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"
import { sanitize } from "../src/internal/sanitize.js"
import { start, tempFiles } from "./cliHarness.js"
import { Chromium, focusedName, open, openTabs, promise } from "./support/chromium.js"
import { postJson } from "./support/webClient.js"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

// Live services: these tests wait on a real browser, not on the TestClock.
layer(Chromium.layer, { timeout: 60_000, excludeTestServices: true })("web page in Chromium", (it) => {
  it.effect("answers a batch with the keyboard alone", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const fiber = yield* Effect.forkChild(ask(batch))
      yield* promise(() => page.getByText("Question 1 of 3", { exact: true }).waitFor())
      expect(yield* promise(() => page.getByRole("heading", { name: "Which database?" }).isVisible())).toBe(true)
      expect(yield* promise(() => page.getByText("Storage").isVisible())).toBe(true)

      // The first option has the focus; "(Recommended)" shows as a badge and is not pre-selected.
      expect(yield* focusedName(page)).toBe("Postgres (Recommended)")
      const postgres = page.getByRole("button", { name: /^Postgres \(Recommended\)/ })
      expect(yield* promise(() => postgres.locator(".badge").textContent())).toBe("Recommended")
      expect(yield* promise(() => page.locator("[aria-pressed=true]").count())).toBe(0)
      expect(yield* promise(() => page.getByRole("button", { name: /^SQLite/ }).isVisible())).toBe(true)
      for (const name of ["Other"]) expect(yield* promise(() => page.getByRole("textbox", { name }).isVisible())).toBe(true)
      for (const name of ["Skip", "Cancel"]) {
        expect(yield* promise(() => page.getByRole("button", { name, exact: true }).isVisible())).toBe(true)
      }

      yield* promise(() => page.keyboard.press("ArrowDown"))
      expect(yield* focusedName(page)).toBe("SQLite")
      yield* promise(() => page.keyboard.press("ArrowUp"))
      yield* promise(() => page.keyboard.press("Enter"))

      yield* promise(() => page.getByText("Question 2 of 3", { exact: true }).waitFor())
      expect(yield* focusedName(page)).toBe("auth")
      expect(yield* promise(() => page.getByRole("button", { name: "Next", exact: true }).isVisible())).toBe(true)
      yield* promise(() => page.keyboard.press("Space"))
      yield* promise(() => page.keyboard.press("ArrowDown"))
      yield* promise(() => page.keyboard.press("ArrowDown"))
      expect(yield* focusedName(page)).toBe("search")
      yield* promise(() => page.keyboard.press("Space"))
      yield* promise(() => page.keyboard.press("Enter"))

      yield* promise(() => page.getByText("Question 3 of 3", { exact: true }).waitFor())
      const name = page.getByRole("textbox", { name: "Project name?" })
      expect(yield* promise(() => name.evaluate((element) => element === document.activeElement))).toBe(true)
      // Enter on empty text does nothing.
      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* promise(() => page.getByText("Question 3 of 3", { exact: true }).isVisible())).toBe(true)
      yield* promise(() => page.keyboard.type("atlas"))
      yield* promise(() => page.keyboard.press("Enter"))

      expect(yield* Fiber.join(fiber)).toEqual(batchAnswer)
      yield* promise(() => page.getByText("No questions are waiting").waitFor())
      expect(problems).toEqual([])
    }))

  it.effect("takes Other text, a skip on the last multi-select, and cancels with Esc", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const request: AskUserQuestionRequest = {
        questions: [
          { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
          { id: "f", question: "Which features?", options: [{ label: "auth" }, { label: "search" }], multiSelect: true }
        ]
      }
      const first = yield* Effect.forkChild(ask(request))
      yield* promise(() => page.getByText("Question 1 of 2", { exact: true }).waitFor())
      yield* promise(() => page.getByRole("textbox", { name: "Other" }).fill("CockroachDB"))
      yield* promise(() => page.getByRole("textbox", { name: "Other" }).press("Enter"))
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      // Back keeps what was typed.
      yield* promise(() => page.getByRole("button", { name: "Back", exact: true }).click())
      yield* promise(() => page.getByText("Question 1 of 2", { exact: true }).waitFor())
      expect(yield* promise(() => page.getByRole("textbox", { name: "Other" }).inputValue())).toBe("CockroachDB")
      yield* promise(() => page.getByRole("textbox", { name: "Other" }).press("Enter"))
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      expect(yield* promise(() => page.getByRole("button", { name: "Submit", exact: true }).isVisible())).toBe(true)
      yield* promise(() => page.getByRole("button", { name: "Skip", exact: true }).click())
      expect(yield* Fiber.join(first)).toEqual({
        answers: [{ id: "db", selected: [], custom: "CockroachDB" }, { id: "f", selected: [] }]
      })

      const second = yield* Effect.forkChild(ask(request))
      yield* promise(() => page.getByText("Question 1 of 2", { exact: true }).waitFor())
      yield* promise(() => page.keyboard.press("Escape"))
      const exit = yield* Fiber.await(second)
      expect(Exit.findErrorOption(exit)).toMatchObject({ value: { code: "ASK_CANCELLED" } })
      expect(problems).toEqual([])
    }))

  it.effect("on a multi-select, text in Other clears the ticks it replaces, and emptying it puts them back", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const request: AskUserQuestionRequest = {
        questions: [{ id: "f", question: "Which features?", options: [{ label: "auth" }, { label: "search" }], multiSelect: true }]
      }
      const checked = (name: string) => promise(() => page.getByRole("checkbox", { name }).isChecked())
      const other = page.getByRole("textbox", { name: "Other" })
      const note = page.getByText("Your own answer replaces the options", { exact: false })

      const first = yield* Effect.forkChild(ask(request))
      yield* promise(() => page.getByRole("checkbox", { name: "auth" }).check())
      expect(yield* promise(() => note.isVisible())).toBe(false)
      yield* promise(() => other.fill("billing"))
      // What is sent is what is shown: no tick stays on screen that the answer drops.
      expect(yield* checked("auth")).toBe(false)
      expect(yield* promise(() => note.isVisible())).toBe(true)
      expect(yield* promise(() => other.getAttribute("aria-describedby"))).toBe("other-note")
      // A tick is refused while Other holds text, and the keyboard still moves through the boxes.
      yield* promise(() => page.getByRole("checkbox", { name: "auth" }).focus())
      yield* promise(() => page.keyboard.press("ArrowDown"))
      expect(yield* focusedName(page)).toBe("search")
      yield* promise(() => page.keyboard.press("Space"))
      expect(yield* checked("search")).toBe(false)
      yield* promise(() => page.getByRole("checkbox", { name: "search" }).click({ force: true }))
      expect(yield* checked("search")).toBe(false)
      yield* promise(() => other.fill(""))
      expect(yield* checked("auth")).toBe(true)
      expect(yield* checked("search")).toBe(false)
      yield* promise(() => page.getByRole("checkbox", { name: "search" }).click())
      yield* promise(() => page.getByRole("button", { name: "Submit", exact: true }).click())
      expect(yield* Fiber.join(first)).toEqual({ answers: [{ id: "f", selected: ["auth", "search"] }] })

      const second = yield* Effect.forkChild(ask(request))
      yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor())
      yield* promise(() => page.getByRole("checkbox", { name: "auth" }).check())
      yield* promise(() => other.fill("billing"))
      yield* promise(() => page.getByRole("button", { name: "Submit", exact: true }).click())
      expect(yield* Fiber.join(second)).toEqual({ answers: [{ id: "f", selected: [], custom: "billing" }] })
      expect(problems).toEqual([])
    }))

  it.effect("a free-text question has a button that sends it, usable once there is text", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const fiber = yield* Effect.forkChild(ask({ questions: [{ id: "n", question: "Project name?" }] }))
      const submit = page.getByRole("button", { name: "Submit", exact: true })
      yield* promise(() => submit.waitFor())
      expect(yield* promise(() => submit.isDisabled())).toBe(true)
      yield* promise(() => page.getByRole("textbox", { name: "Project name?" }).fill("atlas"))
      yield* promise(() => submit.click())
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "n", selected: [], custom: "atlas" }] })
      expect(problems).toEqual([])
    }))

  it.effect("on a single-select, Other text gets a button that sends it, shown only while there is text", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const fiber = yield* Effect.forkChild(ask({
        questions: [{ id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] }]
      }))
      const submit = page.getByRole("button", { name: "Submit", exact: true })
      yield* promise(() => page.getByRole("heading", { name: "Which database?" }).waitFor())
      expect(yield* promise(() => submit.isVisible())).toBe(false)
      const other = page.getByRole("textbox", { name: "Other" })
      yield* promise(() => other.fill("   "))
      expect(yield* promise(() => submit.isVisible())).toBe(false)
      yield* promise(() => other.fill("CockroachDB"))
      yield* promise(() => submit.click())
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "db", selected: [], custom: "CockroachDB" }] })
      expect(problems).toEqual([])
    }))

  it.effect("while an answer is on its way, the controls are disabled and say so; a failed send gives them back", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      let release: () => void = () => undefined
      const held = new Promise<void>((resolve) => release = resolve)
      let failNext = true
      yield* promise(() =>
        page.route("**/answer", async (route) => {
          await held
          if (failNext) {
            failNext = false
            return route.fulfill({ status: 503, body: "" })
          }
          return route.continue()
        })
      )
      const fiber = yield* Effect.forkChild(ask(single))
      const yes = page.getByRole("button", { name: "yes", exact: true })
      yield* promise(() => yes.click())
      yield* promise(() => page.getByText("Sending…", { exact: true }).waitFor())
      for (const name of ["yes", "no", "Skip", "Cancel"]) {
        expect(yield* promise(() => page.getByRole("button", { name, exact: true }).isDisabled())).toBe(true)
      }
      release()
      yield* promise(() => page.getByText("The server refused the answer (HTTP 503).").waitFor())
      expect(yield* promise(() => page.getByText("Sending…", { exact: true }).count())).toBe(0)
      expect(yield* promise(() => yes.isEnabled())).toBe(true)
      // The focus is back on the control the person used.
      expect(yield* focusedName(page)).toBe("yes")
      yield* promise(() => yes.click())
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      expect(problems).toEqual([])
    }))

  it.effect("requests already waiting when the page loads are not announced as new", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      yield* Effect.forkChild(ask(single))
      yield* Effect.forkChild(ask(batch))
      yield* promise(() => page.getByRole("navigation", { name: "Pending requests" }).waitFor())
      yield* promise(() => page.reload())
      yield* promise(() => page.getByRole("navigation", { name: "Pending requests" }).waitFor())
      yield* promise(() => page.locator("#announcer").getByText("Question 1 of", { exact: false }).waitFor())
      // Both announcements are 50 ms timers; a late "New request" would land within this.
      yield* promise(() => page.waitForTimeout(300))
      expect(yield* promise(() => page.locator("#announcer").textContent())).not.toContain("New request")
      expect(problems).toEqual([])
    }))

  it.effect("shows new requests live, without taking the focus from the one being answered", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      yield* promise(() => page.getByText("No questions are waiting").waitFor())
      yield* promise(() => page.getByText(/^Live/).waitFor())

      const first = yield* Effect.forkChild(ask({ questions: [{ id: "a", question: "First question?", options: [{ label: "one" }, { label: "two" }] }] }))
      yield* promise(() => page.getByRole("heading", { name: "First question?" }).waitFor())
      yield* promise(() => page.locator("[aria-live=polite]").getByText("Question 1 of 1: First question?").waitFor())
      expect(yield* focusedName(page)).toBe("one")

      const second = yield* Effect.forkChild(ask({ agent: { id: "b", name: "Reviewer" }, questions: [{ id: "b", question: "Second question?" }] }))
      yield* promise(() => page.getByRole("navigation", { name: "Pending requests" }).getByText("Second question?").waitFor())
      yield* promise(() => page.locator("[aria-live=polite]").getByText(/New request from Reviewer/).waitFor())
      expect(yield* focusedName(page)).toBe("one")

      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* Fiber.join(first)).toEqual({ answers: [{ id: "a", selected: ["one"] }] })
      const box = page.getByRole("textbox", { name: "Second question?" })
      yield* promise(() => box.waitFor())
      yield* promise(() => box.fill("ok"))
      yield* promise(() => box.press("Enter"))
      expect(yield* Fiber.join(second)).toEqual({ answers: [{ id: "b", selected: [], custom: "ok" }] })

      // An ask settled elsewhere disappears from the page.
      const third = yield* Effect.forkChild(ask({ questions: [{ id: "c", question: "Third question?" }] }))
      yield* promise(() => page.getByRole("heading", { name: "Third question?" }).waitFor())
      yield* Fiber.interrupt(third)
      yield* promise(() => page.getByText("No questions are waiting").waitFor())
      expect(problems).toEqual([])
    }))

  it.effect("renders hostile model text as inert text", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const corpus = [
        `<img src=x onerror="window.__pwned='img'">`,
        `<script>window.__pwned='script'</script>`,
        `"><svg onload="window.__pwned='svg'">`,
        `<iframe srcdoc="<script>parent.__pwned='iframe'</script>"></iframe>`,
        `<a href="javascript:window.__pwned='a'">click</a>`,
        `</textarea></title><style>body{display:none}</style>`,
        `javascript:window.__pwned='url'`,
        `{{constructor.constructor('window.__pwned=1')()}} \${window.__pwned='tpl'}`,
        `&lt;b&gt;entity&lt;/b&gt; \u202Eevil\u202C <b>bold</b>`
      ]
      const request: AskUserQuestionRequest = {
        agent: { id: "x", name: corpus[0]! },
        questions: [{
          id: "q",
          header: corpus[1]!,
          question: corpus[2]!,
          options: corpus.slice(3).map((label, i) => ({ label, description: corpus[(i + 4) % corpus.length]! }))
        }, { id: "t", question: corpus[0]! }]
      }
      const fiber = yield* Effect.forkChild(ask(request))
      yield* promise(() => page.getByText("Question 1 of 2", { exact: true }).waitFor())

      const seen = yield* promise(() =>
        page.evaluate(() => ({
          pwned: (window as { __pwned?: unknown }).__pwned,
          injected: document.querySelectorAll("img, svg, iframe, a, object, embed, b, textarea, title ~ title").length,
          scripts: document.scripts.length,
          styles: document.querySelectorAll("style").length,
          heading: document.querySelector("h2")?.textContent,
          header: document.querySelector(".chip")?.textContent,
          labels: Array.from(document.querySelectorAll("button.option"), (b) => b.getAttribute("aria-label"))
        }))
      )
      expect(seen).toEqual({
        pwned: undefined,
        injected: 0,
        scripts: 1,
        styles: 1,
        heading: corpus[2],
        header: corpus[1],
        // The label as shown: its bidi controls as visible escapes (the answer below carries them raw).
        labels: corpus.slice(3).map(sanitize)
      })
      // Labels come back to the model unchanged.
      yield* promise(() => page.locator("button.option").nth(1).click())
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      yield* promise(() => page.keyboard.type(corpus[1]!))
      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* Fiber.join(fiber)).toEqual({
        answers: [{ id: "q", selected: [corpus[4]] }, { id: "t", selected: [], custom: corpus[1] }]
      })
      expect(yield* promise(() => page.evaluate(() => (window as { __pwned?: unknown }).__pwned))).toBeUndefined()
      expect(problems).toEqual([])
    }))

  it.effect("when another tab answers the request being answered, says so and keeps the keyboard off the next one", () =>
    Effect.gen(function*() {
      const { ask, pages: [a, b], problems, web } = yield* openTabs(2)
      const first = yield* Effect.forkChild(ask({
        agent: { id: "a", name: "Builder" },
        questions: [
          { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
          { id: "name", question: "Project name?" }
        ]
      }))
      for (const page of [a!, b!]) yield* promise(() => page.getByText("Question 1 of 2", { exact: true }).waitFor())
      const merge = { agent: { id: "b", name: "Reviewer" }, questions: [{ id: "ok", question: "Merge?", options: [{ label: "yes" }, { label: "no" }] }] }
      const second = yield* Effect.forkChild(ask(merge))
      yield* promise(() => b!.getByText("Merge?").first().waitFor())
      // Tab B is halfway through request 1 when tab A answers it.
      yield* promise(() => b!.getByRole("button", { name: "SQLite" }).click())
      yield* promise(() => b!.getByRole("textbox", { name: "Project name?" }).fill("half typed"))
      yield* promise(() => a!.getByRole("button", { name: "Postgres" }).click())
      yield* promise(() => a!.getByRole("textbox", { name: "Project name?" }).fill("atlas"))
      yield* promise(() => a!.keyboard.press("Enter"))
      yield* Fiber.join(first)

      yield* promise(() => b!.getByRole("alert").filter({ hasText: "Answered in another tab." }).waitFor())
      // The focus is on the notice, not on an option of the other request: Enter does nothing.
      expect(yield* promise(() => b!.evaluate(() => `${document.activeElement?.tagName}: ${document.activeElement?.textContent}`)))
        .toBe("H2: Answered in another tab.")
      yield* promise(() => b!.keyboard.press("Enter"))
      yield* Effect.sleep("500 millis")
      expect((yield* web.pending).map((p) => p.request.questions[0]!.question)).toEqual(["Merge?"])

      // Moving on is the person's own step.
      yield* promise(() => b!.getByRole("button", { name: "Next request" }).click())
      yield* promise(() => b!.getByRole("heading", { name: "Merge?" }).waitFor())
      yield* promise(() => b!.getByRole("button", { name: /^no/ }).click())
      expect(yield* Fiber.join(second)).toEqual({ answers: [{ id: "ok", selected: ["no"] }] })
      expect(problems).toEqual([])
    }))

  it.effect("never leaves the focus on a control the notice hides or the list rebuilds", () =>
    Effect.gen(function*() {
      const { ask, page, problems, web } = yield* open
      const asking = (question: string) => Effect.forkChild(ask({ questions: [{ id: "q", question, options: [{ label: "yes" }] }] }))
      const focused = promise(() => page.evaluate(() => `${document.activeElement?.tagName}: ${document.activeElement?.textContent}`))
      const settle = (question: string) =>
        Effect.gen(function*() {
          const id = (yield* web.pending).find((p) => p.request.questions[0]!.question === question)!.id
          expect((yield* promise(() => postJson(web.port, `/api/questions/${id}/cancel`, web.token, {}))).status).toBe(200)
        })
      yield* asking("Alpha?")
      yield* promise(() => page.getByRole("heading", { name: "Alpha?" }).waitFor())
      yield* asking("Bravo?")
      yield* asking("Charlie?")
      yield* promise(() => page.locator("#requests button").nth(2).waitFor())

      // The focus on "Next request" when the requests it would show are settled elsewhere: the button
      // hides, and the focus goes to the notice's heading, not to <body>.
      yield* settle("Alpha?")
      yield* promise(() => page.getByRole("alert").filter({ hasText: "Cancelled in another tab." }).waitFor())
      yield* promise(() => page.getByRole("button", { name: "Next request" }).focus())
      yield* settle("Bravo?")
      yield* settle("Charlie?")
      yield* promise(() => page.waitForFunction(() => document.title === "Questions for you"))
      expect(yield* focused).toBe("H2: Cancelled in another tab.")
      // A new request brings the button back; the focus stays on the notice, and Enter answers nothing.
      yield* asking("Delta?")
      yield* promise(() => page.getByRole("button", { name: "Next request" }).waitFor())
      expect(yield* focused).toBe("H2: Cancelled in another tab.")

      // The focus on another request's button in the list when the one on screen is settled elsewhere.
      yield* promise(() => page.getByRole("button", { name: "Next request" }).click())
      yield* promise(() => page.getByRole("heading", { name: "Delta?" }).waitFor())
      yield* asking("Echo?")
      yield* asking("Foxtrot?")
      yield* promise(() => page.locator("#requests button").nth(2).waitFor())
      // With two left, the list stays, and so does the focus on the same request's button.
      yield* promise(() => page.locator("#requests button").filter({ hasText: "Echo?" }).focus())
      yield* settle("Delta?")
      yield* promise(() => page.getByRole("alert").filter({ hasText: "Cancelled in another tab." }).waitFor())
      expect(yield* focused).toMatch(/^BUTTON: .*Echo\?/)
      // With one left, the list hides: the focus goes to the notice's heading.
      yield* settle("Foxtrot?")
      yield* promise(() => page.waitForFunction(() => document.title === "(1) Questions for you"))
      expect(yield* focused).toBe("H2: Cancelled in another tab.")
      yield* promise(() => page.keyboard.press("Enter"))
      yield* Effect.sleep("300 millis")
      expect((yield* web.pending).map((p) => p.request.questions[0]!.question)).toEqual(["Echo?"])
      expect(problems).toEqual([])
    }))

  it.effect("a cancel that loses to another client's answer says the request was already answered", () =>
    Effect.gen(function*() {
      let release = () => {}
      const gate = new Promise<void>((resolve) => (release = resolve))
      const { ask, page, web } = yield* open
      // The cancel is slow on the wire; the other answer wins meanwhile.
      yield* promise(() => page.route("**/cancel", async (route) => {
        await gate
        await route.continue()
      }))
      const fiber = yield* Effect.forkChild(ask(single))
      yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor())
      const id = (yield* web.pending)[0]!.id
      yield* promise(() => page.keyboard.press("Escape"))
      yield* Effect.sleep("100 millis")
      const other = yield* promise(() => postJson(web.port, `/api/questions/${id}/answer`, web.token, singleAnswer))
      expect(other.status).toBe(200)
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      release()
      yield* promise(() => page.getByRole("alert").filter({ hasText: "already answered" }).waitFor())
      yield* Effect.sleep("300 millis")
      expect(yield* promise(() => page.locator("#announcer").textContent())).not.toContain("cancelled")
    }))

  it.effect("ignores a list of questions that arrives after the stream said they were answered", () =>
    Effect.gen(function*() {
      let release = () => {}
      const gate = new Promise<void>((resolve) => (release = resolve))
      let listed = () => {}
      const fetched = new Promise<void>((resolve) => (listed = resolve))
      const { ask, pages: [page], web } = yield* openTabs(1, (page) =>
        page.route("**/api/questions", async (route) => {
          const response = await route.fetch()
          listed()
          await gate
          await route.fulfill({ response })
        }))
      const asked = yield* Effect.forkChild(ask(single))
      yield* promise(() => page!.getByText("Question 1 of 1", { exact: true }).waitFor())
      // The list the page asked for when its stream opened is served now, but arrives late.
      yield* promise(() => fetched)
      const id = (yield* web.pending)[0]!.id
      expect((yield* promise(() => postJson(web.port, `/api/questions/${id}/answer`, web.token, singleAnswer))).status).toBe(200)
      yield* Fiber.join(asked)
      yield* promise(() => page!.waitForFunction(() => document.title === "Questions for you"))
      release()
      yield* Effect.sleep("1 second")
      expect(yield* promise(() => page!.title())).toBe("Questions for you")
      expect(yield* promise(() => page!.getByRole("heading", { name: "Deploy now?" }).count())).toBe(0)
    }))

  it.effect("keeps working with seven tabs open", () =>
    Effect.gen(function*() {
      const { ask, pages } = yield* openTabs(7)
      const fiber = yield* Effect.forkChild(ask(single))
      for (const page of pages) yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor({ timeout: 10_000 }))
      const last = pages[6]!
      yield* promise(() => last.bringToFront())
      yield* promise(() => last.getByRole("button", { name: /^yes/ }).click())
      expect(yield* Fiber.join(fiber)).toEqual(singleAnswer)
      for (const page of pages) yield* promise(() => page.waitForFunction(() => document.title === "Questions for you"))
    }), { timeout: 90_000 })

  it.effect("shows hidden and control characters as the terminal does, each escape boxed apart from typed text", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      // Labels that read "yes" with their hidden characters dropped, and text that only looks like an escape.
      const labels = [
        "yes", "ye\u200bs", "ye\\u200bs", "yes\u2060", "ye\u00ads", "ye\ufe0fs", "ye\u034fs", "yes\u{e0041}", "ye\u200es",
        "\x1b[31mye\u009bs", "A\ud800", "A\udc00", "\u2764\ufe0f yes", "\u05e9\u05dc\u05d5\u05dd\u200f ok"
      ]
      const fiber = yield* Effect.forkChild(ask({ questions: [{ id: "q", question: "Which\u200b?", options: labels.map((label) => ({ label })) }] }))
      yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor())
      const seen = yield* promise(() =>
        page.evaluate(() => ({
          heading: document.querySelector("h2")!.textContent,
          names: Array.from(document.querySelectorAll("button.option"), (b) => b.getAttribute("aria-label")),
          texts: Array.from(document.querySelectorAll("button.option .option-label"), (label) => label.textContent),
          boxed: Array.from(document.querySelectorAll("button.option .option-label"), (label) =>
            Array.from(label.querySelectorAll(".escape"), (box) => box.textContent)),
          // An escape reads left to right, inside right-to-left text too.
          directions: Array.from(new Set(Array.from(document.querySelectorAll(".escape"), (box) => getComputedStyle(box).direction)))
        }))
      )
      expect(seen.directions).toEqual(["ltr"])
      expect(seen.heading).toBe("Which\\u200b?")
      expect(seen.names).toEqual(labels.map(sanitize))
      expect(seen.texts).toEqual(labels.map(sanitize))
      // No two look alike: where the text matches ("ye\\u200b" typed, or escaped), the boxes differ.
      expect(new Set(seen.texts.map((text, i) => JSON.stringify([text, seen.boxed[i]]))).size).toBe(labels.length)
      // Each escaped character is a box of its own; text typed as "\u200b" is not boxed.
      expect(seen.boxed.slice(0, 3)).toEqual([[], ["\\u200b"], []])
      expect(seen.boxed[9]).toEqual(["\\x1b", "\\x9b"])
      expect(seen.boxed[12]).toEqual([])
      yield* promise(() => page.locator("button.option").nth(1).click())
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "q", selected: ["ye\u200bs"] }] })
      expect(problems).toEqual([])
    }))

  it.effect("isolates model text, so direction overrides cannot reorder the page's own words", () =>
    Effect.gen(function*() {
      const { ask, page } = yield* open
      // A PDI (U+2069) first would close the page's isolate early, and the override after it run on.
      const rlo = "\u2069\u202E"
      const fiber = yield* Effect.forkChild(ask({
        agent: { id: "x", name: `Bob${rlo}` },
        questions: [{
          id: "q",
          header: `${rlo}head`,
          question: `${rlo}Which?`,
          options: [{ label: `${rlo}one`, description: `${rlo}first` }, { label: "two" }]
        }]
      }))
      yield* Effect.forkChild(ask({ agent: { id: "y", name: `${rlo}other` }, questions: [{ id: "t", question: `${rlo}Text?` }] }))
      yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor())
      yield* promise(() => page.getByRole("navigation", { name: "Pending requests" }).waitFor())
      const seen = yield* promise(() =>
        page.evaluate(() => {
          const isolated = (element: Element) => {
            const bidi = getComputedStyle(element).unicodeBidi
            return bidi === "isolate" || bidi === "plaintext"
          }
          // Every element whose own text holds the (escaped) override isolates it.
          const holders = Array.from(document.querySelectorAll("main *")).filter((element) =>
            Array.from(element.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.includes("\\u202e"))
          )
          // No bidi control reaches the document raw: not in text, not in an attribute.
          const control = /[\u202a-\u202e\u2066-\u2069]/
          const raw = Array.from(document.querySelectorAll("main, main *")).filter((element) =>
            Array.from(element.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && control.test(node.textContent!)) ||
            Array.from(element.attributes).some((attribute) => control.test(attribute.value))
          ).map((element) => element.outerHTML)
          // And the page's own word "asks" stays to the right of the agent's name.
          const asker = document.querySelector(".asker")!
          const name = asker.querySelector("bdi, [dir]")
          const words = Array.from(asker.childNodes).find((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.includes("asks"))
          const range = document.createRange()
          if (words !== undefined) range.selectNodeContents(words)
          // Each letter of " asks" after the one before it: the words are not reversed ("sksa").
          const lefts = words === undefined ? [] : Array.from(words.textContent!, (_, i) => {
            const letter = document.createRange()
            letter.setStart(words, i)
            letter.setEnd(words, i + 1)
            return letter.getBoundingClientRect().left
          })
          return {
            inOrder: lefts.length > 0 && lefts.every((left, i) => i === 0 || left > lefts[i - 1]!),
            holders: holders.length,
            raw,
            notIsolated: holders.filter((element) => !isolated(element)).map((element) => element.outerHTML),
            name: name?.textContent,
            asksAfterName: name !== null && words !== undefined &&
              range.getBoundingClientRect().left >= name.getBoundingClientRect().right - 1
          }
        })
      )
      expect(seen.inOrder).toBe(true)
      expect(seen.asksAfterName).toBe(true)
      expect(seen.holders).toBeGreaterThanOrEqual(7)
      expect(seen.raw).toEqual([])
      expect(seen.notIsolated).toEqual([])
      expect(seen.name).toBe("Bob\\u2069\\u202e")
      // Only the display changes: the label chosen comes back byte for byte.
      yield* promise(() => page.locator("button.option").first().click())
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "q", selected: [`${rlo}one`] }] })
    }))

  it.effect("after Back, the chosen option is exposed as pressed", () =>
    Effect.gen(function*() {
      const { ask, page } = yield* open
      const fiber = yield* Effect.forkChild(ask({
        questions: [
          { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
          { id: "name", question: "Project name?" }
        ]
      }))
      yield* promise(() => page.getByRole("button", { name: "SQLite", pressed: false }).click())
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      yield* promise(() => page.getByRole("button", { name: "Back", exact: true }).click())
      yield* promise(() => page.getByText("Question 1 of 2", { exact: true }).waitFor())
      expect(yield* promise(() => page.getByRole("button", { name: "SQLite", pressed: true }).count())).toBe(1)
      expect(yield* promise(() => page.getByRole("button", { name: "Postgres", pressed: false }).count())).toBe(1)
      // The focus is on the answer given, so Enter keeps it rather than choosing the first option.
      expect(yield* focusedName(page)).toBe("SQLite")
      yield* promise(() => page.keyboard.press("Enter"))
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      yield* promise(() => page.getByRole("textbox", { name: "Project name?" }).fill("atlas"))
      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* Fiber.join(fiber)).toEqual({
        answers: [{ id: "db", selected: ["SQLite"] }, { id: "name", selected: [], custom: "atlas" }]
      })
    }))

  it.effect("a second press of the key that answered one request does not answer the next; with none left the focus is on the status", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* open
      const yesNo = (id: string, name: string): AskUserQuestionRequest => ({
        agent: { id, name },
        questions: [{ id, question: `${name} asks: go on?`, options: [{ label: "yes" }, { label: "no" }] }]
      })
      const first = yield* Effect.forkChild(ask(yesNo("a1", "Agent 1")))
      yield* promise(() => page.getByRole("heading", { name: "Agent 1 asks: go on?" }).waitFor())
      const second = yield* Effect.forkChild(ask(yesNo("a2", "Agent 2")))
      yield* promise(() => page.getByRole("navigation", { name: "Pending requests" }).getByText("Agent 2 asks: go on?").waitFor())
      expect(yield* focusedName(page)).toBe("yes")
      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* Fiber.join(first)).toEqual({ answers: [{ id: "a1", selected: ["yes"] }] })
      yield* promise(() => page.getByRole("heading", { name: "Agent 2 asks: go on?" }).waitFor())
      expect(yield* focusedName(page)).toBe("Agent 2 asks: go on?")
      yield* promise(() => page.keyboard.press("Enter"))
      yield* promise(() => page.keyboard.press("Space"))
      expect(second.pollUnsafe()).toBeUndefined()
      expect(yield* promise(() => page.locator("[aria-pressed=true]").count())).toBe(0)
      // Moving into the request is one deliberate key away.
      yield* promise(() => page.keyboard.press("Tab"))
      expect(yield* focusedName(page)).toBe("yes")
      yield* promise(() => page.keyboard.press("ArrowDown"))
      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* Fiber.join(second)).toEqual({ answers: [{ id: "a2", selected: ["no"] }] })
      yield* promise(() => page.getByText("No questions are waiting").waitFor())
      expect(yield* promise(() => page.evaluate(() => document.activeElement?.textContent ?? null)))
        .toContain("No questions are waiting")

      // Esc cancels; the focus again lands on the status, not on the page's top.
      const third = yield* Effect.forkChild(ask(yesNo("a3", "Agent 3")))
      yield* promise(() => page.getByRole("heading", { name: "Agent 3 asks: go on?" }).waitFor())
      yield* promise(() => page.keyboard.press("Escape"))
      expect(Exit.findErrorOption(yield* Fiber.await(third))).toMatchObject({ value: { code: "ASK_CANCELLED" } })
      yield* promise(() => page.getByText("No questions are waiting").waitFor())
      expect(yield* promise(() => page.evaluate(() => document.activeElement?.tagName))).toBe("P")
      expect(problems).toEqual([])
    }))

  /** `ask-user --web ...args` asking the one-question request, and a fresh page (not opened yet); both end with the test. */
  const webRunAndPage = (args: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const browser = yield* Chromium
      const { file } = tempFiles({ file: single })
      const run = yield* Effect.acquireRelease(
        Effect.sync(() => start(["--web", ...args, file!])),
        (run) => Effect.sync(() => run.child.kill("SIGKILL"))
      )
      yield* promise(() => run.stderrContains("\n"))
      const url = /^Answer at (\S+)$/m.exec(run.stderr())![1]!
      const page = yield* Effect.acquireRelease(promise(() => browser.newPage()), (page) => promise(() => page.close()))
      return { page, run, url }
    })

  for (
    const [what, args, signal] of [
      // Long enough for a loaded machine to start ask-user and open the page
      // before it gives up; the test waits this long only in this case.
      ["its --timeout", ["--timeout", "12s"], undefined],
      ["SIGTERM", [], "SIGTERM"]
    ] as const
  ) {
    it.effect(`after ${what}, says ask-user stopped before every question was answered`, () =>
      Effect.gen(function*() {
        const { page, run, url } = yield* webRunAndPage(args)
        yield* promise(() => page.goto(url))
        yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor())
        if (signal !== undefined) run.child.kill(signal)
        expect(yield* promise(() => run.exited)).toBe(signal === undefined ? 4 : 143)
        yield* promise(() =>
          page.locator("#card").getByText("ask-user stopped before every question was answered. You can close this tab.").waitFor()
        )
        expect(yield* promise(() => page.locator("#card").textContent())).not.toContain("All questions were answered")
        // Nobody can tell from the page whether the agent or a signal withdrew it: the page does not guess.
        expect(yield* promise(() => page.locator("#card").textContent())).not.toContain("by the agent")
      }), { timeout: 60_000 })
  }

  it.effect("after a Cancel in the page, says the request was cancelled, not that the questions were answered", () =>
    Effect.gen(function*() {
      const { page, run, url } = yield* webRunAndPage([])
      yield* promise(() => page.goto(url))
      yield* promise(() => page.getByRole("button", { name: "Cancel", exact: true }).click())
      expect(yield* promise(() => run.exited)).toBe(3)
      yield* promise(() =>
        page.locator("#card").getByText("No more questions: one request was cancelled or declined. You can close this tab.").waitFor()
      )
      expect(yield* promise(() => page.locator("#card").textContent())).not.toContain("answered")
    }), { timeout: 60_000 })

  it.effect("when the terminal declines and the provider then closes, the page keeps \"Declined in the terminal.\" and says so", () =>
    Effect.gen(function*() {
      const browser = yield* Chromium
      const gate = yield* Deferred.make<void>()
      const terminal = Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({
        name: "terminal",
        ask: () => Effect.andThen(Deferred.await(gate), Effect.fail(new AskDeclined({ message: "Declined on the terminal." })))
      }))
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerWith(FanoutProvider.layer(terminal, WebProvider.layer())), scope)
      const page = yield* Effect.acquireRelease(promise(() => browser.newPage()), (page) => promise(() => page.close()))
      yield* promise(() => page.goto(Context.get(context, WebProvider).url))
      const asking = yield* Effect.forkChild(UserInteraction.ask(single).pipe(Effect.provideContext(context), Effect.flip))
      yield* promise(() => page.getByText("Question 1 of 1", { exact: true }).waitFor())
      yield* Deferred.succeed(gate, undefined)
      expect((yield* Fiber.join(asking)).code).toBe("ASK_DECLINED")
      yield* promise(() => page.getByRole("heading", { name: "Declined in the terminal." }).waitFor())
      yield* Scope.close(scope, Exit.void)
      yield* promise(() => page.locator("#card").getByText("one request was cancelled or declined", { exact: false }).waitFor())
      expect(yield* promise(() => page.getByRole("heading", { name: "Declined in the terminal." }).isVisible())).toBe(true)
      expect(yield* promise(() => page.getByRole("button", { name: "Next request" }).isVisible())).toBe(false)
    }), { timeout: 60_000 })

  it.effect("after ask-user --web exits, says the questions were answered and makes no request for 5 s", () =>
    Effect.gen(function*() {
      const { page, run, url } = yield* webRunAndPage([])
      const requests: Array<string> = []
      page.on("request", (request) => requests.push(request.url()))
      yield* promise(() => page.goto(url))
      yield* promise(() => page.getByRole("button", { name: /^yes/ }).click())
      expect(yield* promise(() => run.exited)).toBe(0)
      expect(JSON.parse(run.stdout())).toEqual(singleAnswer)
      yield* promise(() => page.locator("#card").getByText("All questions were answered. You can close this tab.").waitFor())
      expect(yield* promise(() => page.locator("#connection").textContent())).toContain("no longer running")
      // Nothing will be asked again: no offer to notify of it.
      expect(yield* promise(() => page.getByRole("button", { name: "Notify me of new questions" }).isVisible())).toBe(false)
      // Nothing more: no reconnecting event stream, no polling.
      const before = requests.length
      yield* Effect.sleep("5 seconds")
      expect(requests.slice(before)).toEqual([])
    }), { timeout: 60_000 })
})


/**
 * A page in its own browser context with notifications granted. Headless
 * Chromium keeps every tab visible, so the page's visibility is emulated
 * (`window.__hidden`), and each `Notification` the page makes is recorded.
 */
const openNotifying = <E>(providerLayer: Layer.Layer<WebProvider | UserInteractionProvider, E>, hidden = false) =>
  Effect.gen(function*() {
    const browser = yield* Chromium
    const context = yield* Layer.build(UserInteraction.layerWith(providerLayer))
    const web = Context.get(context, WebProvider)
    const ask = (request: AskUserQuestionRequest) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
    const browserContext = yield* Effect.acquireRelease(
      promise(() => browser.newContext()),
      (browserContext) => promise(() => browserContext.close())
    )
    yield* promise(() => browserContext.grantPermissions(["notifications"], { origin: new URL(web.url).origin }))
    yield* promise(() =>
      browserContext.addInitScript((hidden: boolean) => {
        const w = window as unknown as {
          __hidden: boolean
          __shown: Array<{ title: string; body: string | undefined }>
          __raised: Array<Notification>
          __closed: Array<string>
        }
        w.__hidden = hidden
        w.__shown = []
        w.__raised = []
        w.__closed = []
        Object.defineProperty(Document.prototype, "visibilityState", { get: () => w.__hidden ? "hidden" : "visible" })
        const Real = window.Notification
        window.Notification = class extends Real {
          constructor(title: string, options?: NotificationOptions) {
            super(title, options)
            w.__shown.push({ title, body: options?.body })
            w.__raised.push(this)
          }
          override close() {
            w.__closed.push(this.body)
            super.close()
          }
        } as typeof Notification
      }, hidden)
    )
    const newTab = Effect.gen(function*() {
      const page = yield* promise(() => browserContext.newPage())
      yield* promise(() => page.goto(web.url))
      return page
    })
    const page = yield* newTab
    return { ask, page, web, newTab }
  })

const shown = (page: Page) =>
  promise(() => page.evaluate(() => (window as unknown as { __shown: Array<unknown> }).__shown))

layer(Chromium.layer, { timeout: 60_000, excludeTestServices: true })("web page title and notifications", (it) => {
  it.effect("the title counts the waiting requests; a request arriving while the tab is hidden notifies", () =>
    Effect.gen(function*() {
      const { ask, page } = yield* openNotifying(WebProvider.layer())
      yield* promise(() => page.getByText("Live:", { exact: false }).waitFor())
      expect(yield* promise(() => page.title())).toBe("Questions for you")
      // Permission was granted through the context: no button to ask for it.
      expect(yield* promise(() => page.getByRole("button", { name: "Notify me of new questions" }).isVisible())).toBe(false)

      const first = yield* Effect.forkChild(ask({ ...batch, agent: { id: "a", name: "Planner" } }))
      yield* promise(() => page.waitForFunction(() => document.title === "(1) Questions for you"))
      // Visible tab: no notification.
      expect(yield* shown(page)).toEqual([])

      yield* promise(() => page.evaluate(() => void ((window as unknown as { __hidden: boolean }).__hidden = true)))
      const second = yield* Effect.forkChild(ask({ questions: [{ id: "t", question: "<b>Ship</b> it?" }] }))
      yield* promise(() => page.waitForFunction(() => document.title === "(2) Questions for you"))
      // The name is isolated (FSI … PDI), as <bdi> isolates it in the page.
      expect(yield* shown(page)).toEqual([{ title: "\u2068The agent\u2069 asks", body: "<b>Ship</b> it?" }])

      // A name that closes the isolate itself (PDI) and then overrides: its controls show as escapes,
      // in the title and the body alike.
      const third = yield* Effect.forkChild(ask({
        agent: { id: "e", name: "Eve\u2069\u202E" },
        questions: [{ id: "t", question: "Go\u2069\u202E on?" }]
      }))
      yield* promise(() => page.waitForFunction(() => document.title === "(3) Questions for you"))
      expect((yield* shown(page))[1]).toEqual({ title: "\u2068Eve\\u2069\\u202e\u2069 asks", body: "Go\\u2069\\u202e on?" })

      yield* Fiber.interrupt(third)
      yield* Fiber.interrupt(second)
      yield* promise(() => page.waitForFunction(() => document.title === "(1) Questions for you"))
      yield* Fiber.interrupt(first)
      yield* promise(() => page.waitForFunction(() => document.title === "Questions for you"))
    }))

  it.effect("with several hidden tabs, one notification per arriving request, none for those already waiting", () =>
    Effect.gen(function*() {
      const { ask, page, newTab } = yield* openNotifying(WebProvider.layer(), true)
      const pages = [page, yield* newTab, yield* newTab]
      for (const tab of pages) yield* promise(() => tab.getByText("Live:", { exact: false }).waitFor())
      const total = Effect.map(Effect.forEach(pages, shown), (lists) => lists.flat().length)
      const question = (text: string) => ({ questions: [{ id: "q", question: text, options: [{ label: "yes" }] }] })
      const waitTitle = (tab: Page, count: number) =>
        promise(() => tab.waitForFunction((count) => document.title === `(${count}) Questions for you`, count))

      yield* Effect.forkChild(ask(question("First?")))
      for (const tab of pages) yield* waitTitle(tab, 1)
      yield* Effect.forkChild(ask(question("Second?")))
      for (const tab of pages) yield* waitTitle(tab, 2)
      yield* Effect.sleep("300 millis")
      expect(yield* total).toBe(2)

      // A tab opened later, in the background, says nothing about the requests already waiting.
      const late = yield* newTab
      pages.push(late)
      yield* waitTitle(late, 2)
      yield* Effect.sleep("300 millis")
      expect(yield* total).toBe(2)
      yield* Effect.forkChild(ask(question("Third?")))
      for (const tab of pages) yield* waitTitle(tab, 3)
      yield* Effect.sleep("300 millis")
      expect(yield* total).toBe(3)

      // While one of the tabs is in view, the person is looking: no notification.
      yield* promise(() =>
        pages[1]!.evaluate(() => {
          ;(window as unknown as { __hidden: boolean }).__hidden = false
          document.dispatchEvent(new Event("visibilitychange"))
        })
      )
      yield* Effect.sleep("200 millis")
      yield* Effect.forkChild(ask(question("Fourth?")))
      for (const tab of pages) yield* waitTitle(tab, 4)
      yield* Effect.sleep("300 millis")
      expect(yield* total).toBe(3)
    }))

  it.effect("a request settled elsewhere takes its notification down, and a click on it later leaves the page usable", () =>
    Effect.gen(function*() {
      const { ask, page } = yield* openNotifying(WebProvider.layer(), true)
      yield* promise(() => page.getByText("Live:", { exact: false }).waitFor())
      const question = (text: string) => ({ questions: [{ id: "q", question: text, options: [{ label: "yes" }] }] })
      const first = yield* Effect.forkChild(ask(question("First?")))
      yield* promise(() => page.waitForFunction(() => document.title === "(1) Questions for you"))
      // The agent withdraws it: its notification goes.
      yield* Fiber.interrupt(first)
      yield* promise(() => page.waitForFunction(() => (window as unknown as { __closed: Array<string> }).__closed.includes("First?")))
      yield* Effect.forkChild(ask(question("Second?")))
      yield* promise(() => page.waitForFunction(() => document.title === "(1) Questions for you"))
      // The person clicks the first notification anyway (the system may still show it).
      yield* promise(() =>
        page.evaluate(() => (window as unknown as { __raised: Array<Notification> }).__raised[0]!.dispatchEvent(new Event("click")))
      )
      // Never "nothing is waiting" while something is: the next request is one step away.
      expect(yield* promise(() => page.getByText("No questions are waiting", { exact: false }).isVisible())).toBe(false)
      const next = page.getByRole("button", { name: "Next request" })
      if (yield* promise(() => next.isVisible())) yield* promise(() => next.click())
      yield* promise(() => page.getByRole("heading", { name: "Second?" }).waitFor())
    }))

  it.effect("without a decision yet, a button asks for permission", () =>
    Effect.gen(function*() {
      const browser = yield* Chromium
      const context = yield* Layer.build(WebProvider.layer())
      const page = yield* Effect.acquireRelease(promise(() => browser.newPage()), (page) => promise(() => page.close()))
      yield* promise(() => page.goto(Context.get(context, WebProvider).url))
      expect(yield* promise(() => page.evaluate(() => Notification.permission))).toBe("default")
      const button = page.getByRole("button", { name: "Notify me of new questions" })
      expect(yield* promise(() => button.isVisible())).toBe(true)
    }))

  it.effect("when the terminal answers, the page says \"Answered in the terminal.\"", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const terminal = Layer.succeed(UserInteractionProvider, UserInteractionProvider.of({
        name: "terminal",
        ask: () => Effect.as(Deferred.await(gate), batchAnswer)
      }))
      const { ask, page } = yield* openNotifying(FanoutProvider.layer(terminal, WebProvider.layer()))
      const fiber = yield* Effect.forkChild(ask(batch))
      yield* promise(() => page.getByText("Question 1 of 3", { exact: true }).waitFor())
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(fiber)).toEqual(batchAnswer)
      yield* promise(() => page.getByRole("alert").filter({ hasText: "Answered in the terminal." }).waitFor())
      expect(yield* promise(() => page.title())).toBe("Questions for you")
    }))

  it.effect("an ask only os:ana@* may answer is not on the page; an open one is, and the title counts only it", () =>
    Effect.gen(function*() {
      const { ask, page, problems, web } = yield* open
      const forAna = yield* Effect.forkChild(ask({
        questions: [{ id: "deploy", question: "Deploy to production?", options: [{ label: "Deploy" }, { label: "Hold" }] }],
        answerableBy: ["os:ana@*"]
      }))
      const openAsk = yield* Effect.forkChild(ask(single))
      const question = single.questions[0]!.question
      yield* promise(() => page.getByRole("heading", { name: question }).waitFor())
      expect((yield* web.pending).length).toBe(2)
      expect(yield* promise(() => page.getByText("Deploy to production?").count())).toBe(0)
      expect(yield* promise(() => page.getByText("other request", { exact: false }).count())).toBe(0)
      expect(yield* promise(() => page.title())).toBe("(1) Questions for you")

      yield* promise(() => page.getByRole("button", { name: new RegExp(`^${singleAnswer.answers[0]!.selected[0]}`) }).click())
      expect(yield* Fiber.join(openAsk)).toEqual(singleAnswer)
      // Ana's ask is still pending, and still not shown: the page has nothing for this token holder.
      yield* promise(() => page.getByText("No questions are waiting").waitFor())
      expect(yield* promise(() => page.getByText("Deploy to production?").count())).toBe(0)
      expect((yield* web.pending).length).toBe(1)
      expect(forAna.pollUnsafe()).toBeUndefined()
      yield* Fiber.interrupt(forAna)
      expect(problems).toEqual([])
    }))
})
