/**
 * `ask-user inbox --email` (SPEC "Chat and mail as answer surfaces"), the
 * built program against the private mail system of `test/support/mailServer.ts`:
 * a durable ask mailed to the human and settled by their reply, with the
 * passwords from the environment; a missing or stray mail flag is a usage
 * error (exit 2); a password, from a URL or the environment, never shows in
 * what the program prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Run, start } from "./cliHarness.js"
import { askPending, makeStore, run, untilStatus } from "./support/durableCli.js"
import { agentAddress, agentPassword, humanAddress, type MailServer, startMailServer } from "./support/mailServer.js"

let mail: MailServer
beforeAll(async () => {
  mail = await startMailServer()
}, 120_000)
afterAll(() => mail?.stop())

const mailFlags = () => ["--email", "--smtp", mail.smtpUrl, "--imap", mail.imapUrl, "--email-to", humanAddress, "--email-from", agentAddress]

const stop = async (inbox: Run) => {
  inbox.child.kill("SIGINT")
  return inbox.exited
}

describe("ask-user inbox --email", { timeout: 120_000 }, () => {
  it("mails a durable ask to --email-to and records the reply, answered by email:<to>", async () => {
    const store = makeStore()
    const asker = await askPending(store, "mail-1")
    const before = (await mail.humanMail()).length
    const inbox = start(["inbox", "--store", store.url, ...mailFlags()], {
      env: { ASK_USER_SMTP_PASSWORD: agentPassword, ASK_USER_IMAP_PASSWORD: agentPassword }
    })
    try {
      const ask = (await mail.untilHumanMail(before + 1))[before]!
      expect(ask.text).toContain("Ship it?")
      expect(ask.text).toContain("1) Yes")
      await mail.reply(ask, "No")
      const report = await untilStatus(store, "mail-1", (status) => status === "answered", asker)
      expect(report.receipt.by).toEqual({ id: `email:${humanAddress}` })
      expect(report.receipt.surface).toBe("email")
      expect(await asker.exited).toBe(0)
      expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["No"] }] })
    } finally {
      await stop(inbox)
    }
    expect(inbox.stderr()).not.toContain(agentPassword)
  })

  it("a missing mail flag, or a mail flag without --email, is a usage error naming it (exit 2)", async () => {
    const missing = await run(["inbox", "--email", "--smtp", mail.smtpUrl, "--email-to", humanAddress])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--email needs --imap URL, --email-from ADDR.")
    const stray = await run(["inbox", "--imap", mail.imapUrl])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toContain("--imap only applies with --email.")
  })

  it("never prints a password, from the URL or the environment, when it is refused", async () => {
    const store = makeStore()
    const inUrl = await run([
      "inbox", "--store", store.url, ...mailFlags().slice(0, 3),
      "--imap", mail.imapUrl.replace("@127", ":Url-Pa55-in-imap@127"),
      ...mailFlags().slice(5)
    ])
    expect(inUrl.code).not.toBe(0)
    expect(inUrl.stderr).toContain("PROVIDER_FAILED")
    expect(inUrl.stderr).toContain(":***@127.0.0.1")
    expect(inUrl.stderr).not.toContain("Url-Pa55-in-imap")
    const fromEnvironment = start(["inbox", "--store", store.url, ...mailFlags()], {
      env: { ASK_USER_IMAP_PASSWORD: "Env-Pa55-imap", ASK_USER_SMTP_PASSWORD: "Env-Pa55-smtp" }
    })
    fromEnvironment.child.stdin!.end()
    expect(await fromEnvironment.exited).not.toBe(0)
    expect(fromEnvironment.stderr()).toContain("PROVIDER_FAILED")
    expect(fromEnvironment.stderr()).not.toMatch(/Env-Pa55/)
  })
})
