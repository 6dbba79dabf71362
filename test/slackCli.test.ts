/**
 * `ask-user inbox --slack`: the built program serves the durable inbox in a
 * Slack channel (the stand-in of test/support/slackStandIn.ts, reached
 * through $SLACK_API_URL); a missing token or channel is a usage error
 * naming what to set.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { killStarted, start } from "./cliHarness.js"
import { ask, makeStore, run } from "./support/durableCli.js"
import { ana, appToken, botToken, channelId, startSlackStandIn } from "./support/slackStandIn.js"

afterEach(killStarted)

/** Runs `ask-user` with `env` on top of an environment without Slack settings. */
const runWithEnv = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const child = start(args, { env: { SLACK_BOT_TOKEN: "", SLACK_APP_TOKEN: "", SLACK_CHANNEL: "", ...env } })
  child.child.stdin!.end()
  const code = await child.exited
  return { code, stderr: child.stderr() }
}

describe("ask-user inbox --slack", () => {
  it("without $SLACK_BOT_TOKEN, $SLACK_APP_TOKEN or a channel: a usage error (exit 2) naming what to set", async () => {
    const store = makeStore()
    const noBot = await runWithEnv(["inbox", "--slack", "--slack-channel", channelId, "--store", store.url], {})
    expect(noBot.code).toBe(2)
    expect(noBot.stderr).toContain("--slack needs the bot token (xoxb-…) in $SLACK_BOT_TOKEN.")
    const noApp = await runWithEnv(["inbox", "--slack", "--slack-channel", channelId, "--store", store.url], { SLACK_BOT_TOKEN: botToken })
    expect(noApp.code).toBe(2)
    expect(noApp.stderr).toContain("$SLACK_APP_TOKEN")
    const noChannel = await runWithEnv(["inbox", "--slack", "--store", store.url], { SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken })
    expect(noChannel.code).toBe(2)
    expect(noChannel.stderr).toContain("--slack-channel ID or $SLACK_CHANNEL")
    const channelAlone = await run(["inbox", "--slack-channel", channelId, "--store", store.url])
    expect(channelAlone.code).toBe(2)
    expect(channelAlone.stderr).toContain("--slack-channel only applies with --slack.")
  }, 60_000)

  it("a token Slack refuses: PROVIDER_FAILED with Slack's reason, and no token in the message", async () => {
    const slack = await startSlackStandIn()
    try {
      const store = makeStore()
      const inbox = start(["inbox", "--slack", "--slack-channel", channelId, "--store", store.url], {
        env: { SLACK_BOT_TOKEN: "xoxb-revoked-secret", SLACK_APP_TOKEN: appToken, SLACK_API_URL: slack.apiUrl }
      })
      inbox.child.stdin!.end()
      const code = await inbox.exited
      expect(code).not.toBe(0)
      expect(inbox.stderr()).toContain("PROVIDER_FAILED: Slack's auth.test failed: invalid_auth.")
      expect(inbox.stderr()).not.toContain("revoked-secret")
    } finally {
      await slack.close()
    }
  }, 60_000)

  it("serves a durable ask in the channel: a press answers the waiting asker, recorded as the Slack user's", async () => {
    const slack = await startSlackStandIn()
    try {
      const store = makeStore()
      const asker = ask(store, "ship-1")
      const inbox = start(["inbox", "--slack", "--slack-channel", channelId, "--store", store.url], {
        env: { SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken, SLACK_API_URL: slack.apiUrl }
      })
      await slack.until(() => slack.messages().length === 1, "the ask in the channel", 30_000)
      const ts = slack.messages()[0]!
      await slack.press(ts, "Yes", ana)
      expect(await asker.exited).toBe(0)
      expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
      const status = await run(["status", "ship-1", "--store", store.url])
      expect(JSON.parse(status.stdout).receipt.by).toEqual({ id: "slack:U0ANA", name: "Ana" })
      await slack.until(() => slack.callsOf("chat.update").length === 1, "the message's update")
      // Another ask, pending when the inbox stops: its message says so and loses its buttons.
      const waiting = ask(store, "ship-3")
      await slack.until(() => slack.messages().length === 2, "the second ask in the channel", 30_000)
      inbox.child.kill("SIGINT")
      expect(await inbox.exited).toBe(130)
      const second = slack.current(slack.messages()[1]!)
      expect(second.some((block) => block.type === "actions")).toBe(false)
      expect(JSON.stringify(second)).toContain('"text":"No longer asked here."')
      // The socket is closed on the way out; the ask stays pending.
      await slack.until(() => slack.openSockets() === 0, "the socket to close")
      expect(JSON.parse((await run(["status", "ship-3", "--store", store.url])).stdout).status).toBe("pending")
      waiting.child.kill("SIGINT")
      await waiting.exited
    } finally {
      await slack.close()
    }
  }, 90_000)

  it("--slack --web: the page is served and the ask is in the channel; a Slack press settles it, recorded as Slack's", async () => {
    const slack = await startSlackStandIn()
    try {
      const store = makeStore()
      const asker = ask(store, "ship-2")
      const inbox = start(["inbox", "--slack", "--slack-channel", channelId, "--web", "--store", store.url], {
        env: { SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken, SLACK_API_URL: slack.apiUrl }
      })
      await inbox.stderrContains("Answer at ")
      await slack.until(() => slack.messages().length === 1, "the ask in the channel", 30_000)
      await slack.press(slack.messages()[0]!, "No", ana)
      expect(await asker.exited).toBe(0)
      expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["No"] }] })
      const status = await run(["status", "ship-2", "--store", store.url])
      expect(JSON.parse(status.stdout).receipt).toMatchObject({ surface: "slack", by: { id: "slack:U0ANA" } })
      inbox.child.kill("SIGINT")
      expect(await inbox.exited).toBe(130)
    } finally {
      await slack.close()
    }
  }, 90_000)
})
