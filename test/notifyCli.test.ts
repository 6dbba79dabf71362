/**
 * SPEC "Telling the human a question waits": `ask-user inbox --notify
 * TARGET` and `--remind D` on the command line, with a real webhook
 * receiver on loopback.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhook } from "standardwebhooks"
import { start } from "./cliHarness.js"
import { makeStore, run, untilStatus } from "./support/durableCli.js"
import { receiver, refusingUrl } from "./support/receiver.js"

const secret = `whsec_${Buffer.from("a test secret of 32 bytes, fine.").toString("base64")}`

describe("ask-user inbox --notify", () => {
  it("a target of no known form is a usage error naming the forms", async () => {
    const store = makeStore()
    for (const bad of ["bogus", "ntfy:https://ntfy.sh/", "ntfy:ftp://host/topic", "webhook:not a url", "bell"]) {
      const result = await run(["inbox", "--store", store.url, "--notify", bad])
      expect([bad, result.code, result.stdout]).toEqual([bad, 2, ""])
      expect(result.stderr).toContain(
        "is not valid: expected ntfy:URL (an ntfy topic URL), webhook:URL (an http or https URL) or desktop."
      )
    }
  }, 60_000)

  it("--remind without --notify, or not a duration, is a usage error", async () => {
    const store = makeStore()
    const alone = await run(["inbox", "--store", store.url, "--remind", "5m"])
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain("--remind only applies with --notify.")
    const bad = await run(["inbox", "--store", store.url, "--notify", "desktop", "--remind", "soon"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(`--remind "soon" is not valid`)
  }, 60_000)

  it("announces a pending ask to a signed webhook; a dead target is reported once on stderr; the root --notify still works", async () => {
    const store = makeStore()
    const hook = await receiver()
    const refused = await refusingUrl()
    try {
      const asker = start(["--durable", "--detach", "--store", store.url, "--ask-id", "c1", store.requestFile])
      asker.child.stdin!.end()
      expect(await asker.exited).toBe(0)
      const inbox = start(
        ["inbox", "--store", store.url, "--notify", `webhook:${hook.url}/in`, "--notify", `ntfy:${refused}/t`],
        { env: { ASK_USER_WEBHOOK_SECRET: secret } }
      )
      await hook.until(1)
      const body = new Webhook(secret).verify(hook.received[0]!.body, hook.received[0]!.headers as Record<string, string>)
      expect(body).toMatchObject({ type: "ask.pending", ask: { id: "c1", questions: [{ question: "Ship it?" }] } })
      await inbox.stderrContains("Could not notify ntfy:")
      expect(inbox.stderr().split("Could not notify")).toHaveLength(2)
      // The ask is still answerable at once on the terminal's input.
      inbox.child.stdin!.write("1\n")
      await untilStatus(store, "c1", (status) => status === "answered")
      inbox.child.kill("SIGTERM")
      await inbox.exited
    } finally {
      await hook.close()
    }
    // The root command's own --notify (the terminal's announcement) is unchanged.
    const root = await run(["--notify", "desktop", "--answers", store.file("a.json", { q: "Yes" }), store.requestFile])
    expect(root.code).toBe(0)
  }, 90_000)
})
