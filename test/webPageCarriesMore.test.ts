/**
 * The answer page with what questions carry since the second edition, in
 * real headless Chromium, on a desktop-wide and on a phone-wide (360×640)
 * window: the recommended option marked and focused, the preview panel, the
 * password field of a secret question (and where the page refuses one), and
 * the review before submit (`WebProvider.layer({ review: true })`,
 * `ask-user --web --review`).
 */
import { describe, expect, it as plain, layer } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Logger, Redacted, References } from "effect"
import type { Page } from "playwright-core"
import {
  type AskUserQuestionAnswer,
  type AskUserQuestionRequest,
  FanoutProvider,
  ScriptedProvider,
  UserInteraction
} from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"
import { sanitize } from "../src/internal/sanitize.js"
import { start, tempFiles } from "./cliHarness.js"
import { accessibleOf, Chromium, focusedName, openPage, promise } from "./support/chromium.js"
import { openEvents } from "./support/webClient.js"

const windows = [["a desktop", { width: 1280, height: 800 }], ["a phone", { width: 360, height: 640 }]] as const

/** The page does not scroll sideways: nothing is wider than the window. */
const fitsWidth = (page: Page) =>
  promise(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth))

/** The box of the first element matching `selector`. */
const box = (page: Page, selector: string) =>
  Effect.map(promise(() => page.locator(selector).first().boundingBox()), (found) => found!)

/** The secret values' plain text must be nowhere in the document: markup, field values, stored state. */
const documentHolds = (page: Page, text: string) =>
  promise(() =>
    page.evaluate((text) =>
      document.documentElement.outerHTML.includes(text) ||
      Array.from(document.querySelectorAll("input"), (input) => input.value).some((value) => value.includes(text)) ||
      JSON.stringify({ ...localStorage }).includes(text) || JSON.stringify({ ...sessionStorage }).includes(text), text)
  )

const choosing: AskUserQuestionRequest = {
  questions: [
    {
      id: "db",
      question: "Which database?",
      options: [{ label: "Postgres" }, { label: "SQLite", recommended: true, description: "One file" }, { label: "DynamoDB" }]
    },
    {
      id: "features",
      question: "Which features?",
      multiSelect: true,
      options: [{ label: "auth" }, { label: "billing", recommended: true }, { label: "search", recommended: true }]
    },
    {
      id: "host",
      question: "Which host?",
      options: [{ label: "Fly (Recommended)", recommended: false }, { label: "Render (Recommended)" }]
    }
  ]
}

const codePreview = "```ts\nconst db = connect(\"postgres://…\")\n    .pool({ max: 10 })\n```\n\n**Pooled** connections, _one_ server.\n"
const longPreview = Array.from({ length: 120 }, (_, i) => `line ${i + 1}: ${"x".repeat(i === 3 ? 400 : 20)}`).join("\n")
const previewing: AskUserQuestionRequest = {
  questions: [{
    id: "db",
    question: "Which database?",
    options: [
      { label: "Postgres", recommended: true, preview: codePreview },
      { label: "SQLite", preview: longPreview },
      { label: "DynamoDB" }
    ]
  }]
}

// Live services: these tests wait on a real browser, not on the TestClock.
layer(Chromium.layer, { timeout: 60_000, excludeTestServices: true })("the page's second-edition fields in Chromium", (it) => {
  for (const [where, viewport] of windows) {
    it.effect(`on ${where}, marks the recommended option in words and in its description, focuses it, and chooses nothing`, () =>
      Effect.gen(function*() {
        const { ask, page, problems } = yield* openPage({ viewport })
        const fiber = yield* Effect.forkChild(ask(choosing))
        yield* promise(() => page.getByText("Question 1 of 3", { exact: true }).waitFor())

        // Single-select: the focus on the recommended option, its mark visible and heard; nothing pressed.
        expect(yield* focusedName(page)).toBe("SQLite")
        const sqlite = page.getByRole("button", { name: "SQLite", exact: true })
        expect(yield* promise(() => sqlite.getByText("Recommended", { exact: true }).isVisible())).toBe(true)
        expect(yield* accessibleOf(page, 'button[aria-label="SQLite"]')).toEqual({
          role: "button",
          name: "SQLite",
          description: "Recommended One file"
        })
        expect((yield* accessibleOf(page, 'button[aria-label="Postgres"]')).description ?? "").toBe("")
        expect(yield* promise(() => page.locator("[aria-pressed=true]").count())).toBe(0)
        expect(yield* fitsWidth(page)).toBe(true)
        yield* promise(() => page.keyboard.press("Enter"))

        // Multi-select: the focus on the first recommended option, every recommended one marked, none ticked.
        yield* promise(() => page.getByText("Question 2 of 3", { exact: true }).waitFor())
        expect(yield* focusedName(page)).toBe("billing")
        expect(yield* promise(() => page.locator("input[type=checkbox]:checked").count())).toBe(0)
        for (const name of ["billing", "search"]) {
          expect((yield* accessibleOf(page, `input[aria-label="${name}"]`)).description).toBe("Recommended")
        }
        expect(yield* promise(() => page.locator("label.option").filter({ hasText: "auth" }).locator(".badge").count())).toBe(0)
        // Enter with nothing ticked is a skip: the recommendation was only a suggestion.
        yield* promise(() => page.keyboard.press("Enter"))

        // A label that says "(Recommended)" is marked once, and heard once; `recommended: false` wins over the label.
        yield* promise(() => page.getByText("Question 3 of 3", { exact: true }).waitFor())
        expect(yield* focusedName(page)).toBe("Render (Recommended)")
        const render = page.getByRole("button", { name: "Render (Recommended)" })
        expect(yield* promise(() => render.innerText())).toMatch(/^Render\s*Recommended$/)
        expect((yield* accessibleOf(page, 'button[aria-label="Render (Recommended)"]')).description ?? "").toBe("")
        const fly = page.getByRole("button", { name: "Fly (Recommended)" })
        expect(yield* promise(() => fly.locator(".badge").count())).toBe(0)
        expect(yield* promise(() => fly.innerText())).toBe("Fly (Recommended)")
        yield* promise(() => page.keyboard.press("Enter"))

        expect(yield* Fiber.join(fiber)).toEqual({
          answers: [
            { id: "db", selected: ["SQLite"] },
            { id: "features", selected: [] },
            { id: "host", selected: ["Render (Recommended)"] }
          ]
        })
        expect(problems).toEqual([])
      }))

    it.effect(`on ${where}, shows the preview of the focused or pointed option as text in a panel ${
      where === "a phone" ? "below" : "beside"
    } the options`, () =>
      Effect.gen(function*() {
        const { ask, page, problems } = yield* openPage({ viewport })
        const fiber = yield* Effect.forkChild(ask(previewing))
        const body = page.locator(".preview-body")
        /** The option the panel shows (its title, a list of the options) and what it shows. */
        const previewed = promise(() =>
          page.evaluate(() => ({
            of: (document.querySelector("#preview-pick") as HTMLSelectElement).selectedOptions[0]?.textContent,
            text: document.querySelector(".preview-body")?.textContent
          }))
        )
        const showing = (label: string) =>
          promise(() => page.waitForFunction((label) => (document.querySelector("#preview-pick") as HTMLSelectElement | null)?.selectedOptions[0]?.textContent === label, label))
        yield* showing("Postgres")
        // The recommended option's preview first, white space and markdown as written.
        expect(yield* previewed).toEqual({ of: "Postgres", text: codePreview })
        expect(yield* promise(() => body.evaluate((element) => getComputedStyle(element).whiteSpace))).toBe("pre-wrap")
        expect(yield* accessibleOf(page, "section.preview")).toMatchObject({ role: "region", name: "Preview of Postgres" })

        const options = yield* box(page, ".options")
        const panel = yield* box(page, ".preview")
        if (where === "a phone") {
          expect(panel.y).toBeGreaterThanOrEqual(options.y + options.height - 1)
        } else {
          expect(panel.x).toBeGreaterThanOrEqual(options.x + options.width - 1)
          expect(panel.y).toBeLessThan(options.y + options.height)
        }

        // The arrow keys move the focus, and the preview follows; a long one scrolls inside the panel.
        yield* promise(() => page.keyboard.press("ArrowDown"))
        yield* showing("SQLite")
        expect(yield* previewed).toEqual({ of: "SQLite", text: longPreview })
        const scrolls = yield* promise(() =>
          body.evaluate((element) => ({
            overflow: getComputedStyle(element).overflowY,
            taller: element.scrollHeight > element.clientHeight + 100
          }))
        )
        expect(scrolls).toEqual({ overflow: "auto", taller: true })
        // A 400-character line wraps in the panel: the page never scrolls sideways.
        expect(yield* fitsWidth(page)).toBe(true)

        // The pointer over an option shows its preview, or says it has none.
        yield* promise(() => page.getByRole("button", { name: "DynamoDB" }).hover())
        yield* showing("DynamoDB")
        expect(yield* previewed).toEqual({ of: "DynamoDB", text: "No preview for this option." })
        // Choosing in the title's list (a touch screen's way, with no hover) shows a preview and answers nothing.
        yield* promise(() => page.getByRole("combobox", { name: "Preview of" }).selectOption({ label: "Postgres" }))
        expect(yield* previewed).toEqual({ of: "Postgres", text: codePreview })
        expect(fiber.pollUnsafe()).toBeUndefined()
        // Neither is pointing: Enter on the focused option takes it.
        yield* promise(() => page.getByRole("button", { name: "SQLite", exact: true }).press("Enter"))
        expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "db", selected: ["SQLite"] }] })
        expect(problems).toEqual([])
      }))
  }

  it.effect("a preview is shown as inert text: markup appears literally and runs nothing, controls show as escapes", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* openPage()
      const hostile = `<img src=x onerror="window.__pwned='img'">\r\n<script>window.__pwned='script'</script>\n` +
        `<svg onload="window.__pwned='svg'"></svg> [link](javascript:window.__pwned='md') \u202Eevil\u202C \x1b[31mred`
      const fiber = yield* Effect.forkChild(ask({
        questions: [{ id: "q", question: "Apply?", options: [{ label: "yes", preview: hostile }, { label: "no" }] }]
      }))
      yield* promise(() => page.locator(".preview-body").getByText("onerror", { exact: false }).waitFor())
      const seen = yield* promise(() =>
        page.evaluate(() => ({
          text: document.querySelector(".preview-body")?.textContent,
          injected: document.querySelectorAll(".preview img, .preview script, .preview svg, .preview a").length,
          escapes: Array.from(document.querySelectorAll(".preview-body .escape"), (e) => e.textContent),
          pwned: (window as { __pwned?: unknown }).__pwned
        }))
      )
      expect(seen).toEqual({
        // CR LF is a line break; every other control shows as the terminal shows it.
        text: sanitize(hostile.replace("\r\n", "\n")),
        injected: 0,
        escapes: ["\\u202e", "\\u202c", "\\x1b"],
        pwned: undefined
      })
      yield* promise(() => page.getByRole("button", { name: "yes", exact: true }).click())
      expect(yield* Fiber.join(fiber)).toEqual({ answers: [{ id: "q", selected: ["yes"] }] })
      expect(yield* promise(() => page.evaluate(() => (window as { __pwned?: unknown }).__pwned))).toBeUndefined()
      expect(problems).toEqual([])
    }))

  for (const [where, viewport] of windows) {
    it.effect(`on ${where}, a secret question is a password field; the secret reaches the asker only`, () => {
      const secret = "hunter2-7f3a-secret"
      const logs: Array<string> = []
      const collector = Logger.make((options) => {
        logs.push(String(Logger.formatLogFmt.log(options)))
      })
      return Effect.gen(function*() {
        const { ask, page, problems, web } = yield* openPage({ viewport })
        const events = yield* promise(() => openEvents(web.port, web.token))
        const posted: Array<unknown> = []
        page.on("request", (request) => {
          if (request.url().endsWith("/answer")) posted.push(request.postDataJSON())
        })
        const fiber = yield* Effect.forkChild(
          ask({ questions: [{ id: "key", question: "Paste the deploy key", secret: true }] }).pipe(
            // What an app that logs its answers would write: the secret shows as <redacted>.
            Effect.tap((answer) => Effect.logInfo("answered", answer))
          )
        )
        const field = page.locator("input[type=password]")
        yield* promise(() => field.waitFor())
        expect(yield* promise(() => field.getAttribute("autocomplete"))).toBe("off")
        expect((yield* accessibleOf(page, "input[type=password]")).name).toBe("Paste the deploy key")
        expect(yield* promise(() => field.evaluate((element) => element === document.activeElement))).toBe(true)
        expect(yield* promise(() => page.getByText("what you type is hidden", { exact: false }).isVisible())).toBe(true)
        expect(yield* fitsWidth(page)).toBe(true)
        yield* promise(() => page.keyboard.type(secret))
        yield* promise(() => page.keyboard.press("Enter"))

        const answer = yield* Fiber.join(fiber)
        expect(answer.answers[0]!.selected).toEqual([])
        expect(Redacted.value(answer.answers[0]!.secret!)).toBe(secret)
        expect(posted).toEqual([{ answers: [{ id: "key", selected: [], secret }] }])
        yield* promise(() => page.getByText("No questions are waiting").waitFor())
        expect(yield* documentHolds(page, secret)).toBe(false)
        yield* promise(() => events.next((event) => event.event === "resolved"))
        events.close()
        expect(events.events.map((event) => event.event)).toEqual(["asked", "resolved"])
        expect(JSON.stringify(events.events)).not.toContain(secret)
        expect(logs.join("\n")).toContain("answered")
        expect(logs.join("\n")).not.toContain(secret)
        expect(problems).toEqual([])
      }).pipe(
        Effect.provideService(Logger.CurrentLoggers, new Set([collector])),
        Effect.provideService(References.MinimumLogLevel, "All")
      )
    })
  }

  it.effect("after Back, a secret question's field is empty and keeps the secret given unless a new one is typed", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* openPage()
      const fiber = yield* Effect.forkChild(ask({
        questions: [
          { id: "key", question: "Paste the deploy key", secret: true },
          { id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] }
        ]
      }))
      const field = page.locator("input[type=password]")
      yield* promise(() => field.waitFor())
      const next = page.getByRole("button", { name: "Next", exact: true })
      expect(yield* promise(() => next.isDisabled())).toBe(true)
      yield* promise(() => field.fill("first-secret"))
      yield* promise(() => next.click())
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      expect(yield* documentHolds(page, "first-secret")).toBe(false)
      yield* promise(() => page.getByRole("button", { name: "Back", exact: true }).click())
      yield* promise(() => field.waitFor())
      expect(yield* promise(() => field.inputValue())).toBe("")
      expect(yield* promise(() => page.getByText("leave this empty to keep it", { exact: false }).isVisible())).toBe(true)
      // Empty: the secret given stays.
      yield* promise(() => field.press("Enter"))
      yield* promise(() => page.getByText("Question 2 of 2", { exact: true }).waitFor())
      yield* promise(() => page.getByRole("button", { name: "Back", exact: true }).click())
      yield* promise(() => field.fill("second-secret"))
      yield* promise(() => field.press("Enter"))
      yield* promise(() => page.getByRole("button", { name: "yes", exact: true }).click())
      const answer = yield* Fiber.join(fiber)
      expect(Redacted.value(answer.answers[0]!.secret!)).toBe("second-secret")
      expect(answer.answers[1]).toEqual({ id: "go", selected: ["yes"] })
      expect(problems).toEqual([])
    }))

  it.effect("a secret leaves the field as it is sent; after a failed send, Submit sends it again without retyping", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* openPage()
      let release: () => void = () => undefined
      const held = new Promise<void>((resolve) => release = resolve)
      let failNext = true
      yield* promise(() =>
        page.route("**/answer", async (route) => {
          if (!failNext) return route.continue()
          failNext = false
          await held
          return route.fulfill({ status: 503, body: "" })
        })
      )
      const fiber = yield* Effect.forkChild(ask({ questions: [{ id: "key", question: "Paste the deploy key", secret: true }] }))
      const field = page.locator("input[type=password]")
      const submit = page.getByRole("button", { name: "Submit", exact: true })
      yield* promise(() => field.fill("in-flight-secret"))
      yield* promise(() => field.press("Enter"))
      yield* promise(() => page.getByText("Sending…", { exact: true }).waitFor())
      // On its way: the field is empty and the controls wait.
      expect(yield* documentHolds(page, "in-flight-secret")).toBe(false)
      expect(yield* promise(() => submit.isDisabled())).toBe(true)
      release()
      yield* promise(() => page.getByText("The server refused the answer (HTTP 503).").waitFor())
      expect(yield* promise(() => field.inputValue())).toBe("")
      expect(yield* promise(() => submit.isEnabled())).toBe(true)
      yield* promise(() => submit.click())
      expect(Redacted.value((yield* Fiber.join(fiber)).answers[0]!.secret!)).toBe("in-flight-secret")
      expect(problems).toEqual([])
    }))

  for (const [where, viewport] of windows) {
    it.effect(`on ${where}, with review on, every answer is reviewed before it is sent; a row goes back to its question`, () =>
      Effect.gen(function*() {
        const { ask, page, problems, web } = yield* openPage({ viewport, web: { review: true } })
        const fiber = yield* Effect.forkChild(ask({
          questions: [
            { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
            { id: "features", question: "Which features?", multiSelect: true, options: [{ label: "auth" }, { label: "search" }] },
            { id: "name", question: "Project name?" },
            { id: "key", question: "Paste the deploy key", secret: true }
          ]
        }))
        yield* promise(() => page.getByText("Question 1 of 4", { exact: true }).waitFor())
        yield* promise(() => page.keyboard.press("Enter"))
        yield* promise(() => page.getByText("Question 2 of 4", { exact: true }).waitFor())
        yield* promise(() => page.keyboard.press("Space"))
        yield* promise(() => page.keyboard.press("Enter"))
        // The third question is skipped; the last one's button leads to the review, not to sending.
        yield* promise(() => page.getByRole("button", { name: "Skip", exact: true }).click())
        yield* promise(() => page.locator("input[type=password]").fill("s3cret-value"))
        yield* promise(() => page.getByRole("button", { name: "Review", exact: true }).click())

        yield* promise(() => page.getByRole("heading", { name: "Review your answers" }).waitFor())
        // Nothing sent yet; "Submit" has the focus, so Enter sends.
        expect((yield* web.pending).length).toBe(1)
        expect(yield* focusedName(page)).toBe("Submit")
        const row = (question: string) => page.getByRole("button", { name: question, exact: true })
        expect(yield* promise(() => row("Which database?").innerText())).toContain("Postgres")
        expect(yield* promise(() => row("Which features?").innerText())).toContain("auth")
        expect(yield* promise(() => row("Project name?").innerText())).toContain("Skipped")
        expect(yield* promise(() => row("Paste the deploy key").innerText())).toContain("(secret received)")
        expect((yield* accessibleOf(page, 'button[aria-label="Which features?"]')).description).toBe("auth")
        expect(yield* documentHolds(page, "s3cret-value")).toBe(false)
        expect(yield* fitsWidth(page)).toBe(true)

        // A row goes back to its question, with its answer; answering it returns to the review.
        yield* promise(() => row("Which features?").click())
        yield* promise(() => page.getByRole("heading", { name: "Which features?" }).waitFor())
        expect(yield* promise(() => page.getByRole("checkbox", { name: "auth" }).isChecked())).toBe(true)
        yield* promise(() => page.getByRole("checkbox", { name: "search" }).check())
        yield* promise(() => page.getByRole("button", { name: "Review", exact: true }).click())
        yield* promise(() => page.getByRole("heading", { name: "Review your answers" }).waitFor())
        expect(yield* promise(() => row("Which features?").innerText())).toContain("auth, search")

        yield* promise(() => page.keyboard.press("Enter"))
        const answer = yield* Fiber.join(fiber)
        expect(answer.answers.map(({ secret: _, ...item }) => item)).toEqual([
          { id: "db", selected: ["Postgres"] },
          { id: "features", selected: ["auth", "search"] },
          { id: "name", selected: [] },
          { id: "key", selected: [] }
        ])
        expect(Redacted.value(answer.answers[3]!.secret!)).toBe("s3cret-value")
        expect(problems).toEqual([])
      }))
  }

  it.effect("with review on, Cancel on the review cancels, Enter held down from the last question sends nothing, and one question has no review", () =>
    Effect.gen(function*() {
      const { ask, page, problems } = yield* openPage({ web: { review: true } })
      const two: AskUserQuestionRequest = {
        questions: [
          { id: "a", question: "First?", options: [{ label: "yes" }, { label: "no" }] },
          { id: "b", question: "Second?", options: [{ label: "yes" }, { label: "no" }] }
        ]
      }
      const cancelled = yield* Effect.forkChild(ask(two))
      yield* promise(() => page.getByRole("heading", { name: "First?" }).waitFor())
      yield* promise(() => page.keyboard.press("Enter"))
      yield* promise(() => page.getByRole("heading", { name: "Second?" }).waitFor())
      yield* promise(() => page.keyboard.press("Enter"))
      yield* promise(() => page.getByRole("button", { name: "Cancel", exact: true }).click())
      expect(Exit.findErrorOption(yield* Fiber.await(cancelled))).toMatchObject({ value: { code: "ASK_CANCELLED" } })

      const held = yield* Effect.forkChild(ask(two))
      yield* promise(() => page.getByRole("heading", { name: "First?" }).waitFor())
      yield* promise(() => page.getByRole("button", { name: "yes", exact: true }).click())
      yield* promise(() => page.getByRole("heading", { name: "Second?" }).waitFor())
      yield* promise(() => page.getByRole("button", { name: "no", exact: true }).focus())
      // The key goes down on "no" and repeats once the review (and its focused "Submit") is up.
      yield* promise(() => page.keyboard.down("Enter"))
      yield* promise(() => page.getByRole("heading", { name: "Review your answers" }).waitFor())
      yield* promise(() => page.keyboard.down("Enter"))
      yield* promise(() => page.keyboard.up("Enter"))
      yield* Effect.sleep("300 millis")
      expect(held.pollUnsafe()).toBeUndefined()
      yield* promise(() => page.keyboard.press("Enter"))
      expect(yield* Fiber.join(held)).toEqual({ answers: [{ id: "a", selected: ["yes"] }, { id: "b", selected: ["no"] }] })

      // One question: sent at once, as without review.
      const one = yield* Effect.forkChild(ask({ questions: [two.questions[0]!] }))
      yield* promise(() => page.getByRole("heading", { name: "First?" }).waitFor())
      yield* promise(() => page.getByRole("button", { name: "no", exact: true }).click())
      expect(yield* Fiber.join(one)).toEqual({ answers: [{ id: "a", selected: ["no"] }] })
      expect(problems).toEqual([])
    }))

  it.effect("ask-user --web --review shows the review, and prints the answer once Submit is pressed", () =>
    Effect.gen(function*() {
      const browser = yield* Chromium
      const request: AskUserQuestionRequest = {
        questions: [
          { id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] },
          { id: "note", question: "Release note?" }
        ]
      }
      const { file } = tempFiles({ file: request })
      const run = yield* Effect.acquireRelease(
        Effect.sync(() => start(["--web", "--review", file!])),
        (run) => Effect.sync(() => run.child.kill("SIGKILL"))
      )
      yield* promise(() => run.stderrContains("\n"))
      const url = /^Answer at (\S+)$/m.exec(run.stderr())![1]!
      const page = yield* Effect.acquireRelease(promise(() => browser.newPage()), (page) => promise(() => page.close()))
      yield* promise(() => page.goto(url))
      yield* promise(() => page.getByRole("button", { name: "yes", exact: true }).click())
      yield* promise(() => page.getByRole("textbox", { name: "Release note?" }).fill("first cut"))
      yield* promise(() => page.getByRole("button", { name: "Review", exact: true }).click())
      yield* promise(() => page.getByRole("heading", { name: "Review your answers" }).waitFor())
      expect(run.stdout()).toBe("")
      yield* promise(() => page.getByRole("button", { name: "Submit", exact: true }).click())
      expect(yield* promise(() => run.exited)).toBe(0)
      expect(JSON.parse(run.stdout())).toEqual({
        answers: [{ id: "go", selected: ["yes"] }, { id: "note", selected: [], custom: "first cut" }]
      } satisfies AskUserQuestionAnswer)
    }), { timeout: 60_000 })
})

describe("where the page takes a secret", () => {
  const secretAsk: AskUserQuestionRequest = { questions: [{ id: "key", question: "Paste the deploy key", secret: true }] }

  plain.live("served on a wider address over plain HTTP, a secret question fails PROVIDER_FAILED and is never shown", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ host: "0.0.0.0" })))
      const web = Context.get(context, WebProvider)
      const events = yield* promise(() => openEvents(web.port, web.token))
      const error = yield* UserInteraction.ask(secretAsk).pipe(Effect.provideContext(context), Effect.flip)
      expect(error.code).toBe("PROVIDER_FAILED")
      expect(error.message).toContain("only on loopback or over TLS")
      expect(error.message).toContain("0.0.0.0")
      expect(yield* web.pending).toEqual([])
      // Other questions are asked there as before.
      const asked = yield* Effect.forkChild(
        UserInteraction.ask({ questions: [{ id: "go", question: "Go?" }] }).pipe(Effect.provideContext(context))
      )
      yield* promise(() => events.next((event) => event.event === "asked"))
      events.close()
      expect(events.events.filter((event) => event.event === "asked").map((event) => event.data.request.questions[0].id))
        .toEqual(["go"])
      yield* Fiber.interrupt(asked)
    }))

  plain.live("in a fan-out, the other surface takes the secret question the wide page refuses", () =>
    Effect.gen(function*() {
      const terminal = ScriptedProvider.layer(() => Effect.succeed({ answers: [{ id: "key", selected: [], secret: Redacted.make("t0k") }] }))
      const answer = yield* UserInteraction.ask(secretAsk).pipe(
        Effect.provide(UserInteraction.layerWith(FanoutProvider.layer(WebProvider.layer({ host: "0.0.0.0" }), terminal)))
      )
      expect(Redacted.value(answer.answers[0]!.secret!)).toBe("t0k")
    }))

  plain.live("on loopback by name (localhost) or address, a secret question is asked", () =>
    Effect.gen(function*() {
      for (const host of ["localhost", "127.0.0.1"]) {
        const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ host })))
        const web = Context.get(context, WebProvider)
        const asked = yield* Effect.forkChild(UserInteraction.ask(secretAsk).pipe(Effect.provideContext(context)))
        while ((yield* web.pending).length === 0) yield* Effect.sleep("20 millis")
        expect((yield* web.pending)[0]!.request.questions[0]!.secret).toBe(true)
        yield* Fiber.interrupt(asked)
      }
    }))
})
