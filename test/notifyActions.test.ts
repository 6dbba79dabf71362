/**
 * SPEC "Telling the human a question waits", ntfy's action buttons, the
 * tokens alone: which asks get buttons, what an ntfy publish carries, and
 * the tokens attacked (forged, altered to name another ask or option,
 * signed under another run's key, replayed, pressed after the ask settled).
 * `test/remoteInbox.test.ts` presses the buttons against a running inbox.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { AskUserQuestionRequest } from "effect-user-interaction"
import { actionLabels, makeActionTokens, type NoticeAsk, signAction, verifyAction } from "../src/notify/index.js"
import { ntfyMessage } from "../src/notify/ntfy.js"
import { unsafeChars } from "./terminalHarness.js"

const question = (options: ReadonlyArray<string>, more: object = {}) => ({
  id: "q",
  question: "Deploy?",
  options: options.map((label) => ({ label })),
  ...more
})
const ask = (request: AskUserQuestionRequest, id = "a1"): NoticeAsk => ({ id, request, askedAt: new Date() })
const deploy: AskUserQuestionRequest = { questions: [question(["Yes", "No"])] }
const base = "https://192.0.2.1:8443/"

const pending = (...ids: Array<string>) => (askId: string) => Effect.succeed(ids.includes(askId))

/** The token in a button's URL. */
const tokenOf = (url: string) => decodeURIComponent(new URL(url).pathname.replace(/^\/act\//, ""))

describe("ntfy action buttons", () => {
  it("only an ask of one single-select question with 1 to 3 options and no answerableBy gets buttons", () => {
    expect(actionLabels(deploy)).toEqual(["Yes", "No"])
    expect(actionLabels({ questions: [question(["A", "B", "C"])] })).toEqual(["A", "B", "C"])
    expect(actionLabels({ questions: [question(["A", "B", "C", "D"])] })).toBeUndefined()
    expect(actionLabels({ questions: [question(["A", "B"], { multiSelect: true })] })).toBeUndefined()
    expect(actionLabels({ questions: [question(["A", "B"]), question(["C", "D"])] })).toBeUndefined()
    expect(actionLabels({ questions: [question([])] })).toBeUndefined()
    expect(actionLabels({ questions: [{ id: "q", question: "Why?" }] })).toBeUndefined()
    expect(actionLabels({ ...deploy, answerableBy: ["ntfy:*"] })).toBeUndefined()
  })

  it("the publish carries one POST button per option to the inbox's /act/<token>, labels inert, and none without tokens", () => {
    const tokens = makeActionTokens(base)
    const hostile: AskUserQuestionRequest = { questions: [question([`Yes${unsafeChars}`, "**No** <b>x</b>"])] }
    const buttons = tokens.buttons(ask(hostile), "mytopic")
    const message = ntfyMessage("mytopic", { type: "ask.pending", ask: ask(hostile), link: `${base}#ask=a1` }, buttons)
    expect(message.click).toBe(`${base}#ask=a1`)
    expect(message.actions).toHaveLength(2)
    for (const action of message.actions!) {
      expect(action).toMatchObject({ action: "http", method: "POST", clear: true })
      expect(action.url.startsWith(`${base}act/`)).toBe(true)
      // No control or invisible character reaches the lock screen.
      expect(action.label).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/)
    }
    // ntfy shows text as typed: the markdown and HTML stay plain characters, and the message says no markdown.
    expect(message.actions![1]!.label).toBe("**No** <b>x</b>")
    expect("markdown" in message).toBe(false)
    expect(ntfyMessage("mytopic", { type: "ask.pending", ask: ask(hostile) }).actions).toBeUndefined()
  })

  it.effect("a pressed button answers its option as ntfy:<topic> on the ntfy surface, once", () =>
    Effect.gen(function*() {
      const tokens = makeActionTokens(base)
      const [yes] = tokens.buttons(ask(deploy), "mytopic")
      const token = tokenOf(yes!.url)
      const first = yield* tokens.redeem(token, pending("a1"))
      const replayed = yield* tokens.redeem(token, pending("a1"))
      expect(first).toEqual({ askId: "a1", label: "Yes", by: { id: "ntfy:mytopic" }, surface: "ntfy" })
      expect(replayed).toBeUndefined()
    }))

  it.live("attack: two presses of one token at once redeem once", () =>
    Effect.gen(function*() {
      const tokens = makeActionTokens(base)
      const token = tokenOf(tokens.buttons(ask(deploy), "t")[0]!.url)
      const slowPending = (askId: string) => Effect.as(Effect.sleep("20 millis"), askId === "a1")
      const both = yield* Effect.all([tokens.redeem(token, slowPending), tokens.redeem(token, slowPending)], {
        concurrency: 2
      })
      expect(both.filter((redeemed) => redeemed !== undefined)).toHaveLength(1)
    }))

  it.effect("attack: a token whose ask has settled or expired redeems to nothing; one pressed before its ask can be answered is not used up", () =>
    Effect.gen(function*() {
      const tokens = makeActionTokens(base)
      const token = tokenOf(tokens.buttons(ask(deploy), "t")[1]!.url)
      expect(yield* tokens.redeem(token, pending())).toBeUndefined()
      // Pending again (the inbox's page had not got the ask yet): the same press now answers, once.
      expect(yield* tokens.redeem(token, pending("a1"))).toMatchObject({ askId: "a1", label: "No" })
      expect(yield* tokens.redeem(token, pending("a1"))).toBeUndefined()
    }))

  it.effect("attack: forged tokens: another run's key, one ask's nonce with another's MAC, a nonce never issued, junk", () =>
    Effect.gen(function*() {
      const key = Buffer.alloc(32, 7)
      const tokens = makeActionTokens(base, key)
      const [yesA, noA] = tokens.buttons(ask(deploy, "a1"), "t").map((button) => tokenOf(button.url))
      const [yesB] = tokens.buttons(ask(deploy, "a2"), "t").map((button) => tokenOf(button.url))
      const [nonceA, macA] = yesA!.split(".") as [string, string]
      const [nonceB, macB] = yesB!.split(".") as [string, string]
      const forged = [
        // The token of one ask used for another: its nonce with the other's MAC, both ways.
        `${nonceA}.${macB}`,
        `${nonceB}.${macA}`,
        // Another run's key over the same claim, and over a nonce this run never issued.
        signAction(Buffer.alloc(32, 8), nonceA, { askId: "a1", label: "Yes", topic: "t" }),
        signAction(key, "never-issued", { askId: "a1", label: "Yes", topic: "t" }),
        `${nonceA}.`,
        `${nonceA}.${macA.slice(0, -2)}`,
        nonceA,
        "",
        ".",
        "x".repeat(10_000)
      ]
      for (const token of forged) {
        expect(yield* tokens.redeem(token, pending("a1", "a2"))).toBeUndefined()
      }
      // The good tokens still work: the forgeries consumed nothing.
      expect(yield* tokens.redeem(yesA!, pending("a1"))).toMatchObject({ askId: "a1", label: "Yes" })
      expect(yield* tokens.redeem(yesB!, pending("a2"))).toMatchObject({ askId: "a2", label: "Yes" })
      expect(verifyAction(key, noA!, () => undefined)).toBeUndefined()
    }))

  it("a token is a short path segment whatever the ask's id and labels (routers cap a segment at 100 characters)", () => {
    const tokens = makeActionTokens(base)
    const long: AskUserQuestionRequest = { questions: [question(["y".repeat(500), "n".repeat(500)])] }
    for (const button of tokens.buttons(ask(long, "i".repeat(200)), "t".repeat(64))) {
      expect(tokenOf(button.url).length).toBeLessThanOrEqual(100)
      expect(tokenOf(button.url)).toMatch(/^[\w-]+\.[\w-]+$/)
    }
  })
})
