/**
 * SPEC "Answerers" on durable asks, in one process over an in-memory store
 * with the real engine: the receipt of every settled ask (answer, cancel,
 * decline, serve, expiry, withdrawal) in the store and back at the asker,
 * `answerableBy` enforced by `DurableStore.settle`, claims (holder, lapse,
 * renewal, release, force, refusals), `PendingAsk.claim` and the history.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema, Stream } from "effect"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import {
  AskCancelled,
  type Answerer,
  type AskUserQuestionRequest,
  isAnswerableBy,
  ScriptedProvider,
  UserInteraction
} from "effect-user-interaction"
import { DurableInbox, DurableStore } from "effect-user-interaction/durable"
import { readReceipt, storedReceipt } from "../src/durable/receipts.js"
import { tempDir } from "./cliHarness.js"
import { storeWith, untilPending } from "./support/durableInProcess.js"

const ana: Answerer = { id: "os:ana@build-01", name: "Ana Lima" }
const bob: Answerer = { id: "os:bob@laptop" }
const request = (id: string, answerableBy?: ReadonlyArray<string>): AskUserQuestionRequest => ({
  id,
  questions: [{ id: "q", question: "Deploy?", options: [{ label: "Yes" }, { label: "No" }] }],
  ...(answerableBy === undefined ? {} : { answerableBy })
})
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

/** Asks `id` in the background (with its receipt) and waits until it is pending. */
const askPending = (id: string, answerableBy?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const asker = yield* UserInteraction.askWithReceipt(request(id, answerableBy)).pipe(Effect.result, Effect.forkChild)
    yield* untilPending(id)
    return asker
  })

const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error as unknown as { readonly code: string; readonly message: string })

const statusOf = (id: string) => Effect.flatMap(DurableInbox, (inbox) => inbox.status(id))

describe("durable receipts", () => {
  it.live("an answer's receipt is stored (surface, by, at, millis) and the asker's receipt and Settled event name who", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const settled = yield* UserInteraction.events.pipe(
        Stream.filter((event) => event._tag === "Settled"),
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild
      )
      const before = Date.now()
      const asker = yield* askPending("r1")
      yield* inbox.answer("r1", yes, { by: ana, surface: "web" })
      const status = yield* statusOf("r1")
      expect(status).toMatchObject({ status: "answered", answer: yes, receipt: { surface: "web", by: ana } })
      expect(status.receipt!.at.getTime()).toBeGreaterThanOrEqual(before)
      expect(status.receipt!.millis).toBeGreaterThanOrEqual(0)
      expect(status.receipt!.millis).toBeLessThanOrEqual(status.receipt!.at.getTime() - before)
      // The asker's own receipt: the provider is the durable one, who answered is Ana.
      const { answer, receipt } = (yield* Fiber.join(asker)).pipe((result) => {
        if (result._tag === "Failure") throw new Error(`the ask failed: ${result.failure.code}`)
        return result.success
      })
      expect(answer).toEqual(yes)
      expect(receipt).toMatchObject({ surface: "durable", by: ana })
      expect(yield* Fiber.join(settled)).toMatchObject([{ _tag: "Settled", id: "r1", outcome: "answered", by: ana }])
      // Asking the settled id again gives the same answerer.
      expect((yield* UserInteraction.askWithReceipt(request("r1"))).receipt.by).toEqual(ana)
    }).pipe(Effect.provide(storeWith())))

  it.live("a cancel's and a decline's receipts name who did it; the asker's error and Settled event carry them", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const { answererOf } = yield* Effect.promise(() => import("effect-user-interaction"))
      const cancelled = yield* askPending("c1")
      const declined = yield* askPending("d1")
      yield* inbox.cancel("c1", { by: bob, surface: "cli" })
      yield* inbox.decline("d1", { by: ana })
      expect((yield* statusOf("c1")).receipt).toMatchObject({ surface: "cli", by: bob })
      const declinedReceipt = (yield* statusOf("d1")).receipt!
      expect(declinedReceipt.by).toEqual(ana)
      expect(declinedReceipt.surface).toBeUndefined()
      const cancelError = yield* Fiber.join(cancelled)
      expect(cancelError._tag === "Failure" && cancelError.failure).toBeInstanceOf(AskCancelled)
      expect(answererOf(cancelError._tag === "Failure" ? cancelError.failure : undefined)).toEqual(bob)
      const declineError = yield* Fiber.join(declined)
      expect(declineError._tag === "Failure" ? [declineError.failure.code, answererOf(declineError.failure)] : []).toEqual([
        "ASK_DECLINED",
        ana
      ])
    }).pipe(Effect.provide(storeWith())))

  it.live("serve records the serving surface's receipt: its name and who answered, for answers and cancels", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* askPending("v1")
      const canceller = yield* askPending("v2")
      const scripted = ScriptedProvider.layer(
        (asked) => asked.id === "v2" ? Effect.fail(new AskCancelled()) : Effect.succeed({ answers: [{ id: "q", selected: ["No"] }] }),
        { by: ana }
      )
      yield* Effect.scoped(Effect.gen(function*() {
        yield* inbox.serve(scripted)
        yield* Fiber.join(asker)
        yield* Fiber.join(canceller)
      }))
      expect((yield* statusOf("v1")).receipt).toMatchObject({ surface: "scripted", by: ana })
      expect((yield* statusOf("v2"))).toMatchObject({ status: "cancelled", receipt: { surface: "scripted", by: ana } })
    }).pipe(Effect.provide(storeWith())))

  it.live("an expired and a withdrawn ask have receipts that say when, and no one", () =>
    Effect.gen(function*() {
      const expired = yield* failureOf(UserInteraction.ask(request("e1")))
      expect(expired.code).toBe("ASK_TIMEOUT")
      const controller = new AbortController()
      const withdrawn = yield* UserInteraction.ask({ ...request("w1"), signal: controller.signal }).pipe(Effect.flip, Effect.forkChild)
      yield* untilPending("w1")
      controller.abort()
      yield* Fiber.join(withdrawn)
      while ((yield* statusOf("w1")).status === "pending") yield* Effect.sleep("20 millis")
      for (const id of ["e1", "w1"]) {
        const { receipt } = yield* statusOf(id)
        expect(Object.keys(receipt!).sort()).toEqual(["at", "millis"])
      }
    }).pipe(Effect.provide(storeWith({ expiresIn: "1 second" }))))

  it.prop(
    "the stored part of a receipt reads back as written, with the row's times",
    {
      by: Schema.optional(Schema.Struct({ id: Schema.NonEmptyString, name: Schema.optional(Schema.String) })),
      surface: Schema.optional(Schema.String),
      broken: Schema.optional(Schema.Struct({ id: Schema.NonEmptyString, until: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4e12 })) })),
      waited: Schema.Int.check(Schema.isBetween({ minimum: -1e6, maximum: 1e9 }))
    },
    ({ broken, by, surface, waited }) => {
      const answerer = by === undefined ? undefined : { id: `os:${by.id}`, ...(by.name === undefined ? {} : { name: by.name }) }
      const brokeClaim = broken === undefined ? undefined : { by: { id: `device:${broken.id}` }, until: new Date(broken.until) }
      const askedAt = new Date(1_700_000_000_000)
      const settledAt = new Date(askedAt.getTime() + waited)
      const receipt = readReceipt(storedReceipt({ by: answerer, surface }, brokeClaim), askedAt, settledAt, false)
      expect(receipt).toEqual({
        ...(surface === undefined ? {} : { surface }),
        ...(answerer === undefined ? {} : { by: answerer }),
        at: settledAt,
        // A settling machine's clock behind the asker's reads as no wait, never a negative one.
        millis: Math.max(0, waited),
        ...(brokeClaim === undefined ? {} : { brokeClaim })
      })
    }
  )
})

describe("answerableBy on durable asks", () => {
  it.live("the store refuses an answer, cancel or decline from anyone else, or from no one: NOT_AUTHORIZED, still pending; Ana's answer wins", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const store = yield* DurableStore
      const asker = yield* askPending("a1", ["os:ana@*"])
      for (const refused of [
        inbox.answer("a1", yes, { by: bob }),
        inbox.answer("a1", yes),
        inbox.cancel("a1", { by: bob }),
        inbox.decline("a1"),
        // The store itself is the one place: a caller that skips the inbox is refused too.
        store.settle("a1", { status: "answered", answer: yes }, { by: { id: "os:anabel@build-01" } })
      ]) {
        const error = yield* failureOf(refused)
        expect(error.code).toBe("NOT_AUTHORIZED")
        expect(error.message).toContain("Only os:ana@* may settle this ask")
        expect((yield* statusOf("a1")).status).toBe("pending")
      }
      expect((yield* failureOf(inbox.answer("a1", yes))).message).toContain("cannot say who is answering")
      // An id that is no kind:value is no one: refused, and never stored in a receipt that could not be read back.
      const malformed = yield* failureOf(inbox.cancel("a1", { by: { id: "ana" } }))
      expect(malformed).toMatchObject({ code: "NOT_AUTHORIZED", message: expect.stringContaining("no answerer id") })
      expect((yield* failureOf(inbox.claim("a1", { id: "ana" }))).code).toBe("NOT_AUTHORIZED")
      yield* inbox.answer("a1", yes, { by: ana })
      const answered = yield* Fiber.join(asker)
      expect(answered._tag === "Success" && answered.success.receipt.by).toEqual(ana)
      expect((yield* statusOf("a1")).receipt?.by).toEqual(ana)
    }).pipe(Effect.provide(storeWith())))

  it.live("joining an id asked with another answerableBy is INVALID_REQUEST; the same patterns in another order join", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const first = yield* askPending("j1", ["os:ana@*", "device:*"])
      const other = yield* failureOf(UserInteraction.ask(request("j1", ["*"])))
      expect(other).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("another answerableBy") })
      expect((yield* failureOf(UserInteraction.ask(request("j1")))).code).toBe("INVALID_REQUEST")
      const joined = yield* UserInteraction.ask(request("j1", ["device:*", "os:ana@*"])).pipe(Effect.forkChild)
      yield* inbox.answer("j1", yes, { by: { id: "device:phone-1" } })
      expect(yield* Fiber.join(joined)).toEqual(yes)
      expect((yield* Fiber.join(first))._tag).toBe("Success")
    }).pipe(Effect.provide(storeWith())))

  const patterns = Schema.Literals(["os:ana@*", "os:ana@h1", "device:*", "os:*@h2", "*", "email:*@example.com"])
  const ids = Schema.Literals(["os:ana@h1", "os:ana@h2", "os:bob@h2", "device:d1", "email:x@example.com", "email:x@evil.com", "none"])
  let n = 0
  layer(storeWith(), { excludeTestServices: true })("on one store", (it) => {
    it.effect.prop(
      "of several answerers in turn, the first one the patterns allow is recorded; those before are refused, those after find it settled",
      { answerableBy: Schema.optional(Schema.Array(patterns)), turns: Schema.NonEmptyArray(ids) },
      ({ answerableBy, turns }) =>
        Effect.gen(function*() {
          const inbox = yield* DurableInbox
          const id = `p${n++}`
          const asker = yield* askPending(id, answerableBy)
          const byOf = (turn: string): Answerer | undefined => turn === "none" ? undefined : { id: turn }
          const winner = turns.findIndex((turn) => isAnswerableBy(answerableBy, byOf(turn)))
          for (const [i, turn] of turns.entries()) {
            const result = yield* Effect.result(inbox.answer(id, yes, { by: byOf(turn) }))
            const expected = winner === -1 || i < winner ? "NOT_AUTHORIZED" : i === winner ? "recorded" : "ASK_NOT_PENDING"
            expect([turn, result._tag === "Success" ? "recorded" : result.failure.code]).toEqual([turn, expected])
          }
          if (winner === -1) {
            expect((yield* statusOf(id)).status).toBe("pending")
            yield* Fiber.interrupt(asker)
          } else {
            const answered = yield* Fiber.join(asker)
            expect(answered._tag === "Success" ? answered.success.receipt.by : "failed").toEqual(byOf(turns[winner]!))
          }
        }),
      { arbitrary: { runs: 25 } }
    )
  })
})

describe("claims on durable asks", () => {
  it.live("while Ana holds a claim only she settles the ask: others get ASK_CLAIMED naming her and until when", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* askPending("k1")
      const claim = yield* inbox.claim("k1", ana)
      const [listed] = yield* inbox.pending
      expect(listed!.claim).toEqual(claim)
      expect(claim.by).toEqual(ana)
      const refusals: ReadonlyArray<Effect.Effect<unknown, { readonly code: string }>> = [
        inbox.answer("k1", yes, { by: bob }),
        inbox.answer("k1", yes),
        inbox.cancel("k1", { by: bob }),
        inbox.decline("k1", { by: bob }),
        inbox.claim("k1", bob),
        inbox.release("k1", bob)
      ]
      for (const refused of refusals) {
        const error = yield* failureOf(refused)
        expect(error.code).toBe("ASK_CLAIMED")
        expect(error.message).toContain(`claimed by Ana Lima (os:ana@build-01) until ${claim.until.toISOString()}`)
      }
      expect((yield* statusOf("k1")).status).toBe("pending")
      // Claiming again renews it; the holder answers.
      const renewed = yield* inbox.claim("k1", ana, { ttl: "10 minutes" })
      expect(renewed.until.getTime()).toBeGreaterThan(claim.until.getTime())
      yield* inbox.answer("k1", yes, { by: ana })
      expect((yield* Fiber.join(asker))._tag).toBe("Success")
      expect((yield* statusOf("k1")).receipt).toMatchObject({ by: ana })
      expect((yield* statusOf("k1")).receipt?.brokeClaim).toBeUndefined()
    }).pipe(Effect.provide(storeWith())))

  it.live("a claim lapses after its ttl: then another answerer's answer wins; a released claim frees the ask at once", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const lapsing = yield* askPending("l1")
      yield* inbox.claim("l1", ana, { ttl: "1 second" })
      expect((yield* failureOf(inbox.answer("l1", yes, { by: bob }))).code).toBe("ASK_CLAIMED")
      // The pending list stops showing the claim once it has lapsed by the database's clock.
      while ((yield* inbox.pending).some((ask) => ask.id === "l1" && ask.claim !== undefined)) yield* Effect.sleep("100 millis")
      yield* inbox.answer("l1", yes, { by: bob })
      expect((yield* Fiber.join(lapsing))._tag).toBe("Success")
      expect((yield* statusOf("l1")).receipt?.by).toEqual(bob)

      const released = yield* askPending("l2")
      yield* inbox.claim("l2", ana)
      yield* inbox.release("l2", ana)
      expect((yield* inbox.pending).find((ask) => ask.id === "l2")?.claim).toBeUndefined()
      yield* inbox.cancel("l2", { by: bob })
      expect((yield* Fiber.join(released))._tag).toBe("Failure")
      // Nothing to release once the ask is settled, and no one holds it.
      yield* inbox.release("l2", ana)
    }).pipe(Effect.provide(storeWith())))

  it.live("force breaks a claim: recorded, and the receipt names whose claim it broke", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* askPending("f1")
      const claim = yield* inbox.claim("f1", ana)
      yield* inbox.answer("f1", yes, { by: bob, force: true })
      expect((yield* Fiber.join(asker))._tag).toBe("Success")
      expect((yield* statusOf("f1")).receipt).toMatchObject({ by: bob, brokeClaim: { by: ana, until: claim.until } })
      // Force on an unclaimed ask breaks nothing, and the receipt says nothing of it.
      const unclaimed = yield* askPending("f2")
      yield* inbox.decline("f2", { by: bob, force: true })
      yield* Fiber.join(unclaimed)
      expect((yield* statusOf("f2")).receipt?.brokeClaim).toBeUndefined()
    }).pipe(Effect.provide(storeWith())))

  it.live("claims on an unknown or settled ask, by an answerer answerableBy refuses, or with a bad ttl, are refused by name", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      expect((yield* failureOf(inbox.claim("nope", ana))).code).toBe("UNKNOWN_ASK")
      expect((yield* failureOf(inbox.release("nope", ana))).code).toBe("UNKNOWN_ASK")
      const asker = yield* askPending("b1", ["os:ana@*"])
      expect((yield* failureOf(inbox.claim("b1", bob))).code).toBe("NOT_AUTHORIZED")
      for (const ttl of ["0 millis", "-1 seconds", "2 days", "soon"] as const) {
        const error = yield* failureOf(inbox.claim("b1", ana, { ttl: ttl as never }))
        expect([ttl, error.code]).toEqual([ttl, "INVALID_REQUEST"])
      }
      expect((yield* inbox.pending)[0]!.claim).toBeUndefined()
      yield* inbox.answer("b1", yes, { by: ana })
      yield* Fiber.join(asker)
      const settled = yield* failureOf(inbox.claim("b1", ana))
      expect(settled).toMatchObject({ code: "ASK_NOT_PENDING", message: expect.stringContaining("already answered") })
    }).pipe(Effect.provide(storeWith())))

  it.live("serve's answer refused for another's claim is not lost: the ask is asked on its surface again once the claim ends", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const { UserInteractionProvider } = yield* Effect.promise(() => import("effect-user-interaction"))
      const asker = yield* askPending("sc1")
      yield* inbox.claim("sc1", ana)
      let asked = 0
      const eager = Layer.succeed(UserInteractionProvider, {
        name: "terminal",
        ask: () => Effect.sync(() => (asked++, { ...yes, by: bob }))
      })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* inbox.serve(eager)
        while (asked === 0) yield* Effect.sleep("20 millis")
        // Refused while Ana holds the claim, and not asked again meanwhile.
        yield* Effect.sleep("600 millis")
        expect([asked, (yield* statusOf("sc1")).status]).toEqual([1, "pending"])
        yield* inbox.release("sc1", ana)
        expect((yield* Fiber.join(asker))._tag).toBe("Success")
      }))
      expect(asked).toBe(2)
      expect((yield* statusOf("sc1")).receipt).toMatchObject({ surface: "terminal", by: bob })
    }).pipe(Effect.provide(storeWith())))

  it.live("of many answerers claiming at once, exactly one holds the claim", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      yield* askPending("m1")
      const claimers = Array.from({ length: 8 }, (_, i): Answerer => ({ id: `device:d${i}` }))
      const results = yield* Effect.forEach(claimers, (by) => Effect.result(inbox.claim("m1", by)), { concurrency: "unbounded" })
      const held = results.filter((result) => result._tag === "Success")
      expect(held).toHaveLength(1)
      for (const result of results) if (result._tag === "Failure") expect(result.failure.code).toBe("ASK_CLAIMED")
      expect((yield* inbox.pending)[0]!.claim?.by).toEqual(held[0]!._tag === "Success" ? held[0]!.success.by : undefined)
    }).pipe(Effect.provide(storeWith())))
})

describe("durable history", () => {
  it.live("settled asks newest first with their receipts; since and limit choose; pending ones are not history", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      for (const id of ["h1", "h2", "h3", "h4"]) yield* askPending(id)
      yield* inbox.answer("h1", yes, { by: ana, surface: "web" })
      yield* Effect.sleep("20 millis")
      yield* inbox.cancel("h2", { by: bob })
      yield* Effect.sleep("20 millis")
      const between = new Date()
      yield* Effect.sleep("20 millis")
      yield* inbox.decline("h3", { by: bob, surface: "cli" })
      const all = yield* inbox.history()
      expect(all.map((ask) => [ask.id, ask.outcome, ask.receipt?.by?.id])).toEqual([
        ["h3", "declined", bob.id],
        ["h2", "cancelled", bob.id],
        ["h1", "answered", ana.id]
      ])
      expect(all[2]).toMatchObject({ request: { questions: request("h1").questions }, receipt: { surface: "web" } })
      expect(all[2]!.settledAt.getTime()).toBeGreaterThanOrEqual(all[2]!.askedAt.getTime())
      expect((yield* inbox.history({ limit: 2 })).map((ask) => ask.id)).toEqual(["h3", "h2"])
      expect((yield* inbox.history({ since: between })).map((ask) => ask.id)).toEqual(["h3"])
    }).pipe(Effect.provide(storeWith())))
})

describe("upgrading a store in place", () => {
  const columnsOf = (db: DatabaseSync) =>
    db.prepare("SELECT name FROM pragma_table_info('ask_user_asks') ORDER BY cid").all().map((row) => row.name)
  const releaseColumns = ["id", "execution_id", "request", "asked_at", "expires_at", "status", "answer", "settled_at"]

  it.live("a store with the previous release's schema keeps its pending ask: the rerun asker joins it and gets the answer and who gave it", () => {
    const file = join(tempDir(), "asks.db")
    const url = `sqlite:${file}`
    return Effect.gen(function*() {
      // An ask left pending by its asker, in a store then taken back to the previous release's schema: the
      // asks table without the receipt and claim columns, and no record of a version.
      yield* Effect.gen(function*() {
        const asker = yield* UserInteraction.ask(request("old-1")).pipe(Effect.forkChild)
        yield* untilPending("old-1")
        yield* Fiber.interrupt(asker)
      }).pipe(Effect.provide(storeWith(undefined, url)))
      const old = new DatabaseSync(file)
      old.exec("DROP TABLE ask_user_migrations")
      for (const column of ["receipt", "claim_by_id", "claim_by_name", "claim_until"]) {
        old.exec(`ALTER TABLE ask_user_asks DROP COLUMN ${column}`)
      }
      expect(columnsOf(old)).toEqual(releaseColumns)
      old.close()

      yield* Effect.gen(function*() {
        const inbox = yield* DurableInbox
        expect((yield* inbox.pending).map((ask) => ask.id)).toEqual(["old-1"])
        const rerun = yield* UserInteraction.askWithReceipt(request("old-1")).pipe(Effect.forkChild)
        yield* inbox.claim("old-1", ana)
        yield* inbox.answer("old-1", yes, { by: ana, surface: "cli" })
        const { answer, receipt } = yield* Fiber.join(rerun)
        expect(answer).toEqual(yes)
        expect(receipt.by).toEqual(ana)
        expect((yield* statusOf("old-1")).receipt).toMatchObject({ surface: "cli", by: ana })
      }).pipe(Effect.provide(storeWith(undefined, url)))

      const upgraded = new DatabaseSync(file)
      expect(columnsOf(upgraded)).toEqual([...releaseColumns, "receipt", "claim_by_id", "claim_by_name", "claim_until"])
      const steps = upgraded.prepare("SELECT migration_id, name FROM ask_user_migrations ORDER BY migration_id").all()
      expect(steps.map((row) => [row.migration_id, row.name])).toEqual([[1, "asks_table"], [2, "receipts_and_claims"], [3, "devices_and_pairing"], [4, "cluster_secret"]])
      upgraded.close()
    })
  }, 60_000)
})
