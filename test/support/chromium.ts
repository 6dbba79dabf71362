/**
 * Headless Chromium (playwright-core, /usr/bin/chromium) for the web page's
 * tests: the browser as a scoped service, pages on a seam with a web
 * provider, and what a screen reader would hear of an element (Chromium's own
 * accessibility tree, over the DevTools protocol).
 */
import { Context, Effect, Layer } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { type AskUserQuestionRequest, UserInteraction } from "effect-user-interaction"
import { WebProvider, type WebProviderOptions } from "effect-user-interaction/web"

/** Debian's Chromium, headless, with `args` besides the usual ones; closed with the scope. */
export const launchChromium = (args: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launch({
        executablePath: "/usr/bin/chromium",
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          ...args
        ]
      })
    ),
    (browser) => Effect.promise(() => browser.close())
  )

export class Chromium extends Context.Service<Chromium, Browser>()("test/Chromium") {
  static readonly layer = Layer.effect(Chromium, launchChromium())

  /**
   * A browser that trusts one more certificate, by the SHA-256 of its public
   * key (base64), as Chromium's own `--ignore-certificate-errors-spki-list`
   * allows: every other certificate is checked as usual.
   */
  static readonly trusting = (spkiHash: string) =>
    Layer.effect(Chromium, launchChromium([`--ignore-certificate-errors-spki-list=${spkiHash}`]))
}

export const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** How the pages are opened: the web provider's options, and the window's size (Playwright's 1280×720 by default). */
export interface OpenOptions {
  readonly web?: WebProviderOptions
  readonly viewport?: { readonly width: number; readonly height: number }
}

/**
 * A seam with a web provider, and `n` tabs of one browser (one context, so
 * they share what tabs of one browser share), all closed with the test's
 * scope. `prepare` runs on each tab before it loads the page. Dialogs and
 * page errors are collected in `problems`.
 */
export const openTabs = (
  n: number,
  prepare: (page: Page) => Promise<unknown> = async () => undefined,
  options: OpenOptions = {}
) =>
  Effect.gen(function*() {
    const browser = yield* Chromium
    const context = yield* Layer.build(UserInteraction.layerWith(WebProvider.layer(options.web)))
    const web = Context.get(context, WebProvider)
    const ask = (request: AskUserQuestionRequest) => UserInteraction.ask(request).pipe(Effect.provideContext(context))
    const browserContext = yield* Effect.acquireRelease(
      promise(() => browser.newContext(options.viewport === undefined ? {} : { viewport: options.viewport })),
      (browserContext) => promise(() => browserContext.close())
    )
    const problems: Array<string> = []
    const pages: Array<Page> = []
    for (let i = 0; i < n; i++) {
      const page = yield* promise(() => browserContext.newPage())
      page.on("dialog", (dialog) => {
        problems.push(`dialog: ${dialog.message()}`)
        void dialog.dismiss()
      })
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
      yield* promise(() => prepare(page))
      yield* promise(() => page.goto(web.url))
      pages.push(page)
    }
    return { ask, pages, problems, web }
  })

/** A seam with a web provider, and a browser page on it, both closed with the test's scope. */
export const openPage = (options: OpenOptions = {}) =>
  Effect.map(openTabs(1, undefined, options), ({ pages, ...rest }) => ({ page: pages[0]!, ...rest }))

/** `openPage()`: the default provider and window. */
export const open = openPage()

/** The accessible label (or text) of the focused element. */
export const focusedName = (page: Page) =>
  promise(() =>
    page.evaluate(() => {
      const active = document.activeElement
      return active?.getAttribute("aria-label") ?? active?.textContent ?? null
    })
  )

/** What Chromium's accessibility tree says of an element. */
export interface Accessible {
  readonly role: string | undefined
  readonly name: string | undefined
  readonly description: string | undefined
}

/** The role, accessible name and description Chromium computes for the first element matching `selector`. */
export const accessibleOf = (page: Page, selector: string) =>
  promise(async (): Promise<Accessible> => {
    const cdp = await page.context().newCDPSession(page)
    try {
      const { root } = await cdp.send("DOM.getDocument", { depth: 0 })
      const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector })
      if (nodeId === 0) throw new Error(`no element matches ${selector}`)
      const { nodes } = await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false })
      const node = nodes[0]
      const text = (value: { value?: unknown } | undefined) => value?.value === undefined ? undefined : String(value.value)
      return { role: text(node?.role), name: text(node?.name), description: text(node?.description) }
    } finally {
      await cdp.detach()
    }
  })
