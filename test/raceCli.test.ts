/**
 * Issue 35's durable race, as a user runs it: `ask-user inbox --slack
 * --email` serves a durable ask in a Slack channel (the stand-in of
 * test/support/slackStandIn.ts) and by mail (the real mail system of
 * test/support/mailServer.ts) at once. A Slack press and a mail reply at
 * nearly the same moment: exactly one is recorded (the receipt names it), the
 * other is told, and the other surface shows who answered. Which one wins is
 * the machine's to decide; each round asserts whichever did. A reply after
 * the ask settled is answered by mail and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Run, start } from "./cliHarness.js"
import { askPending, makeStore, run, type Store, untilStatus } from "./support/durableCli.js"
import { agentAddress, agentPassword, humanAddress, type MailServer, startMailServer } from "./support/mailServer.js"
import { ana, appToken, botToken, channelId, type SlackStandIn, startSlackStandIn } from "./support/slackStandIn.js"

let mail: MailServer
let slack: SlackStandIn
let store: Store
let inbox: Run

beforeAll(async () => {
  ;[mail, slack] = await Promise.all([startMailServer(), startSlackStandIn()])
  store = makeStore()
  inbox = start([
    "inbox", "--store", store.url,
    "--slack", "--slack-channel", channelId,
    "--email", "--smtp", mail.smtpUrl, "--imap", mail.imapUrl, "--email-to", humanAddress, "--email-from", agentAddress
  ], {
    env: {
      SLACK_BOT_TOKEN: botToken,
      SLACK_APP_TOKEN: appToken,
      SLACK_API_URL: slack.apiUrl,
      ASK_USER_SMTP_PASSWORD: agentPassword,
      ASK_USER_IMAP_PASSWORD: agentPassword
    }
  })
}, 120_000)

afterAll(async () => {
  inbox?.child.kill("SIGINT")
  await inbox?.exited
  await Promise.all([slack?.close(), mail?.stop()])
}, 60_000)

const slackAna = { id: "slack:U0ANA", name: "Ana" }
const mailHuman = { id: `email:${humanAddress}` }

/** A durable ask, pending, as it reached the channel and the human's mailbox. */
const asked = async (id: string) => {
  const before = (await mail.humanMail()).length
  const messages = slack.messages().length
  const asker = await askPending(store, id)
  await slack.until(() => slack.messages().length === messages + 1, "the ask in the channel", 60_000)
  const ts = slack.messages()[messages]!
  const ask = (await mail.untilHumanMail(before + 1))[before]!
  expect(ask.text).toContain("Ship it?")
  return { asker, ts, ask, before }
}

/** The human's mails after the first `from`, once one of them matches `what`. */
const untilMailMatching = async (from: number, what: RegExp) => {
  for (let count = from + 1;; count++) {
    const all = await mail.untilHumanMail(count)
    if (all.slice(from).some((m) => what.test(m.text ?? ""))) return all.slice(from)
    count = all.length
  }
}

/** The text of a Slack message as it stands now. */
const shown = (ts: string) => JSON.stringify(slack.current(ts))

describe("ask-user inbox --slack --email", { timeout: 300_000 }, () => {
  it("a Slack press and a mail reply at nearly the same time, round after round: one recorded, the other told who answered", async () => {
    for (let round = 0; round < 4; round++) {
      const id = `race-${round}`
      const { asker, ts, ask, before } = await asked(id)
      const ephemerals = slack.callsOf("chat.postEphemeral").length
      // A mail takes longer to arrive than a press: the press starts later each round, so some
      // rounds are likely won by each; the assertions hold whichever wins.
      await Promise.all([
        new Promise((resolve) => setTimeout(resolve, round * 400)).then(() => slack.press(ts, "Yes", ana)),
        mail.reply(ask, "No")
      ])
      const report = await untilStatus(store, id, (status) => status === "answered", asker)
      expect(await asker.exited).toBe(0)
      if (report.receipt.surface === "slack") {
        expect(report.receipt.by).toEqual(slackAna)
        expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
        // The mail human learns their reply was not used, and who answered where: in one mail when
        // their reply was read before the press went through, else told of the press and then that
        // the reply came too late.
        const told = (await untilMailMatching(before + 1, /Your reply was not used/)).map((m) => m.text).join("\n")
        expect(told).toMatch(
          /^Your reply was not used\. Answered by Ana in Slack\.\n$|^Answered by Ana in Slack\.\n\nYour reply was not used: this question is no longer waiting \(Answered by Ana in Slack\)\.\n$/
        )
        await slack.until(() => shown(ts).includes("Answered by Ana in Slack."), "the message naming Ana")
      } else {
        expect(report.receipt).toMatchObject({ surface: "email", by: mailHuman })
        expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["No"] }] })
        // The channel shows who answered by mail, and Ana is told her press was not recorded.
        await slack.until(() => shown(ts).includes(`Answered by email:${humanAddress} in email.`), "the message naming the mail answerer")
        // Her press went to Slack before the reply was recorded ("Not recorded: …"), or after ("Answered by … in email.").
        await slack.until(
          () =>
            slack.callsOf("chat.postEphemeral").slice(ephemerals).some((call) =>
              call.user === ana.id && /^Not recorded: |^Answered by email:human@example\.test in email\.$/.test(String(call.text))
            ),
          "Ana's notice"
        )
      }
      expect(shown(ts)).not.toContain('"type":"actions"')
    }
  })

  it("an answer from another process: both surfaces come down saying who answered", async () => {
    const { asker, ts, before } = await asked("answered-elsewhere")
    const answer = await run(["answer", "answered-elsewhere", store.file("no.json", { answers: [{ id: "q", selected: ["No"] }] }), "--store", store.url])
    expect(answer.code).toBe(0)
    expect(await asker.exited).toBe(0)
    const report = JSON.parse((await run(["status", "answered-elsewhere", "--store", store.url])).stdout)
    const who = report.receipt.by.name ?? report.receipt.by.id
    await slack.until(() => shown(ts).includes(`Answered by ${who} in another process.`), "the message naming who answered")
    const told = (await mail.untilHumanMail(before + 2))[before + 1]!
    expect(told.text).toBe(`Answered by ${who} in another process.\n`)
  })

  it("a mail reply after a Slack press settled the ask: a mail back says it is no longer waiting, and the record stays Ana's", async () => {
    const { asker, ts, ask, before } = await asked("pressed-first")
    await slack.press(ts, "Yes", ana)
    const report = await untilStatus(store, "pressed-first", (status) => status === "answered", asker)
    expect(report.receipt.by).toEqual(slackAna)
    const told = (await mail.untilHumanMail(before + 2))[before + 1]!
    expect(told.text).toBe("Answered by Ana in Slack.\n")
    await mail.reply(ask, "No")
    const back = (await mail.untilHumanMail(before + 3))[before + 2]!
    expect(back.text).toBe("Your reply was not used: this question is no longer waiting (Answered by Ana in Slack).\n")
    const status = JSON.parse((await run(["status", "pressed-first", "--store", store.url])).stdout)
    expect(status.answer).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
    expect(status.receipt).toMatchObject({ surface: "slack", by: slackAna })
    expect(await asker.exited).toBe(0)
  })
})
