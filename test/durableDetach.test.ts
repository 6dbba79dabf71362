/**
 * Asks that do not block (issue 31): `DurableInbox.submit` records an ask
 * and returns its id at once, `DurableInbox.await` waits for its outcome;
 * `ask-user --durable --detach` prints `{"id","status":"pending"}` and exits
 * 0, `ask-user status ID --wait [--timeout D]` waits with `--durable`'s exit
 * statuses; a waiting asker on a terminal says how to answer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { DurableInbox, DurableStore } from "effect-user-interaction/durable"
import { makeStore, request, run } from "./support/durableCli.js"

const inbox = DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer("sqlite::memory:")))
const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

describe("DurableInbox.submit and await", () => {
  it.live("submit records the ask as pending at once and returns its id; await gives the answer once it comes", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const id = yield* inbox.submit({ ...request, id: "s1" })
      expect(id).toBe("s1")
      expect((yield* inbox.pending).map((ask) => ask.id)).toEqual(["s1"])
      const waiting = yield* Effect.forkChild(inbox.await("s1"))
      yield* inbox.answer("s1", yes, { by: { id: "os:ana@build-01" } })
      expect(yield* Fiber.join(waiting)).toEqual(yes)
      // Submitting the same id again joins it: nothing new, and its outcome stays.
      expect(yield* inbox.submit({ ...request, id: "s1" })).toBe("s1")
      expect((yield* inbox.status("s1")).status).toBe("answered")
    }).pipe(Effect.provide(inbox)))

  it.live("without an id one is made; await fails as the ask ended: cancelled, expired, withdrawn; unknown ids are UNKNOWN_ASK", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      const made = yield* inbox.submit(request)
      expect(made).toMatch(/^[0-9a-f-]{36}$/)
      yield* inbox.cancel(made)
      expect((yield* Effect.flip(inbox.await(made))).code).toBe("ASK_CANCELLED")
      const expiring = yield* inbox.submit({ ...request, id: "e1" }, { expiresIn: "200 millis" })
      expect((yield* Effect.flip(inbox.await(expiring))).code).toBe("ASK_TIMEOUT")
      expect((yield* Effect.flip(inbox.await("nope"))).code).toBe("UNKNOWN_ASK")
    }).pipe(Effect.provide(inbox)))

  it.live("submit checks the request as ask does: bad or empty requests, secrets, other questions under a known id", () =>
    Effect.gen(function*() {
      const inbox = yield* DurableInbox
      expect((yield* Effect.flip(inbox.submit({ questions: [] }))).code).toBe("EMPTY_QUESTIONS")
      const bad = yield* Effect.flip(inbox.submit({ questions: [{ id: "q", question: "" }] }))
      expect([bad.code, bad.message]).toEqual(["INVALID_REQUEST", expect.stringContaining("questions[0].question")])
      const secret = yield* Effect.flip(inbox.submit({ questions: [{ id: "pw", question: "Token?", secret: true }] }))
      expect([secret.code, secret.message]).toEqual(["INVALID_REQUEST", expect.stringContaining("cannot be kept in the store")])
      const tooLong = yield* Effect.flip(inbox.submit(request, { expiresIn: "4000 days" }))
      expect(tooLong.code).toBe("INVALID_REQUEST")
      yield* inbox.submit({ ...request, id: "k1" })
      const other = yield* Effect.flip(inbox.submit({ id: "k1", questions: [{ id: "other", question: "Else?" }] }))
      expect([other.code, other.message]).toEqual(["INVALID_REQUEST", expect.stringContaining("other questions")])
      expect((yield* inbox.pending).map((ask) => ask.id)).toEqual(["k1"])
    }).pipe(Effect.provide(inbox)))
})

describe("ask-user --durable --detach and status --wait", { timeout: 90_000 }, () => {
  it("--detach prints {id, status: pending} at once, exit 0; status --wait prints the answer once it is given", async () => {
    const store = makeStore()
    const detached = await run(["--durable", "--detach", "--store", store.url, "--ask-id", "d1", store.requestFile])
    expect(detached.code).toBe(0)
    expect(JSON.parse(detached.stdout)).toEqual({ id: "d1", status: "pending" })
    // The ask is there for answerers although no process waits for it.
    expect(JSON.parse((await run(["pending", "--store", store.url])).stdout).id).toBe("d1")
    const timedOut = await run(["status", "--store", store.url, "d1", "--wait", "--timeout", "300ms"])
    expect(timedOut.code).toBe(4)
    expect(timedOut.stderr).toContain("it stays pending")
    expect((await run(["answer", "--store", store.url, "d1", store.file("yes.json", yes)])).code).toBe(0)
    const waited = await run(["status", "--store", store.url, "d1", "--wait"])
    expect(waited.code).toBe(0)
    expect(JSON.parse(waited.stdout)).toEqual(yes)
    // The same file rerun with --durable joins the settled ask and prints its answer at once.
    const rerun = await run(["--durable", "--store", store.url, "--ask-id", "d1", store.requestFile])
    expect([rerun.code, JSON.parse(rerun.stdout)]).toEqual([0, yes])
  })

  it("status --wait ends with --durable's statuses: 3 cancelled, 6 unknown; a generated id is printed", async () => {
    const store = makeStore()
    const detached = await run(["--durable", "--detach", "--store", store.url, store.requestFile])
    const { id, status } = JSON.parse(detached.stdout)
    expect(status).toBe("pending")
    const waiting = run(["status", "--store", store.url, id, "--wait"])
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect((await run(["cancel", "--store", store.url, id])).code).toBe(0)
    const cancelled = await waiting
    expect([cancelled.code, cancelled.stdout]).toEqual([3, ""])
    expect(cancelled.stderr).toContain("ASK_CANCELLED")
    expect((await run(["status", "--store", store.url, "nope", "--wait"])).code).toBe(6)
  })

  it("--detach and --wait flags that cannot apply are usage errors (exit 2)", async () => {
    const store = makeStore()
    for (
      const [args, message] of [
        [["--detach", store.requestFile], "--detach only applies with --durable."],
        [["--durable", "--detach", "--receipt", "--store", store.url, store.requestFile], "--receipt does not apply with --detach"],
        [["status", "--store", store.url, "x", "--timeout", "1s"], "--timeout only applies with --wait."]
      ] as const
    ) {
      const result = await run(args)
      expect([result.code, result.stdout]).toEqual([2, ""])
      expect(result.stderr).toContain(message)
    }
  })
})
