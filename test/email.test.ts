/**
 * SPEC "Chat and mail as answer surfaces", the mail half, against a real mail
 * system (Dovecot for IMAP, LMTP and submission, Postfix relaying; see
 * `test/support/mailServer.ts`): `EmailProvider` sends the ask over SMTP
 * submission, the human reads it over IMAP and replies into the agent's
 * mailbox, and the provider reads the reply over IMAP IDLE. Every attack the
 * issue names is one test: a stranger's reply, a forged In-Reply-To, a reply
 * quoting the question, an HTML-only reply, `10` to three options, a 10 MB
 * reply, model text with chat and HTML markup, the same reply read twice
 * after a reconnect, a race with another answerer on the durable inbox,
 * passwords in errors and logs, and cleanup on interruption.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Redacted } from "effect"
import { type AskUserQuestionRequest, UserInteraction } from "effect-user-interaction"
import { DurableInbox } from "effect-user-interaction/durable"
import { EmailProvider, type EmailProviderOptions } from "effect-user-interaction/email"
import type { ParsedMail } from "mailparser"
import { readFileSync } from "node:fs"
import { storeWith, untilPending } from "./support/durableInProcess.js"
import { agentAddress, agentPassword, humanAddress, type MailServer, replyAddress, startMailServer } from "./support/mailServer.js"

let mail: MailServer
beforeAll(async () => {
  mail = await startMailServer()
}, 120_000)
afterAll(() => mail?.stop())

const options = (extra?: Partial<EmailProviderOptions>): EmailProviderOptions => ({
  smtp: mail.smtpUrl,
  imap: mail.imapUrl,
  from: agentAddress,
  to: humanAddress,
  smtpPassword: Redacted.make(agentPassword),
  imapPassword: Redacted.make(agentPassword),
  ...extra
})

const db: AskUserQuestionRequest = {
  questions: [{
    id: "db",
    question: "Which database?",
    options: [{ label: "Postgres" }, { label: "SQLite", description: "one file" }, { label: "None" }]
  }]
}

const human = { id: `email:${humanAddress}` }

/** The human's mail so far; the next ones are what a test waits for. */
const mailCount = () => Effect.promise(() => mail.humanMail()).pipe(Effect.map((all) => all.length))

/** Waits for the human's INBOX to hold `count` mails and returns the last. */
const mailNumber = (count: number) => Effect.promise(() => mail.untilHumanMail(count)).pipe(Effect.map((all) => all[count - 1]!))

/** The human replies to `ask` with `text`. */
const reply = (ask: ParsedMail, text: string | undefined, extra?: Record<string, unknown>) => Effect.promise(() => mail.reply(ask, text, extra))

/**
 * Asks `request` by mail under a fresh provider; `then` gets the ask's fiber and
 * the ask mail the human received.
 */
const asking = <A>(
  request: AskUserQuestionRequest,
  then: (fiber: Fiber.Fiber<unknown, unknown>, ask: ParsedMail, seen: number) => Effect.Effect<A, unknown, UserInteraction>,
  extra?: Partial<EmailProviderOptions>
) =>
  Effect.gen(function*() {
    const before = yield* mailCount()
    const fiber = yield* Effect.forkChild(UserInteraction.askWithReceipt(request))
    const ask = yield* mailNumber(before + 1)
    return yield* then(fiber, ask, before + 1)
  }).pipe(Effect.provide(UserInteraction.layerWith(EmailProvider.layer(options(extra)))), Effect.runPromise)

/** Asks `request`, which must fail with `code` having sent the human nothing. */
const refusedUnsent = (request: AskUserQuestionRequest, code: string) =>
  Effect.gen(function*() {
    const before = yield* mailCount()
    const failed = yield* Effect.flip(UserInteraction.ask(request))
    expect(failed.code).toBe(code)
    expect(yield* mailCount()).toBe(before)
  }).pipe(Effect.provide(UserInteraction.layerWith(EmailProvider.layer(options()))), Effect.runPromise)

const answered = (fiber: Fiber.Fiber<unknown, unknown>) =>
  Fiber.join(fiber) as Effect.Effect<{ answer: { answers: unknown }; receipt: { by?: unknown; surface?: string } }>

describe("EmailProvider", { timeout: 120_000 }, () => {
  it("sends the ask as a mail with numbered options, and a reply `2` answers it as email:<to>", () =>
    asking(db, (fiber, ask) =>
      Effect.gen(function*() {
        expect(ask.from?.value[0]?.address).toBe(agentAddress)
        expect(ask.text).toContain("Which database?")
        expect(ask.text).toContain("1) Postgres")
        expect(ask.text).toContain("2) SQLite - one file")
        expect(ask.text).toContain("How to reply:")
        expect(ask.html).toContain("<ol><li>Postgres</li>")
        expect(replyAddress(ask)).toMatch(/^agent\+[0-9a-f]{24}@example\.test$/)
        expect(ask.subject).toMatch(/\[ask [0-9a-f]{24}\]$/)
        yield* reply(ask, "2")
        const { answer, receipt } = yield* answered(fiber)
        expect(answer.answers).toEqual([{ id: "db", selected: ["SQLite"] }])
        expect(receipt.by).toEqual(human)
        expect(receipt.surface).toBe("email")
      })))

  it("reads `1,3` as two options of a multi-select, a label, `skip`, and other text as Other", () =>
    Effect.gen(function*() {
      const request: AskUserQuestionRequest = {
        questions: [
          { id: "langs", question: "Which languages?", multiSelect: true, options: [{ label: "TS" }, { label: "Go" }, { label: "Rust" }] },
          { id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
          { id: "ci", question: "Which CI?", options: [{ label: "GitHub" }, { label: "GitLab" }] },
          { id: "name", question: "Project name?", options: [{ label: "ask-user" }] }
        ]
      }
      yield* Effect.promise(() =>
        asking(request, (fiber, ask) =>
          Effect.gen(function*() {
            expect(ask.text).toContain("one line for each question, in order (4 lines)")
            yield* reply(ask, "1,3\nsqlite\nskip\nHummingbird\n\n-- \nSent from my phone")
            const { answer } = yield* answered(fiber)
            expect(answer.answers).toEqual([
              { id: "langs", selected: ["TS", "Rust"] },
              { id: "db", selected: ["SQLite"] },
              { id: "ci", selected: [] },
              { id: "name", selected: [], custom: "Hummingbird" }
            ])
          }))
      )
    }).pipe(Effect.runPromise))

  it("`cancel` cancels the ask, as the human", () =>
    asking(db, (fiber, ask) =>
      Effect.gen(function*() {
        yield* reply(ask, "cancel")
        const exit = yield* Fiber.await(fiber)
        expect(exit._tag).toBe("Failure")
        expect(JSON.stringify(exit)).toContain("ASK_CANCELLED")
      })))

  it("ignores a reply from another address (no mail back); the ask stays pending", () =>
    asking(db, (fiber, ask, seen) =>
      Effect.gen(function*() {
        yield* reply(ask, "1", { from: "mallory@example.test" })
        yield* reply(ask, "3")
        const { answer } = yield* answered(fiber)
        expect(answer.answers).toEqual([{ id: "db", selected: ["None"] }])
        expect(yield* mailCount()).toBe(seen)
      })))

  it("does not take a forged In-Reply-To without the token: a mail back says so, the ask stays pending", () =>
    asking(db, (fiber, ask, seen) =>
      Effect.gen(function*() {
        // A new mail (to the agent's plain address, a subject without the tag) naming the ask's Message-ID.
        yield* Effect.promise(() =>
          mail.deliver({
            from: humanAddress,
            to: agentAddress,
            envelopeTo: agentAddress,
            subject: "about that",
            inReplyTo: ask.messageId!,
            references: ask.messageId!,
            text: "1"
          })
        )
        const back = yield* mailNumber(seen + 1)
        expect(back.text).toContain("names no question waiting for an answer")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* reply(ask, "2")
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["SQLite"] }])
      })))

  it("reads only the first line that is not quoted of a reply quoting the whole question", () =>
    asking(db, (fiber, ask) =>
      Effect.gen(function*() {
        const quoted = ask.text!.split("\n").map((line) => `> ${line}`).join("\n")
        // Bottom-posted: the quote (with its "1) Postgres" lines) first, then the answer.
        yield* reply(ask, `On Sun, 6 Dec 2026, Agent <${agentAddress}> wrote:\n${quoted}\n\nSQLite\n\nthanks`)
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["SQLite"] }])
      })))

  it("reads an HTML-only reply", () =>
    asking(db, (fiber, ask) =>
      Effect.gen(function*() {
        yield* reply(ask, undefined, {
          // As a mail program quotes: the question's body inside the reply's own.
          html: `<html><body><div dir="ltr"><b>3</b></div><br><div class="gmail_quote">On Sun, Agent wrote:<br>` +
            `<blockquote>${String(ask.html).replace(/^[\s\S]*<body>|<\/body>[\s\S]*$/g, "")}</blockquote></div></body></html>`
        })
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["None"] }])
      })))

  it("answers `10` to a 3-option question with a mail back saying why; the ask stays pending", () =>
    asking(db, (fiber, ask, seen) =>
      Effect.gen(function*() {
        const sent = yield* reply(ask, "10")
        const back = yield* mailNumber(seen + 1)
        expect(back.text).toContain("10 is not one of the options: reply with a number from 1 to 3.")
        // Threaded under the human's own reply, so their mail program shows it there.
        expect(back.inReplyTo).toBe(sent)
        expect(back.headers.get("auto-submitted")).toBe("auto-replied")
        expect(replyAddress(back)).toBe(replyAddress(ask))
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* reply(back, "1")
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["Postgres"] }])
      })))

  it("refuses a 10 MB reply from its size, without reading it, with a mail back; the ask stays pending", async () => {
    const before = mail.agentImapBytesOut()
    await asking(db, (fiber, ask, seen) =>
      Effect.gen(function*() {
        yield* reply(ask, `2\n\n${"x".repeat(76)}\n`.repeat(10 * 1024 * 1024 / 78))
        const back = yield* mailNumber(seen + 1)
        expect(back.text).toMatch(/Your reply was not used: it is 1\d\.\d MB, and replies of at most 1\.0 MB are read\./)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* reply(ask, "1")
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["Postgres"] }])
      }))
    // Dovecot logs what each IMAP session sent when it ends: the 10 MB never went out.
    await expect.poll(() => mail.agentImapBytesOut() - before, { timeout: 20_000 }).toBeGreaterThan(0)
    expect(mail.agentImapBytesOut() - before).toBeLessThan(1_000_000)
  })

  it("shows model text with chat markup and HTML as text in both parts", () => {
    const hostile = "<!channel> <@U024BE7LH> <https://evil.example|click> *bold* <script>alert(1)</script> <b>x</b> & \u001b[2J\u202e"
    return asking(
      {
        agent: { id: "a", name: "<img src=x onerror=alert(1)>" },
        questions: [{ id: "q", header: "<i>h</i>", question: hostile, options: [{ label: "<a href=\"https://evil\">ok</a>", description: hostile }] }]
      },
      (fiber, ask) =>
        Effect.gen(function*() {
          const html = ask.html as string
          expect(html).not.toMatch(/<script|<img|<a href="https:\/\/evil|<b>x|<i>h/)
          expect(html).toContain("&lt;!channel&gt; &lt;@U024BE7LH&gt; &lt;https://evil.example|click&gt; *bold* &lt;script&gt;alert(1)&lt;/script&gt;")
          expect(html).toContain("&lt;a href=&quot;https://evil&quot;&gt;ok&lt;/a&gt;")
          expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; asks:")
          // In the text part the same characters, escapes and BiDi overrides shown as visible escapes.
          expect(ask.text).toContain("<!channel> <@U024BE7LH> <https://evil.example|click> *bold* <script>alert(1)</script>")
          expect(ask.text).toContain("\\x1b[2J\\u202e")
          expect(ask.text).not.toMatch(/[\u001b\u202e]/)
          expect(html).not.toMatch(/[\u001b\u202e]/)
          yield* reply(ask, "1")
          expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "q", selected: ["<a href=\"https://evil\">ok</a>"] }])
        })
    )
  })

  it("records a reply once even when it is read twice after a reconnect", () =>
    asking(db, (fiber, ask, seen) =>
      Effect.gen(function*() {
        const first = yield* reply(ask, "2")
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["SQLite"] }])
        // The connection drops, and the same reply (one Message-ID) arrives again, as a retried delivery does.
        mail.kickAgent()
        yield* reply(ask, "2", { messageId: first })
        // A second ask on the same provider, after the reconnect: the copy answers nothing and draws no mail back.
        const next = yield* Effect.forkChild(UserInteraction.askWithReceipt({ ...db, questions: [{ ...db.questions[0]!, id: "again" }] }))
        const second = yield* mailNumber(seen + 1)
        expect(second.subject).not.toBe(ask.subject)
        yield* reply(second, "3")
        expect((yield* answered(next)).answer.answers).toEqual([{ id: "again", selected: ["None"] }])
        expect(yield* mailCount()).toBe(seen + 1)
      })))

  it("a reply to the mail of an ask asked again by a restarted provider (same id) answers it", async () => {
    const request = { ...db, id: "asked-before-restart" }
    const before = await Effect.runPromise(mailCount())
    // The first provider mails the ask, then ends (the inbox restarts) before any reply.
    const first = await asking(request, (fiber, ask) => Effect.as(Fiber.interrupt(fiber), ask))
    await asking(request, (fiber, second, seen) =>
      Effect.gen(function*() {
        expect(seen).toBe(before + 2)
        expect(second.messageId).not.toBe(first.messageId)
        // The human answers the first mail.
        yield* reply(first, "3")
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["None"] }])
      }))
  })

  it("a secret question: a link to the inbox page, never the question's answer by mail; without a page PROVIDER_FAILED", async () => {
    const secret: AskUserQuestionRequest = { questions: [{ id: "token", question: "API token?", secret: true }] }
    await asking(secret, (fiber, ask, seen) =>
      Effect.gen(function*() {
        expect(ask.text).toContain("never sent by mail")
        expect(ask.text).toContain("https://inbox.example.test/")
        yield* reply(ask, "hunter2")
        const back = yield* mailNumber(seen + 1)
        expect(back.text).toContain("Your reply was not read: this request holds a secret, which is answered only in the inbox")
        expect(back.text).not.toContain("hunter2")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* Fiber.interrupt(fiber)
      }), { inboxUrl: "https://inbox.example.test/" })
    await refusedUnsent(secret, "PROVIDER_FAILED")
  })

  it("refuses an ask whose answerableBy does not allow email:<to>, sending nothing", async () => {
    await refusedUnsent({ ...db, answerableBy: ["email:*@elsewhere.test"] }, "NOT_AUTHORIZED")
  })

  it("answers a reply with fewer lines than questions with a mail back naming how many it needs", () =>
    asking({ questions: [db.questions[0]!, { id: "ci", question: "Which CI?", options: [{ label: "GitHub" }] }] }, (fiber, ask, seen) =>
      Effect.gen(function*() {
        yield* reply(ask, "2")
        const back = yield* mailNumber(seen + 1)
        expect(back.text).toContain("there are 2 questions, so the reply needs 2 lines, one for each, and it has 1.")
        yield* reply(back, "2\nGitHub")
        expect((yield* answered(fiber)).answer.answers).toEqual([{ id: "db", selected: ["SQLite"] }, { id: "ci", selected: ["GitHub"] }])
      })))

  it("refuses a server URL that is none, or an address that is none, as INVALID_REQUEST", async () => {
    const fails = (extra: Partial<EmailProviderOptions>) =>
      Layer.build(EmailProvider.layer(options(extra))).pipe(Effect.scoped, Effect.flip, Effect.runPromise)
    expect((await fails({ smtp: "http://127.0.0.1:25" })).message).toBe("The smtp URL must start with smtp:// or smtps://, not http://")
    expect((await fails({ imap: "not a url" })).code).toBe("INVALID_REQUEST")
    expect((await fails({ to: "ana" })).message).toBe("The from and to addresses must each be an address, name@domain.")
  })

  it("never shows a password in an error or a log", async () => {
    const logged: Array<string> = []
    const logger = Logger.layer([Logger.make(({ message }) => void logged.push(String(message)))])
    // The password in the IMAP URL is wrong: the layer fails, naming the server but not the password.
    const badImap = await Layer.build(EmailProvider.layer(options({ imap: mail.imapUrl.replace("@127", ":Wr0ng-Imap-Pw@127") }))).pipe(
      Effect.scoped,
      Effect.flip,
      Effect.provide(logger),
      Effect.runPromise
    )
    expect(badImap.code).toBe("PROVIDER_FAILED")
    expect(badImap.message).toContain(":***@127.0.0.1")
    // The SMTP password is wrong: the ask fails when it is sent.
    const badSmtp = await UserInteraction.ask(db).pipe(
      Effect.flip,
      Effect.provide(UserInteraction.layerWith(EmailProvider.layer(options({ smtpPassword: Redacted.make("Wr0ng-Smtp-Pw") })))),
      Effect.provide(logger),
      Effect.runPromise
    )
    expect(badSmtp.code).toBe("PROVIDER_FAILED")
    const everything = [badImap.message, badSmtp.message, JSON.stringify(badImap), JSON.stringify(badSmtp), String(badSmtp.cause), ...logged].join("\n")
    for (const secret of ["Wr0ng-Imap-Pw", "Wr0ng-Smtp-Pw", agentPassword, Buffer.from(`\0${agentAddress}\0Wr0ng-Smtp-Pw`).toString("base64")]) {
      expect(everything).not.toContain(secret)
    }
  })

  it("closes the IMAP connection and every socket when its scope closes, mid-ask", async () => {
    // Established connections to the IMAP port, from the kernel's table (the human's reads log out at once).
    const port = mail.imapPort.toString(16).toUpperCase().padStart(4, "0")
    const imapConnections = () =>
      readFileSync("/proc/net/tcp", "utf8").split("\n").filter((line) => {
        const [, local, remote, state] = line.trim().split(/\s+/)
        return state === "01" && (local?.endsWith(`:${port}`) || remote?.endsWith(`:${port}`))
      }).length / 2
    await asking(db, (fiber) =>
      Effect.gen(function*() {
        expect(imapConnections()).toBe(1)
        yield* Fiber.interrupt(fiber)
      }))
    await expect.poll(imapConnections, { timeout: 10_000 }).toBe(0)
  })
})

/** The durable inbox served by mail, an agent asking `db` as `id`, and the ask's mail; `before` counts the human's mail before it. */
const servedByMail = (id: string) =>
  Effect.gen(function*() {
    const inbox = yield* DurableInbox
    yield* inbox.serve(EmailProvider.layer(options()))
    const before = yield* mailCount()
    const asker = yield* Effect.forkChild(UserInteraction.askWithReceipt({ ...db, id }))
    yield* untilPending(id)
    return { inbox, asker, ask: yield* mailNumber(before + 1), before }
  })

const ana = { id: "os:ana@build-01", name: "Ana" }

describe("EmailProvider under DurableInbox.serve", { timeout: 120_000 }, () => {
  it("a mail reply and DurableInbox.answer at nearly the same time: one recorded, the other told", () =>
    Effect.gen(function*() {
      const { inbox, asker, ask, before } = yield* servedByMail("race")
      const [, byInbox] = yield* Effect.all([
        reply(ask, "1"),
        Effect.result(inbox.answer("race", { answers: [{ id: "db", selected: ["None"] }] }, { by: ana }))
      ], { concurrency: 2 })
      const { answer, receipt } = yield* answered(asker)
      const status = yield* inbox.status("race")
      expect(status.status).toBe("answered")
      if (byInbox._tag === "Success") {
        // The inbox won: the mail reply was not recorded, and the human is told by mail.
        expect(answer.answers).toEqual([{ id: "db", selected: ["None"] }])
        expect(receipt.by).toEqual(ana)
        const told = yield* Effect.promise(() => mail.untilHumanMail(before + 2))
        expect(told.slice(before + 1).map((m) => m.text).join("\n")).toMatch(/Answered (by Ana )?in another process|no longer waiting/)
      } else {
        // The mail won: the inbox's answer was refused as no longer pending.
        expect(byInbox.failure._tag).toBe("AskNotPending")
        expect(answer.answers).toEqual([{ id: "db", selected: ["Postgres"] }])
        expect(receipt.by).toEqual(human)
      }
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))

  it("an ask answered in the inbox: the human is told by mail, and their later reply is not recorded but answered why", () =>
    Effect.gen(function*() {
      const { inbox, asker, ask, before } = yield* servedByMail("answered-first")
      yield* inbox.answer("answered-first", { answers: [{ id: "db", selected: ["None"] }] }, { by: ana })
      expect((yield* answered(asker)).receipt.by).toEqual(ana)
      const told = yield* mailNumber(before + 2)
      expect(told.text).toBe("Answered by Ana in another process.\n")
      expect(told.inReplyTo).toBe(ask.messageId)
      yield* reply(ask, "1")
      const back = yield* mailNumber(before + 3)
      expect(back.text).toBe("Your reply was not used: this question is no longer waiting (Answered by Ana in another process).\n")
      expect(back.subject).toBe(`Re: ${ask.subject}`)
      const status = yield* inbox.status("answered-first")
      expect(status.status).toBe("answered")
      expect(JSON.stringify(status)).toContain("None")
      expect(JSON.stringify(status)).not.toContain("Postgres")
    }).pipe(Effect.scoped, Effect.provide(storeWith()), Effect.runPromise))
})
