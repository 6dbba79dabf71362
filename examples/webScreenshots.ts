/**
 * Regenerates the web page screenshots in docs/screenshots/: a batch on a
 * desktop-wide and on a phone-wide window, with a second request waiting.
 * Needs Chromium at /usr/bin/chromium.
 *
 * Run: npm run build && node examples/webScreenshots.ts
 */
import { Context, Effect, Fiber, Layer } from "effect"
import { chromium } from "playwright-core"
import { UserInteraction } from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"

const batch = {
  agent: { id: "planner", name: "Planner agent" },
  questions: [
    {
      id: "db",
      header: "Storage",
      question: "Which database should the service use?",
      options: [
        { label: "Postgres (Recommended)", description: "Relational, mature, runs everywhere" },
        { label: "SQLite", description: "One file, no server to run" },
        { label: "DynamoDB", description: "Managed key-value store" }
      ]
    },
    {
      id: "features",
      question: "Which features go in the first release?",
      multiSelect: true,
      options: [{ label: "auth" }, { label: "billing" }, { label: "search" }]
    },
    { id: "name", question: "What should the project be called?" }
  ]
}
const second = { agent: { id: "reviewer", name: "Reviewer agent" }, questions: [{ id: "merge", question: "Merge the pull request now?" }] }

const shoot = Effect.gen(function*() {
  const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer()))
  const web = Context.get(context, WebProvider)
  const ask = (request: typeof batch | typeof second) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
  const fibers = [yield* Effect.forkChild(ask(batch)), yield* Effect.forkChild(ask(second))]
  const browser = yield* Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launch({
        executablePath: "/usr/bin/chromium",
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync"]
      })
    ),
    (browser) => Effect.promise(() => browser.close())
  )
  const sizes = [
    { file: "docs/screenshots/web-desktop.png", viewport: { width: 1100, height: 760 }, deviceScaleFactor: 1 },
    { file: "docs/screenshots/web-phone.png", viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 }
  ]
  for (const { file, viewport, deviceScaleFactor } of sizes) {
    yield* Effect.promise(async () => {
      const page = await browser.newPage({ viewport, deviceScaleFactor, colorScheme: "light" })
      try {
        await page.goto(web.url)
        await page.getByText("Question 1 of 3", { exact: true }).waitFor()
        await page.getByRole("navigation", { name: "Pending requests" }).waitFor()
        await page.keyboard.press("ArrowDown")
        await page.screenshot({ path: file, fullPage: true })
      } finally {
        await page.close()
      }
    })
    console.log(`wrote ${file}`)
  }
  yield* Fiber.interruptAll(fibers)
})

await Effect.runPromise(Effect.scoped(shoot))
