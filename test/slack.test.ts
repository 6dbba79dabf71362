/**
 * SlackProvider against a stand-in of Slack's Web API and Socket Mode
 * endpoint (test/support/slackStandIn.ts), driven through the real
 * `@slack/web-api` and `@slack/socket-mode` clients: each way of answering,
 * the attacks SPEC and issue 35 name, reconnects, settling elsewhere, the
 * durable inbox served on Slack, and clean-up.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Option, Result, Scope } from "effect"
import {
  type AskUserQuestionRequest,
  FanoutProvider,
  ScriptedProvider,
  UserInteraction,
  type UserInteractionProvider
} from "effect-user-interaction"
import { DurableInbox, DurableStore } from "effect-user-interaction/durable"
import { SlackProvider, type SlackProviderOptions } from "effect-user-interaction/slack"
import { ana, appToken, bob, botToken, channelId, type SlackStandIn, startSlackStandIn } from "./support/slackStandIn.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** A stand-in, closed when the test's scope ends (after the provider, which is built later). */
const standIn = Effect.acquireRelease(promise(() => startSlackStandIn()), (slack) => promise(() => slack.close()))

const options = (slack: SlackStandIn, more: Partial<SlackProviderOptions> = {}): SlackProviderOptions => ({
  botToken,
  appToken,
  channel: channelId,
  apiUrl: slack.apiUrl,
  ...more
})

/** A seam with `layer` registered in the test's scope: `ask` with its receipt. */
const seam = <E>(layer: Layer.Layer<UserInteractionProvider, E>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(UserInteraction.layerWith(layer))
    return (request: AskUserQuestionRequest) => UserInteraction.askWithReceipt(request).pipe(Effect.provideContext(context))
  })

const deploy: AskUserQuestionRequest = {
  agent: { id: "a", name: "Builder" },
  questions: [{
    id: "deploy",
    question: "Deploy now?",
    options: [{ label: "Yes", recommended: true }, { label: "No", description: "Wait for the next window" }]
  }]
}

/** The text of every block that shows text, flattened. */
const texts = (blocks: ReadonlyArray<Record<string, any>>): Array<string> =>
  blocks.flatMap((block) => [
    ...(block.text?.text === undefined ? [] : [block.text.text as string]),
    ...((block.elements ?? []) as Array<Record<string, any>>).flatMap((element) =>
      element.text?.text !== undefined ? [element.text.text as string] : typeof element.text === "string" ? [element.text] : []
    )
  ])

/** The error code an ask's exit failed with. */
const codeOf = (exit: Exit.Exit<unknown, { readonly code: string }>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause))?.code : undefined

const hasControls = (blocks: ReadonlyArray<Record<string, any>>) => blocks.some((block) => block.type === "actions")

/** The ts the stand-in gave the `n`th posted message. */
const tsOf = (slack: SlackStandIn, n = 1) =>
  promise(async () => {
    await slack.until(() => slack.messages().length >= n, `message ${n}`)
    return slack.messages()[n - 1]!
  })

describe("SlackProvider", () => {
  it.live("a button press answers as slack:<user id> with the display name; the message then says so, without controls", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      const blocks = slack.posted(ts)
      // The recommended option is marked; the other option's description is shown.
      const actions = blocks.find((block) => block.type === "actions")!
      expect(actions.elements.map((e: any) => [e.text.text, e.style])).toEqual([["Yes", "primary"], ["No", undefined], ["Other…", undefined]])
      expect(texts(blocks)).toContain("• Yes (recommended)\n• No — Wait for the next window")

      const ack = yield* promise(() => slack.press(ts, "No", ana))
      expect(ack).toEqual({})
      const { answer, receipt } = yield* Fiber.join(fiber)
      expect(answer).toEqual({ answers: [{ id: "deploy", selected: ["No"] }] })
      expect(receipt.by).toEqual({ id: "slack:U0ANA", name: "Ana" })
      expect(receipt.surface).toBe("slack")
      yield* promise(() => slack.until(() => slack.callsOf("chat.update").length === 1, "the update"))
      const updated = slack.current(ts)
      expect(hasControls(updated)).toBe(false)
      expect(texts(updated)).toContain("Answered by Ana in Slack.")
      expect(texts(updated)).toContain("No")
    }))

  it.live("a multi-select is checkboxes and Submit: the checked options are the answer", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const request: AskUserQuestionRequest = {
        questions: [{ id: "envs", question: "Where?", multiSelect: true, options: [{ label: "staging" }, { label: "prod" }, { label: "eu" }] }]
      }
      const fiber = yield* Effect.forkChild(ask(request))
      const ts = yield* tsOf(slack)
      const checks = slack.posted(ts).find((block) => block.elements?.[0]?.type === "checkboxes")
      expect(checks?.elements[0].options.map((o: any) => o.text.text)).toEqual(["staging", "prod", "eu"])
      // Nothing checked: told so, nothing recorded.
      yield* promise(() => slack.press(ts, "Submit", ana, { checked: [] }))
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 1, "the notice"))
      expect(slack.callsOf("chat.postEphemeral")[0]!.blocks[0].text.text).toBe("Choose at least one option first, or use Other….")
      yield* promise(() => slack.press(ts, "Submit", ana, { checked: ["eu", "staging"] }))
      const { answer } = yield* Fiber.join(fiber)
      expect(answer).toEqual({ answers: [{ id: "envs", selected: ["staging", "eu"] }] })
    }))

  it.live("Other… opens a modal with a text field; its text is the answer (an empty one is refused in the modal)", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      yield* promise(() => slack.press(ts, "Other…", ana))
      yield* promise(() => slack.until(() => slack.callsOf("views.open").length === 1, "the modal"))
      const view = slack.callsOf("views.open")[0]!.view
      expect(view.blocks.map((b: any) => [b.type, b.element.type, b.label.text])).toEqual([["input", "plain_text_input", "Deploy now?"]])
      const refused = yield* promise(() => slack.submitView(ana, { "q0-other": { text: "  " } }))
      expect(refused).toEqual({ response_action: "errors", errors: { "q0-other": "Write your answer, or close this and choose an option." } })
      const accepted = yield* promise(() => slack.submitView(ana, { "q0-other": { text: "After lunch" } }))
      expect(accepted).toEqual({})
      const { answer, receipt } = yield* Fiber.join(fiber)
      expect(answer).toEqual({ answers: [{ id: "deploy", selected: [], custom: "After lunch" }] })
      expect(receipt.by?.id).toBe("slack:U0ANA")
    }))

  it.live("several questions: one Answer button opening a modal with every question; a choice and a text together are refused", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const request: AskUserQuestionRequest = {
        questions: [
          { id: "db", question: "Which database?", options: [{ label: "SQLite", recommended: true }, { label: "Postgres" }] },
          { id: "extras", question: "Extras?", multiSelect: true, options: [{ label: "Backups" }, { label: "Metrics" }] },
          { id: "name", question: "Service name?" },
          // More than ten options: a menu.
          { id: "region", question: "Region?", options: Array.from({ length: 12 }, (_, i) => ({ label: `r${i}`, description: "d" })) }
        ]
      }
      const fiber = yield* Effect.forkChild(ask(request))
      const ts = yield* tsOf(slack)
      const buttons = slack.posted(ts).filter((block) => block.type === "actions").flatMap((block) => block.elements.map((e: any) => e.text.text))
      expect(buttons).toEqual(["Answer"])
      yield* promise(() => slack.press(ts, "Answer", bob))
      yield* promise(() => slack.until(() => slack.callsOf("views.open").length === 1, "the modal"))
      const view = slack.callsOf("views.open")[0]!.view
      expect(view.blocks.map((b: any) => [b.block_id, b.element.type])).toEqual([
        ["q0", "radio_buttons"], ["q0-other", "plain_text_input"],
        ["q1", "checkboxes"], ["q1-other", "plain_text_input"],
        ["q2-other", "plain_text_input"],
        ["q3", "static_select"], ["q3-other", "plain_text_input"]
      ])
      expect(view.blocks[5].element.options[11]).toEqual({ text: { type: "plain_text", text: "r11", emoji: false }, value: "11" })
      // The recommended option comes chosen.
      expect(view.blocks[0].element.initial_option.text.text).toBe("SQLite")
      const refused = yield* promise(() =>
        slack.submitView(bob, { q0: { selected: ["Postgres"] }, "q0-other": { text: "MySQL" } })
      )
      expect(refused).toEqual({ response_action: "errors", errors: { "q0-other": "Choose an option or write your own answer, not both." } })
      yield* promise(() =>
        slack.submitView(bob, {
          q0: { selected: ["Postgres"] },
          q1: { selected: ["Metrics", "Backups"] },
          "q2-other": { text: "billing" },
          q3: { selected: ["r11"] }
        })
      )
      const { answer, receipt } = yield* Fiber.join(fiber)
      expect(answer).toEqual({
        answers: [
          { id: "db", selected: ["Postgres"] },
          { id: "extras", selected: ["Backups", "Metrics"] },
          { id: "name", selected: [], custom: "billing" },
          { id: "region", selected: ["r11"] }
        ]
      })
      expect(receipt.by).toEqual({ id: "slack:U0BOB", name: "Bob" })
    }))

  it.live("model text with <!channel>, mentions, links, *bold* and HTML is sent as escaped plain text (exact blocks)", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const hostile = "<!channel> <@U123> <https://evil|click> *bold* _it_ ~no~ `x` <b>html</b> & co"
      const request: AskUserQuestionRequest = {
        agent: { id: "a", name: "<!here>" },
        questions: [{
          id: "q",
          header: "<@U999>",
          question: hostile,
          options: [
            { label: "<!everyone>", description: "<https://evil|x>", preview: "```\n<!channel> *x*\n```" },
            { label: "*b*" }
          ]
        }]
      }
      yield* Effect.forkChild(ask(request))
      const ts = yield* tsOf(slack)
      const escaped = "&lt;!channel&gt; &lt;@U123&gt; &lt;https://evil|click&gt; *bold* _it_ ~no~ `x` &lt;b&gt;html&lt;/b&gt; &amp; co"
      expect(slack.callsOf("chat.postMessage")[0]!.text).toBe("A question waits for an answer.")
      expect(slack.posted(ts)).toEqual([
        { type: "context", elements: [{ type: "plain_text", text: "&lt;!here&gt; asks:", emoji: false }] },
        { type: "section", text: { type: "plain_text", text: `[&lt;@U999&gt;] ${escaped}`, emoji: false } },
        {
          type: "context",
          elements: [{ type: "plain_text", text: "• &lt;!everyone&gt; — &lt;https://evil|x&gt;\n• *b*", emoji: false }]
        },
        { type: "context", elements: [{ type: "plain_text", text: "Preview of &lt;!everyone&gt;:", emoji: false }] },
        // The preview's own fences cannot close the code block: its backticks are full-width.
        { type: "section", text: { type: "mrkdwn", text: "```｀｀｀\n&lt;!channel&gt; *x*\n｀｀｀```", verbatim: true } },
        {
          type: "actions",
          block_id: expect.stringMatching(/^eui:[0-9a-f]{32}:controls$/),
          elements: [
            { type: "button", text: { type: "plain_text", text: "&lt;!everyone&gt;", emoji: false }, action_id: expect.stringMatching(/:option:0$/), value: "0" },
            { type: "button", text: { type: "plain_text", text: "*b*", emoji: false }, action_id: expect.stringMatching(/:option:1$/), value: "1" },
            { type: "button", text: { type: "plain_text", text: "Other…", emoji: false }, action_id: expect.stringMatching(/:other$/) }
          ]
        }
      ])
      // No text anywhere carries a raw control character of Slack's markup.
      expect(JSON.stringify(slack.posted(ts))).not.toMatch(/<[!@#h]/)
    }))

  it.live("texts over Block Kit's limits are cut (never inside an escape) and ending \"…\"; the answer is still the whole label", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const label = `${"x".repeat(72)}&&&& and more`
      const fiber = yield* Effect.forkChild(ask({
        questions: [{ id: "long", question: "<".repeat(4000), options: [{ label }, { label: "short" }] }]
      }))
      const ts = yield* tsOf(slack)
      const blocks = slack.posted(ts)
      const button = blocks.find((block) => block.type === "actions")!.elements[0].text.text as string
      // 72 x's, then "&amp;" would pass 74 characters: cut before it, not inside it.
      expect(button).toBe(`${"x".repeat(72)}…`)
      const question = blocks[1]!.text.text as string
      expect(question.length).toBeLessThanOrEqual(3000)
      expect(question).toMatch(/^(&lt;)+…$/)
      yield* promise(() => slack.press(ts, button, ana))
      const { answer } = yield* Fiber.join(fiber)
      expect(answer.answers[0]!.selected).toEqual([label])
    }))

  it.live("a press from a user outside answerableBy gets an ephemeral notice; nothing is recorded and the ask stays pending", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask({ ...deploy, answerableBy: ["slack:U0ANA"] }))
      const ts = yield* tsOf(slack)
      yield* promise(() => slack.press(ts, "Yes", bob))
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 1, "the notice"))
      const notice = slack.callsOf("chat.postEphemeral")[0]!
      expect(notice.user).toBe("U0BOB")
      expect(notice.channel).toBe(channelId)
      expect(notice.blocks[0].text.text).toBe("You may not answer this question: it asks someone else. Nothing was recorded.")
      // Bob cannot open the modal either.
      yield* promise(() => slack.press(ts, "Other…", bob))
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 2, "the second notice"))
      expect(slack.callsOf("views.open")).toEqual([])
      expect(fiber.pollUnsafe()).toBeUndefined()
      expect(slack.callsOf("chat.update")).toEqual([])
      yield* promise(() => slack.press(ts, "Yes", ana))
      const { answer, receipt } = yield* Fiber.join(fiber)
      expect(answer.answers[0]!.selected).toEqual(["Yes"])
      expect(receipt.by?.id).toBe("slack:U0ANA")
    }))

  it.live("an ask whose answerableBy names no Slack user fails NOT_AUTHORIZED and posts nothing", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const exit = yield* Effect.exit(ask({ ...deploy, answerableBy: ["os:ana@*"] }))
      expect(codeOf(exit)).toBe("NOT_AUTHORIZED")
      expect(slack.callsOf("chat.postMessage")).toEqual([])
    }))

  it.live("a press on an already-settled ask gets \"Answered by … in Slack.\" as a notice; nothing more is recorded", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      yield* promise(() => slack.press(ts, "Yes", ana))
      const { answer } = yield* Fiber.join(fiber)
      // Bob's client still shows the buttons.
      yield* promise(() => slack.press(ts, "No", bob))
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 1, "the notice"))
      expect(slack.callsOf("chat.postEphemeral")[0]!.blocks[0].text.text).toBe("Answered by Ana in Slack.")
      expect(slack.callsOf("chat.postEphemeral")[0]!.user).toBe("U0BOB")
      expect(answer.answers[0]!.selected).toEqual(["Yes"])
      expect(slack.callsOf("chat.update")).toHaveLength(1)
    }))

  it.live("a replayed envelope (same envelope_id) is acknowledged and ignored: one modal, one answer, no notice", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      yield* promise(() => slack.press(ts, "Other…", ana, { envelopeId: "env-other" }))
      expect(yield* promise(() => slack.replayLast())).toEqual({})
      yield* promise(() => slack.press(ts, "Yes", ana, { envelopeId: "env-yes" }))
      const { answer } = yield* Fiber.join(fiber)
      expect(yield* promise(() => slack.replayLast())).toEqual({})
      // Give a wrongly taken replay the time to show.
      yield* Effect.sleep("300 millis")
      expect(slack.callsOf("views.open")).toHaveLength(1)
      expect(slack.callsOf("chat.postEphemeral")).toEqual([])
      expect(slack.callsOf("chat.update")).toHaveLength(1)
      expect(answer.answers[0]!.selected).toEqual(["Yes"])
    }))

  it.live("envelopes that are not this surface's (another control, a forged or malformed payload) are acknowledged and change nothing", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      const ref = /^eui:([0-9a-f]{32}):/.exec(slack.posted(ts).find((block) => block.type === "actions")!.block_id)![1]!
      const user = { id: "U0ANA", username: "ana" }
      const acks = yield* promise(() =>
        Promise.all([
          slack.deliver({ type: "block_actions", user, actions: [{ action_id: "someone-elses-button", value: "0" }] }),
          // An option index the question does not have.
          slack.deliver({ type: "block_actions", user, actions: [{ action_id: `eui:${ref}:option:7`, value: "7" }] }),
          slack.deliver({ type: "block_actions", user: { name: "no id" }, actions: [{ action_id: `eui:${ref}:option:0` }] }),
          slack.deliver({ type: "view_submission", user, view: { callback_id: `eui:${ref}:modal` } }),
          slack.deliver({ type: "shortcut", user, callback_id: `eui:${ref}:answer` })
        ])
      )
      expect(acks).toEqual([{}, {}, {}, {}, {}])
      // The option that does not exist was told; the rest were ignored.
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 1, "the notice"))
      yield* Effect.sleep("300 millis")
      expect(slack.callsOf("chat.postEphemeral")).toHaveLength(1)
      expect(fiber.pollUnsafe()).toBeUndefined()
      expect(slack.callsOf("chat.update")).toEqual([])
      yield* promise(() => slack.press(ts, "Yes", ana))
      expect((yield* Fiber.join(fiber)).answer.answers[0]!.selected).toEqual(["Yes"])
    }))

  it.live("the socket dropped mid-ask: the SDK reconnects, the ask is not posted again, and a press after that answers", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      expect(slack.connections()).toBe(1)
      slack.dropSockets()
      yield* promise(() => slack.until(() => slack.connections() === 2 && slack.openSockets() === 1, "a reconnect", 40_000))
      // Slack asking for a fresh connection is taken the same way.
      slack.sendDisconnect()
      yield* promise(() => slack.until(() => slack.connections() === 3 && slack.openSockets() === 1, "a second reconnect", 40_000))
      yield* promise(() => slack.press(ts, "Yes", ana))
      const { answer } = yield* Fiber.join(fiber)
      expect(answer.answers[0]!.selected).toEqual(["Yes"])
      expect(slack.callsOf("chat.postMessage")).toHaveLength(1)
      expect(slack.callsOf("apps.connections.open")).toHaveLength(3)
    }), { timeout: 90_000 })

  it.live("settled elsewhere in a fan-out: the message says how and by whom, its controls go, and a late press is told", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const gate = yield* Deferred.make<void>()
      const other = ScriptedProvider.layer(
        () => Deferred.await(gate).pipe(Effect.as({ answers: [{ id: "deploy", selected: ["No"] }] })),
        { by: { id: "os:ana@build-01", name: "Ana Lima" } }
      )
      const ask = yield* seam(FanoutProvider.layer(SlackProvider.layer(options(slack)), other))
      const fiber = yield* Effect.forkChild(ask(deploy))
      const ts = yield* tsOf(slack)
      yield* Deferred.succeed(gate, undefined)
      const { receipt } = yield* Fiber.join(fiber)
      expect(receipt.surface).toBe("scripted")
      yield* promise(() => slack.until(() => slack.callsOf("chat.update").length === 1, "the update"))
      expect(hasControls(slack.current(ts))).toBe(false)
      expect(texts(slack.current(ts))).toContain("Answered by Ana Lima in a script.")
      yield* promise(() => slack.press(ts, "Yes", bob))
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 1, "the notice"))
      expect(slack.callsOf("chat.postEphemeral")[0]!.blocks[0].text.text).toBe("Answered by Ana Lima in a script.")
    }))

  it.live("a secret question is a link to the web inbox when there is one, else PROVIDER_FAILED with nothing posted", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const secret: AskUserQuestionRequest = { questions: [{ id: "key", question: "API key?", secret: true }] }
      const without = yield* seam(SlackProvider.layer(options(slack)))
      const exit = yield* Effect.exit(without(secret))
      expect(codeOf(exit)).toBe("PROVIDER_FAILED")
      expect(slack.callsOf("chat.postMessage")).toEqual([])

      const withInbox = yield* seam(SlackProvider.layer(options(slack, { inboxUrl: "https://inbox.example/" })))
      yield* Effect.forkChild(withInbox(secret))
      const ts = yield* tsOf(slack)
      const link = slack.posted(ts).find((block) => block.type === "actions")!.elements[0]
      expect([link.text.text, link.url]).toEqual(["Answer in the web inbox", "https://inbox.example/"])
    }))

  it.live("the durable inbox served on Slack: a press and an answer elsewhere at nearly the same time, one recorded, the other told", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const store = yield* Layer.build(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer("sqlite::memory:"))))
      const inbox = Context.get(store, DurableInbox)
      const claimedBy = (id: string) =>
        Effect.map(inbox.pending, (pending) => pending.find((ask) => ask.id === id)?.claim?.by.id)
      // The press first (the other answer starts once Ana's claim holds), the other answer first,
      // then both at once: whichever wins is recorded, the other is told.
      for (const [round, order] of [[1, "press first"], [2, "elsewhere first"], [3, "together"]] as const) {
        const id = yield* inbox.submit({ ...deploy, id: `ship-${round}` })
        if (round === 1) {
          yield* Effect.forkScoped(inbox.serve(SlackProvider.layer(options(slack, {
            claims: { claim: (askId, by) => inbox.claim(askId, by) }
          }))))
        }
        const ts = yield* tsOf(slack, round)
        const noticesBefore = slack.callsOf("chat.postEphemeral").length
        const press = promise(() => slack.press(ts, "Yes", ana))
        const elsewhere = Effect.result(inbox.answer(id, { answers: [{ id: "deploy", selected: ["No"] }] }, {
          by: { id: "os:bob@build-01", name: "Bob" },
          surface: "terminal"
        }))
        const [, told] = order === "press first"
          ? yield* Effect.all([
            press,
            Effect.gen(function*() {
              while ((yield* claimedBy(id)) !== "slack:U0ANA" && (yield* inbox.status(id)).status === "pending") {
                yield* Effect.sleep("5 millis")
              }
              return yield* elsewhere
            })
          ], { concurrency: 2 })
          : order === "elsewhere first"
          ? [undefined, yield* Effect.tap(elsewhere, () => press)] as const
          : yield* Effect.all([press, elsewhere], { concurrency: 2 })
        // Wait until the ask is settled, then read who won.
        let status = yield* inbox.status(id)
        while (status.status === "pending") {
          yield* Effect.sleep("20 millis")
          status = yield* inbox.status(id)
        }
        const notices = () => slack.callsOf("chat.postEphemeral").slice(noticesBefore).filter((notice) => notice.user === "U0ANA")
        if (order === "press first") expect(status.receipt?.by?.id).toBe("slack:U0ANA")
        if (order === "elsewhere first") expect(status.receipt?.by?.id).toBe("os:bob@build-01")
        if (status.receipt?.by?.id === "slack:U0ANA") {
          expect(status.answer?.answers[0]!.selected).toEqual(["Yes"])
          // Bob is told: Ana holds the claim, or her answer is already recorded.
          expect(Result.isFailure(told) && told.failure.code).toMatch(/^(ASK_CLAIMED|ASK_NOT_PENDING)$/)
          yield* promise(() => slack.until(() => texts(slack.current(ts)).includes("Answered by Ana in Slack."), "the update"))
          expect(notices()).toEqual([])
        } else {
          expect(status.receipt?.by?.id).toBe("os:bob@build-01")
          expect(status.answer?.answers[0]!.selected).toEqual(["No"])
          expect(Result.isSuccess(told)).toBe(true)
          // Ana's press met Bob's record (her claim refused) or came after the message changed: she is told.
          yield* promise(() => slack.until(() => notices().length === 1, "Ana's notice"))
          // The message names who answered, from the store's receipt.
          yield* promise(() => slack.until(() => texts(slack.current(ts)).includes("Answered by Bob in another process."), "the update"))
        }
      }
    }), { timeout: 60_000 })

  it.live("closing the layer closes the socket and marks the open ask's message; nothing stays open", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UserInteraction.layerWith(SlackProvider.layer(options(slack))), scope)
      const fiber = yield* Effect.forkChild(UserInteraction.ask(deploy).pipe(Effect.provideContext(context)))
      const ts = yield* tsOf(slack)
      expect(slack.openSockets()).toBe(1)
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit)).toBe(true)
      yield* promise(() => slack.until(() => slack.openSockets() === 0, "the socket to close"))
      yield* promise(() => slack.until(() => slack.callsOf("chat.update").length === 1, "the update"))
      expect(hasControls(slack.current(ts))).toBe(false)
      expect(texts(slack.current(ts))).toContain("No longer asked here: the Slack connection closed.")
      // No reconnect follows.
      yield* Effect.sleep("1 second")
      expect(slack.connections()).toBe(1)
    }))

  it.live("an ask that times out or that its caller gives up on: the message says so, and a late press is told the same", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const ask = yield* seam(SlackProvider.layer(options(slack)))
      const timedOut = yield* Effect.exit(ask({ ...deploy, timeout: "1s" }))
      expect(codeOf(timedOut)).toBe("ASK_TIMEOUT")
      const first = yield* tsOf(slack, 1)
      yield* promise(() => slack.until(() => slack.callsOf("chat.update").length === 1, "the first update"))
      expect(texts(slack.current(first))).toContain("Nobody answered in time.")
      expect(hasControls(slack.current(first))).toBe(false)

      const fiber = yield* Effect.forkChild(ask(deploy))
      const second = yield* tsOf(slack, 2)
      yield* Fiber.interrupt(fiber)
      yield* promise(() => slack.until(() => slack.callsOf("chat.update").length === 2, "the second update"))
      expect(texts(slack.current(second))).toContain("No longer asked here.")
      yield* promise(() => slack.press(second, "Yes", ana))
      yield* promise(() => slack.until(() => slack.callsOf("chat.postEphemeral").length === 1, "the notice"))
      expect(slack.callsOf("chat.postEphemeral")[0]!.blocks[0].text.text).toBe("No longer asked here.")
    }))

  it("a process that asked on Slack and closed the layer exits by itself: no socket, timer or reconnect is left", async () => {
    const slack = await startSlackStandIn()
    try {
      // The built package, in a process of its own: it must end once its program has, with nothing
      // left running. It closes the layer once told (a line on stdin) that its ask is in the channel.
      const settings = JSON.stringify({ botToken, appToken, channel: channelId, apiUrl: slack.apiUrl })
      const script = `
        import { Effect, Exit, Fiber, Layer, Scope } from "effect"
        import { UserInteraction } from "effect-user-interaction"
        import { SlackProvider } from "effect-user-interaction/slack"
        const told = new Promise((resolve) => process.stdin.once("data", () => { process.stdin.destroy(); resolve() }))
        await Effect.runPromise(Effect.gen(function*() {
          const scope = yield* Scope.make()
          const context = yield* Layer.buildWithScope(UserInteraction.layerWith(SlackProvider.layer(${settings})), scope)
          const fiber = yield* Effect.forkChild(UserInteraction.ask(${JSON.stringify(deploy)}).pipe(Effect.provideContext(context)))
          yield* Effect.promise(() => told)
          yield* Scope.close(scope, Exit.void)
          yield* Fiber.await(fiber)
        }))
        process.stdout.write("closed")
      `
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
      await slack.until(() => slack.messages().length === 1, "the ask in the channel")
      child.stdin.write("close\n")
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
      const code = await new Promise<number | string>((resolve) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL")
          resolve("still running 20 s after closing")
        }, 20_000)
        child.once("exit", (exitCode) => {
          clearTimeout(timer)
          resolve(exitCode ?? -1)
        })
      })
      expect([code, out]).toEqual([0, "closed"])
      expect(slack.messages()).toHaveLength(1)
      expect(slack.openSockets()).toBe(0)
      expect(slack.connections()).toBe(1)
    } finally {
      await slack.close()
    }
  }, 60_000)

  it.live("a wrong bot token or app token fails the layer with PROVIDER_FAILED naming Slack's error", () =>
    Effect.gen(function*() {
      const slack = yield* standIn
      const wrongBot = yield* Effect.exit(Layer.build(SlackProvider.layer(options(slack, { botToken: "xoxb-wrong" }))))
      expect(Exit.isFailure(wrongBot) && JSON.stringify(wrongBot.cause)).toContain("auth.test failed: invalid_auth")
      const wrongApp = yield* Effect.exit(Layer.build(SlackProvider.layer(options(slack, { appToken: "xapp-wrong" }))))
      expect(Exit.isFailure(wrongApp) && JSON.stringify(wrongApp.cause)).toContain("invalid_auth")
      expect(slack.openSockets()).toBe(0)
    }))
})
