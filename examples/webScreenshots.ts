/**
 * Regenerates the web page screenshots in docs/screenshots/: a batch on a
 * desktop-wide and on a phone-wide window (the recommended option marked and
 * focused, its preview beside or below the options), with a second request
 * waiting; and the review before submit, on a page served with
 * `review: true`. Needs Chromium at /usr/bin/chromium.
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
        {
          label: "Postgres",
          description: "Relational, mature, runs everywhere",
          recommended: true,
          preview: "# docker-compose.yml\nservices:\n  db:\n    image: postgres:17\n    environment:\n      POSTGRES_DB: atlas\n" +
            "    volumes:\n      - pgdata:/var/lib/postgresql/data\n\nOne more container; migrations with `npm run migrate`."
        },
        {
          label: "SQLite",
          description: "One file, no server to run",
          preview: "# .env\nDATABASE_URL=sqlite:./data/atlas.db\n\nNo container. One writer at a time."
        },
        { label: "DynamoDB", description: "Managed key-value store" }
      ]
    },
    {
      id: "features",
      question: "Which features go in the first release?",
      multiSelect: true,
      options: [{ label: "auth", recommended: true }, { label: "billing" }, { label: "search" }]
    },
    { id: "name", question: "What should the project be called?" },
    { id: "key", question: "Paste the deploy key", secret: true }
  ]
}
const second = { agent: { id: "reviewer", name: "Reviewer agent" }, questions: [{ id: "merge", question: "Merge the pull request now?" }] }

const launch = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    })
  ),
  (browser) => Effect.promise(() => browser.close())
)

/** A web provider (with `review` or not) with both requests pending on it. */
const serve = (review: boolean) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer({ review })))
    const ask = (request: typeof batch | typeof second) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
    const fibers = [yield* Effect.forkChild(ask(batch)), yield* Effect.forkChild(ask(second))]
    yield* Effect.addFinalizer(() => Fiber.interruptAll(fibers))
    return Context.get(context, WebProvider).url
  })

const shoot = Effect.gen(function*() {
  const browser = yield* launch
  const url = yield* serve(false)
  const sizes = [
    { file: "docs/screenshots/web-desktop.png", viewport: { width: 1100, height: 760 }, deviceScaleFactor: 1 },
    { file: "docs/screenshots/web-phone.png", viewport: { width: 360, height: 640 }, deviceScaleFactor: 2 }
  ]
  for (const { file, viewport, deviceScaleFactor } of sizes) {
    yield* Effect.promise(async () => {
      const page = await browser.newPage({ viewport, deviceScaleFactor, colorScheme: "light" })
      try {
        await page.goto(url)
        await page.getByText("Question 1 of 4", { exact: true }).waitFor()
        await page.getByRole("navigation", { name: "Pending requests" }).waitFor()
        await page.screenshot({ path: file, fullPage: true })
      } finally {
        await page.close()
      }
    })
    console.log(`wrote ${file}`)
  }

  const reviewing = yield* serve(true)
  yield* Effect.promise(async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 640 }, deviceScaleFactor: 2, colorScheme: "light" })
    try {
      await page.goto(reviewing)
      await page.getByRole("button", { name: /^Postgres/ }).click()
      await page.getByRole("checkbox", { name: "auth" }).check()
      await page.getByRole("checkbox", { name: "search" }).check()
      await page.getByRole("button", { name: "Next", exact: true }).click()
      await page.getByRole("textbox", { name: "What should the project be called?" }).fill("atlas")
      await page.keyboard.press("Enter")
      await page.locator("input[type=password]").fill("ssh-ed25519 AAAA…")
      await page.keyboard.press("Enter")
      await page.getByRole("heading", { name: "Review your answers" }).waitFor()
      await page.screenshot({ path: "docs/screenshots/web-review.png", fullPage: true })
    } finally {
      await page.close()
    }
  })
  console.log("wrote docs/screenshots/web-review.png")
})

await Effect.runPromise(Effect.scoped(shoot))
