/**
 * SPEC "Durable asks": the inbox rules on an in-memory store (`sqlite::memory:`),
 * with the real workflow engine: answer rules, first outcome wins, not pending,
 * unknown id, status of each outcome, join by id, a settled id answers again,
 * abort withdraws, interruption only ends the local wait, expiry, changes, serve;
 * and SPEC "Durable store hardening": an answer over 64 KiB of JSON is
 * INVALID_ANSWER naming the limit by every way it reaches the store
 * (`DurableInbox.answer`, `DurableStore.settle`, a surface `serve` asks on),
 * nothing recorded; 63 KiB is taken.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Logger, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import {
  type AskUserQuestionAnswer,
  type AskUserQuestionRequest,
  ScriptedProvider,
  UserInteraction,
  type UserInteractionProvider
} from "effect-user-interaction"
import { DurableInbox, DurableStore } from "effect-user-interaction/durable"
import { answerTooLarge, maxAnswerBytes } from "../src/durable/answerLimit.js"
import { runWith, tempDir } from "./cliHarness.js"
import { storeWith, untilPending } from "./support/durableInProcess.js"

const request = (id: string): AskUserQuestionRequest => ({
  id,
  questions: [{ id: "q", question: "Deploy?", options: [{ label: "Yes" }, { label: "No" }] }]
})
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error as unknown as { readonly code: string; readonly message: string })

describe("durable asks (in-memory store)", () => {
  it.live("an answer reaches the asker; a bad one is refused and the ask stays pending; the first outcome wins", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* UserInteraction.ask(request("a1")).pipe(Effect.forkChild)
      yield* untilPending("a1")
      const [listed] = yield* inbox.pending
      expect(listed!.request.questions[0]!.question).toBe("Deploy?")
      expect(listed!.askedAt).toBeInstanceOf(Date)

      const bad = yield* failureOf(inbox.answer("a1", { answers: [{ id: "q", selected: ["Maybe"] }] }))
      expect(bad.code).toBe("INVALID_ANSWER")
      expect((yield* inbox.status("a1")).status).toBe("pending")

      yield* inbox.answer("a1", yes)
      expect(yield* Fiber.join(asker)).toEqual(yes)
      expect(yield* inbox.status("a1")).toEqual({
        id: "a1",
        status: "answered",
        answer: yes,
        // Answered with no `by`: the receipt says when, not who.
        receipt: { at: expect.any(Date), millis: expect.any(Number) }
      })
      expect(yield* inbox.pending).toEqual([])

      const late = yield* failureOf(inbox.answer("a1", { answers: [{ id: "q", selected: ["No"] }] }))
      expect(late.code).toBe("ASK_NOT_PENDING")
      expect(late.message).toContain("answered")
      expect((yield* failureOf(inbox.cancel("a1"))).code).toBe("ASK_NOT_PENDING")
      expect((yield* inbox.status("a1")).answer).toEqual(yes)
    }).pipe(Effect.provide(storeWith())))

  it.live("an unknown id is UNKNOWN_ASK for every inbox operation", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      expect((yield* failureOf(inbox.answer("nope", yes))).code).toBe("UNKNOWN_ASK")
      expect((yield* failureOf(inbox.cancel("nope"))).code).toBe("UNKNOWN_ASK")
      expect((yield* failureOf(inbox.decline("nope"))).code).toBe("UNKNOWN_ASK")
      expect((yield* failureOf(inbox.status("nope"))).code).toBe("UNKNOWN_ASK")
    }).pipe(Effect.provide(storeWith())))

  it.live("cancel and decline reach the asker as ASK_CANCELLED and ASK_DECLINED, and asking the id again gives them again", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const cancelled = yield* UserInteraction.ask(request("c1")).pipe(Effect.flip, Effect.forkChild)
      const declined = yield* UserInteraction.ask(request("d1")).pipe(Effect.flip, Effect.forkChild)
      yield* untilPending("c1")
      yield* untilPending("d1")
      yield* inbox.cancel("c1")
      yield* inbox.decline("d1")
      expect((yield* Fiber.join(cancelled)).code).toBe("ASK_CANCELLED")
      expect((yield* Fiber.join(declined)).code).toBe("ASK_DECLINED")
      expect((yield* inbox.status("c1")).status).toBe("cancelled")
      expect((yield* inbox.status("d1")).status).toBe("declined")
      expect((yield* failureOf(UserInteraction.ask(request("c1")))).code).toBe("ASK_CANCELLED")
      expect((yield* failureOf(inbox.answer("d1", yes))).message).toContain("declined")
    }).pipe(Effect.provide(storeWith())))

  it.live("the same id asked twice joins one ask; a settled id returns the same answer again", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const first = yield* UserInteraction.ask(request("j1")).pipe(Effect.forkChild)
      yield* untilPending("j1")
      const second = yield* UserInteraction.ask(request("j1")).pipe(Effect.forkChild)
      expect((yield* inbox.pending).length).toBe(1)
      yield* inbox.answer("j1", yes)
      expect(yield* Fiber.join(first)).toEqual(yes)
      expect(yield* Fiber.join(second)).toEqual(yes)
      expect(yield* UserInteraction.ask(request("j1"))).toEqual(yes)
    }).pipe(Effect.provide(storeWith())))

  it.live("an id asked again with other questions is INVALID_REQUEST, pending or settled; another agent, or the same questions written otherwise, joins", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const other = { id: "o1", questions: [{ id: "db", question: "Which database?" }] }
      const first = yield* UserInteraction.ask(request("o1")).pipe(Effect.forkChild)
      yield* untilPending("o1")
      const refused = yield* failureOf(UserInteraction.ask(other))
      expect(refused.code).toBe("INVALID_REQUEST")
      expect(refused.message).toContain("other questions")
      const joined = yield* UserInteraction.ask({ ...request("o1"), agent: { id: "session-2" } }).pipe(Effect.forkChild)
      // The same questions written otherwise: keys in another order, the default `multiSelect: false`
      // spelled out, a field the schema does not know.
      const sameQuestions = [{
        options: [{ label: "Yes" }, { label: "No" }],
        multiSelect: false,
        question: "Deploy?",
        id: "q",
        note: "not part of a question"
      }] as unknown as AskUserQuestionRequest["questions"]
      const rewritten = yield* UserInteraction.ask({ id: "o1", questions: sameQuestions }).pipe(Effect.forkChild)
      yield* inbox.answer("o1", yes)
      expect(yield* Fiber.join(first)).toEqual(yes)
      expect(yield* Fiber.join(joined)).toEqual(yes)
      expect(yield* Fiber.join(rewritten)).toEqual(yes)
      // A multiple choice is another question.
      const multiple = { id: "o1", questions: [{ ...request("o1").questions[0]!, multiSelect: true }] }
      expect((yield* failureOf(UserInteraction.ask(multiple))).code).toBe("INVALID_REQUEST")
      expect((yield* failureOf(UserInteraction.ask(other))).code).toBe("INVALID_REQUEST")
    }).pipe(Effect.provide(storeWith())))

  it.live("an expiresIn past 3650 days is INVALID_REQUEST and stores nothing", () =>
    Effect.gen(function*() {
      expect(yield* failureOf(UserInteraction.ask(request("x1")))).toMatchObject({
        code: "INVALID_REQUEST",
        message: expect.stringContaining("at most 3650 days")
      })
      const stored = yield* Effect.flatMap(DurableInbox, (inbox) => failureOf(inbox.status("x1")))
      expect(stored.code).toBe("UNKNOWN_ASK")
    }).pipe(Effect.provide(storeWith({ expiresIn: "99999999 days" }))))

  // Removed with the file's other temporary directories (test/setup.ts).
  const file = join(tempDir(), "asks.db")
  it.live("a stored row that cannot be read is left out of pending, and the other asks are listed", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const store = yield* DurableStore
      const asker = yield* UserInteraction.ask(request("p1")).pipe(Effect.forkChild)
      yield* untilPending("p1")
      const db = new DatabaseSync(file)
      db.exec(`INSERT INTO ask_user_asks (id, execution_id, request, asked_at, expires_at, status)
        VALUES ('bad', 'x', 'not json', 0, 8640000000000001, 'pending')`)
      db.close()
      expect((yield* inbox.pending).map((ask) => ask.id)).toEqual(["p1"])
      const scan = yield* store.scan
      expect(scan.unreadable.map((row) => row.id)).toEqual(["bad"])
      expect(scan.unreadable[0]!.reason).toContain("request cannot be read")
      yield* inbox.answer("p1", yes)
      expect(yield* Fiber.join(asker)).toEqual(yes)
    }).pipe(Effect.provide(storeWith(undefined, `sqlite:${file}`))))

  it.live("aborting the request's signal withdraws the ask: ASK_ABORTED, status aborted, answerers refused", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const controller = new AbortController()
      const asker = yield* UserInteraction.ask({ ...request("w1"), signal: controller.signal }).pipe(
        Effect.flip,
        Effect.forkChild
      )
      yield* untilPending("w1")
      controller.abort()
      expect((yield* Fiber.join(asker)).code).toBe("ASK_ABORTED")
      while ((yield* inbox.status("w1")).status === "pending") yield* Effect.sleep("20 millis")
      expect((yield* inbox.status("w1")).status).toBe("aborted")
      const refused = yield* failureOf(inbox.answer("w1", yes))
      expect(refused.code).toBe("ASK_NOT_PENDING")
      expect(refused.message).toContain("withdrawn")
    }).pipe(Effect.provide(storeWith())))

  it.live("ask-user --durable rerun of a withdrawn ask exits 1 saying so, not 130 (which says the ask stays pending)", () => {
    const file = join(tempDir(), "asks.db")
    return Effect.gen(function*() {
      const controller = new AbortController()
      const asker = yield* UserInteraction.ask({ ...request("w2"), signal: controller.signal }).pipe(Effect.flip, Effect.forkChild)
      yield* untilPending("w2")
      controller.abort()
      expect((yield* Fiber.join(asker)).code).toBe("ASK_ABORTED")
      const requestFile = join(tempDir(), "request.json")
      writeFileSync(requestFile, JSON.stringify({ questions: request("w2").questions }))
      const rerun = yield* Effect.promise(() => runWith(["--durable", "--store", `sqlite:${file}`, "--ask-id", "w2", requestFile]))
      expect(rerun.code).toBe(1)
      expect(rerun.stderr).toContain("ASK_ABORTED: The ask \"w2\" was withdrawn.")
      expect(rerun.stdout).toBe("")
    }).pipe(Effect.provide(storeWith(undefined, `sqlite:${file}`)))
  }, 60_000)

  it.live("interrupting the asker ends only its wait: the ask stays pending and a new ask of the id gets the answer", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* UserInteraction.ask(request("i1")).pipe(Effect.forkChild)
      yield* untilPending("i1")
      yield* Fiber.interrupt(asker)
      expect((yield* inbox.status("i1")).status).toBe("pending")
      const again = yield* UserInteraction.ask(request("i1")).pipe(Effect.forkChild)
      yield* inbox.answer("i1", yes)
      expect(yield* Fiber.join(again)).toEqual(yes)
    }).pipe(Effect.provide(storeWith())))

  it.live("expiresIn settles the ask ASK_TIMEOUT and status expired", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const error = yield* failureOf(UserInteraction.ask(request("e1")))
      expect(error.code).toBe("ASK_TIMEOUT")
      // Expired by the engine's clock: nobody settled it, so the receipt says only when.
      expect(yield* inbox.status("e1")).toEqual({ id: "e1", status: "expired", receipt: { at: expect.any(Date), millis: expect.any(Number) } })
      expect((yield* failureOf(inbox.answer("e1", yes))).message).toContain("expired")
    }).pipe(Effect.provide(storeWith({ expiresIn: "1 second" }))))

  it.live("changes reports asks becoming pending and being settled", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const seen = yield* inbox.changes.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      const asker = yield* UserInteraction.ask(request("s1")).pipe(Effect.forkChild)
      yield* untilPending("s1")
      // Give the watcher one look at the pending ask before it is settled.
      yield* Effect.sleep("600 millis")
      yield* inbox.cancel("s1")
      yield* Effect.exit(Fiber.join(asker))
      const changes = yield* Fiber.join(seen)
      expect(changes.map((change) => change._tag)).toEqual(["Asked", "Settled"])
      expect(changes[1]).toEqual({ _tag: "Settled", id: "s1", outcome: "cancelled" })
    }).pipe(Effect.provide(storeWith())))

  it.live("serve asks every pending ask on the given provider and records its answer", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* UserInteraction.ask(request("v1")).pipe(Effect.forkChild)
      yield* untilPending("v1")
      const scripted = ScriptedProvider.layer(() => Effect.succeed({ answers: [{ id: "q", selected: ["No"] }] }))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* inbox.serve(scripted)
        const exit = yield* Fiber.await(asker)
        expect(exit).toEqual(Exit.succeed({ answers: [{ id: "q", selected: ["No"] }] }))
      }))
      expect((yield* inbox.status("v1")).status).toBe("answered")
    }).pipe(Effect.provide(storeWith())))

  it.live("serve takes down a prompt whose ask was settled elsewhere, telling its surface how", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const { interruptionReason, settledElsewhere, UserInteractionProvider } = yield* Effect.promise(() =>
        import("effect-user-interaction")
      )
      // Which asks have a prompt up, and how each was taken down, as a surface reads it.
      const prompted = new Set<string>()
      const takenDown = new Map<string, string>()
      const hanging = Layer.succeed(UserInteractionProvider, {
        ask: (asked) =>
          Effect.suspend(() => (prompted.add(asked.id!), Effect.never)).pipe(Effect.onExit((exit) =>
            Effect.sync(() => {
              if (Exit.isSuccess(exit)) return
              const elsewhere = settledElsewhere(exit.cause)
              const how = elsewhere !== undefined ? `${elsewhere.outcome} in ${elsewhere.surface}` : interruptionReason(exit.cause)
              takenDown.set(asked.id!, how ?? "interrupted")
            })
          ))
      })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* inbox.serve(hanging)
        const settleElsewhere = [
          ["t1", inbox.decline("t1"), "ASK_DECLINED in durable"],
          ["t2", inbox.answer("t2", yes), "answered in durable"],
          ["t3", inbox.cancel("t3"), "ASK_CANCELLED in durable"]
        ] as const
        for (const [id, settle, how] of settleElsewhere) {
          const asker = yield* UserInteraction.ask(request(id)).pipe(Effect.exit, Effect.forkChild)
          // Settled only once its prompt is up: settling it earlier would leave nothing to take down.
          while (!prompted.has(id)) yield* Effect.sleep("20 millis")
          yield* settle
          yield* Fiber.join(asker)
          while (!takenDown.has(id)) yield* Effect.sleep("20 millis")
          expect([id, takenDown.get(id)]).toEqual([id, how])
        }
      }))
    }).pipe(Effect.provide(storeWith())))

  it.live("serve takes down the prompt of an ask that expires as the seam's timeout, not as a withdrawal", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const { interruptionReason, UserInteractionProvider } = yield* Effect.promise(() => import("effect-user-interaction"))
      let reason: string | undefined
      const hanging = Layer.succeed(UserInteractionProvider, {
        ask: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.void), Effect.onExit((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) reason = interruptionReason(exit.cause) ?? "none"
          })
        ))
      })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* inbox.serve(hanging)
        const asker = yield* UserInteraction.ask(request("x1")).pipe(Effect.flip, Effect.forkChild)
        expect((yield* Fiber.join(asker)).code).toBe("ASK_TIMEOUT")
        while (reason === undefined) yield* Effect.sleep("20 millis")
      }))
      expect(reason).toBe("timeout")
    // Long enough for a loaded machine to put the prompt up before the ask expires.
    }).pipe(Effect.provide(storeWith({ expiresIn: "4 seconds" }))))

  it.live("a store URL naming no database fails to build", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.provide(Effect.void, DurableStore.layer("mysql://nope")))
      expect(error._tag).toBe("DurableStoreUrlError")
      for (const url of ["sqlite:", "sqlite: ", "postgres://"]) {
        const empty = yield* Effect.flip(Effect.provide(Effect.void, DurableStore.layer(url)))
        expect(empty._tag).toBe("DurableStoreUrlError")
      }
    }))
})

/** An answer whose custom text is `text`. */
const answerWith = (text: string): AskUserQuestionAnswer => ({ answers: [{ id: "q", selected: [], custom: text }] })
const kib = (n: number) => "x".repeat(n * 1024)

/** Runs `body` while the inbox serves on `surface`; gives the messages logged meanwhile. */
const servedLogging = <E>(
  surface: Layer.Layer<UserInteractionProvider, E>,
  body: (logged: ReadonlyArray<string>) => Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function*() {
    const logged: Array<string> = []
    const inbox = yield* DurableInbox
    yield* Effect.scoped(Effect.andThen(inbox.serve(surface), body(logged))).pipe(
      Effect.provide(Logger.layer([Logger.make(({ message }) => void logged.push(String(message)))]))
    )
    return logged
  })

describe("the 64 KiB answer limit", () => {
  it("is counted in bytes of the answer's JSON: 33,000 two-byte characters are over it, 65,000 ASCII ones not", () => {
    expect(maxAnswerBytes).toBe(65_536)
    expect(answerTooLarge(answerWith("é".repeat(33_000)))?.code).toBe("INVALID_ANSWER")
    expect(answerTooLarge(answerWith("x".repeat(65_000)))).toBeUndefined()
    // Not JSON at all: left to the answer rules, which refuse it.
    expect(answerTooLarge({ answers: [{ id: "q", selected: [], custom: 1n }] })).toBeUndefined()
  })

  it.live("DurableInbox.answer refuses 65 KiB naming the limit, the ask stays pending; 63 KiB reaches the asker", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* UserInteraction.ask(request("l1")).pipe(Effect.forkChild)
      yield* untilPending("l1")
      for (const text of [kib(65), "é".repeat(33_000)]) {
        const refused = yield* failureOf(inbox.answer("l1", answerWith(text)))
        expect(refused.code).toBe("INVALID_ANSWER")
        expect(refused.message).toMatch(/over the limit of 64 KiB \(65536 bytes\)/)
        expect(yield* inbox.status("l1")).toEqual({ id: "l1", status: "pending" })
      }
      // Refused for its size before the rules are read: a 5 MB answer is not looked through.
      const huge = yield* failureOf(inbox.answer("l1", { answers: [{ id: "nope", selected: [kib(5 * 1024)] }] }))
      expect(huge.message).toContain("64 KiB")

      yield* inbox.answer("l1", answerWith(kib(63)))
      expect(yield* Fiber.join(asker)).toEqual(answerWith(kib(63)))
      expect((yield* inbox.status("l1")).answer).toEqual(answerWith(kib(63)))
    }).pipe(Effect.provide(storeWith())))

  it.live("DurableStore.settle refuses it too, recording nothing", () =>
    Effect.gen(function*() {
      const durable = yield* DurableStore
      const asker = yield* UserInteraction.ask(request("l2")).pipe(Effect.forkChild)
      yield* untilPending("l2")
      const refused = yield* failureOf(durable.settle("l2", { status: "answered", answer: answerWith(kib(65)) }))
      expect(refused.code).toBe("INVALID_ANSWER")
      expect((yield* durable.find("l2"))?.status).toBe("pending")
      yield* durable.settle("l2", { status: "cancelled" })
      expect((yield* failureOf(Fiber.join(asker))).code).toBe("ASK_CANCELLED")
    }).pipe(Effect.provide(storeWith())))

  it.live("serve asks again, with a warning naming the limit, when its surface gives an answer too large to record", () =>
    Effect.gen(function*() {
      const asker = yield* UserInteraction.ask(request("l3")).pipe(Effect.forkChild)
      yield* untilPending("l3")
      let asked = 0
      // A person pasting a whole file, then answering in a line.
      const surface = ScriptedProvider.layer(() => Effect.succeed(answerWith(++asked === 1 ? kib(65) : "short")))
      const warnings = yield* servedLogging(surface, () => Fiber.join(asker).pipe(
        Effect.map((answer) => expect(answer).toEqual(answerWith("short")))
      ))
      expect(asked).toBe(2)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/^The answer to the ask "l3" was not recorded: .*over the limit of 64 KiB.* It is asked again\.$/)
    }).pipe(Effect.provide(storeWith())))

  it.live("serve stops asking a surface that answers too large three times running; the ask stays pending", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const asker = yield* UserInteraction.ask(request("l4")).pipe(Effect.forkChild)
      yield* untilPending("l4")
      let asked = 0
      const surface = ScriptedProvider.layer(() => Effect.sync(() => (asked++, answerWith(kib(65)))))
      const warnings = yield* servedLogging(surface, (warnings) =>
        Effect.gen(function*() {
          while (warnings.length < 3) yield* Effect.sleep("20 millis")
          // Several of the inbox's polls later, nothing asked it again.
          yield* Effect.sleep("1 second")
        }))
      expect(asked).toBe(3)
      expect(warnings[2]).toMatch(/It stays pending\.$/)
      expect((yield* inbox.status("l4")).status).toBe("pending")
      yield* Fiber.interrupt(asker)
    }).pipe(Effect.provide(storeWith())))
})
