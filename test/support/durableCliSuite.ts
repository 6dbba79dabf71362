/**
 * SPEC "Durable asks", command line, end to end, for any store: the built
 * `ask-user` in separate processes over one store. A killed asker's question
 * stays pending, is answered while it is down, and the rerun prints the
 * answer; an expiry passes while no process runs; exit codes; answerers race;
 * an answerer killed while recording leaves the ask pending or answered once.
 * `test/durableCli.test.ts` runs it on SQLite files, `test/durablePostgres.test.ts`
 * on PostgreSQL databases.
 */
import { expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { start } from "../cliHarness.js"
import { ask, askPending, killHard, request, run, type Store, untilPast, untilStatus } from "./durableCli.js"

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }
const no = { answers: [{ id: "q", selected: ["No"] }] }

/** The suite's tests, each on a new empty store from `makeStore`. */
export const durableCliSuite = (makeStore: () => Store) => {
  it("kill -9 of the asker: answered from another process while it is down, the rerun prints the answer at once", async () => {
    const store = makeStore()
    const asker = await askPending(store, "deploy-1")
    await killHard(asker)

    const listed = await run(["pending", "--store", store.url])
    expect(listed.code).toBe(0)
    const line = JSON.parse(listed.stdout.trim())
    expect(line).toMatchObject({ id: "deploy-1", questions: request.questions })
    expect(new Date(line.askedAt).toISOString()).toBe(line.askedAt)

    const answered = await run(["answer", "--store", store.url, "deploy-1", store.file("answer.json", yes)])
    expect(answered).toMatchObject({ code: 0, stderr: "" })

    const rerun = ask(store, "deploy-1")
    expect(await rerun.exited).toBe(0)
    expect(JSON.parse(rerun.stdout())).toEqual(yes)
    // Neither node:sqlite's ExperimentalWarning nor the engine's housekeeping reaches the user.
    expect(rerun.stderr()).toBe("")
  }, 90_000)

  it("a live asker wakes when another process answers, in the --answers format", async () => {
    const store = makeStore()
    const asker = await askPending(store, "live-1")
    const answered = await run(["answer", "--store", store.url, "live-1", store.file("a.json", { q: "No" })])
    expect(answered.code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["No"] }] })
  }, 90_000)

  it("the expiry passes while every process is down: status says expired, an answer is refused (exit 5), the rerun exits 4", async () => {
    const store = makeStore()
    // Long enough that a loaded machine still sees the ask pending before it expires.
    const asker = ask(store, "exp-1", "--expires", "10s")
    const pending = await untilStatus(store, "exp-1", (status) => status === "pending", asker)
    expect(pending).toEqual({ id: "exp-1", status: "pending" })
    await killHard(asker)
    const listed = JSON.parse((await run(["pending", "--store", store.url])).stdout.trim())
    expect(Date.parse(listed.expiresAt) - Date.parse(listed.askedAt)).toBe(10_000)
    await untilPast(Date.parse(listed.expiresAt) + 500)
    // With no agent running, the answerers' commands see the deadline too.
    expect((await run(["status", "--store", store.url, "exp-1"])).stdout).toContain("\"expired\"")
    expect((await run(["pending", "--store", store.url])).stdout).toBe("")
    const late = await run(["answer", "--store", store.url, "exp-1", store.file("late.json", { answers: [{ id: "q", selected: ["Yes"] }] })])
    expect([late.code, late.stderr]).toEqual([5, expect.stringContaining("it has expired")])
    const rerun = ask(store, "exp-1")
    expect(await rerun.exited).toBe(4)
    expect(rerun.stderr()).toContain("ASK_TIMEOUT")
    expect((await run(["status", "--store", store.url, "exp-1"])).stdout).toContain("\"expired\"")
  }, 90_000)

  it("answer, cancel, decline and status exit 2, 5 and 6 as SPEC says", async () => {
    const store = makeStore()
    const asker = await askPending(store, "codes-1")

    const badAnswer = await run(["answer", "--store", store.url, "codes-1", store.file("bad.json", { answers: [{ id: "q", selected: ["Maybe"] }] })])
    expect(badAnswer.code).toBe(2)
    expect(badAnswer.stderr).toContain("INVALID_ANSWER")
    const notJson = join(store.dir, "not.json")
    writeFileSync(notJson, "{")
    expect((await run(["answer", "--store", store.url, "codes-1", notJson])).code).toBe(2)
    expect((await run(["status", "--store", store.url, "codes-1"])).stdout).toContain("\"pending\"")

    expect((await run(["cancel", "--store", store.url, "codes-1"])).code).toBe(0)
    expect(await asker.exited).toBe(3)
    const late = await run(["answer", "--store", store.url, "codes-1", store.file("yes.json", yes)])
    expect(late.code).toBe(5)
    expect(late.stderr).toContain("cancelled")
    expect((await run(["decline", "--store", store.url, "codes-1"])).code).toBe(5)

    for (const command of [["answer", "nope", join(store.dir, "yes.json")], ["cancel", "nope"], ["decline", "nope"], ["status", "nope"]]) {
      const result = await run([command[0]!, "--store", store.url, ...command.slice(1)])
      expect(result.code).toBe(6)
      expect(result.stderr).toContain("UNKNOWN_ASK")
    }
    expect((await run(["status", "--store", "mysql://x", "nope"])).code).toBe(2)
  }, 90_000)

  it("two inbox answerers answer the same ask at once: one outcome is recorded and the asker gets that one", async () => {
    const store = makeStore()
    const inboxes = [start(["inbox", "--store", store.url, "--no-bell"]), start(["inbox", "--store", store.url, "--no-bell"])]
    const asker = ask(store, "race-1")
    await Promise.all(inboxes.map((inbox) => inbox.stderrContains("Ship it?")))
    // One picks "Yes", the other "No", in the same breath.
    inboxes[0]!.child.stdin!.write("1\n")
    inboxes[1]!.child.stdin!.write("2\n")
    expect(await asker.exited).toBe(0)
    const got = JSON.parse(asker.stdout())
    const status = await untilStatus(store, "race-1", (s) => s === "answered")
    expect(status.answer).toEqual(got)
    expect(["Yes", "No"]).toContain(got.answers[0].selected[0])
    for (const inbox of inboxes) {
      inbox.child.kill("SIGTERM")
      await inbox.exited
    }
  }, 90_000)

  it("kill -9 of an answerer while it records: the ask is pending or answered once, never twice", async () => {
    const store = makeStore()
    const asker = await askPending(store, "crash-1")
    const yesFile = store.file("yes.json", yes)
    let status = "pending"
    // Kill answerers at growing delays across their start-up and their write.
    for (let delay = 200; delay <= 2600 && status === "pending"; delay += 300) {
      const answerer = start(["answer", "--store", store.url, "crash-1", yesFile])
      answerer.child.stdin!.end()
      await new Promise((resolve) => setTimeout(resolve, delay))
      await killHard(answerer)
      status = (await untilStatus(store, "crash-1", (s) => s === "pending" || s === "answered")).status
    }
    if (status === "pending") {
      expect((await run(["answer", "--store", store.url, "crash-1", yesFile])).code).toBe(0)
    }
    expect(await asker.exited).toBe(0)
    expect(asker.stdout().trim().split("\n")).toEqual([JSON.stringify(yes)])
    expect((await run(["answer", "--store", store.url, "crash-1", yesFile])).code).toBe(5)
  }, 120_000)

  it("inbox --web serves the durable ask in the web page's API; answering it there reaches the asker", async () => {
    const store = makeStore()
    const inbox = start(["inbox", "--web", "--store", store.url, "--token", "tok"])
    await inbox.stderrContains("Answer at")
    const base = /Answer at (http:\/\/127\.0\.0\.1:\d+)/.exec(inbox.stderr())![1]!
    const headers = { authorization: "Bearer tok", "content-type": "application/json" }
    const asker = ask(store, "web-1")
    let pending: Array<{ id: string; request: { questions: Array<{ question: string }> } }> = []
    while (pending.length === 0) {
      pending = (await (await fetch(`${base}/api/questions`, { headers })).json()).pending
      if (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 150))
    }
    expect(pending[0]!.request.questions[0]!.question).toBe("Ship it?")
    const posted = await fetch(`${base}/api/questions/${pending[0]!.id}/answer`, {
      method: "POST",
      headers,
      body: JSON.stringify({ answers: [{ id: "q", selected: ["No"] }] })
    })
    expect(posted.status).toBe(200)
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: ["No"] }] })
    inbox.child.kill("SIGTERM")
    await inbox.exited
  }, 90_000)

  it("two answerers at once: one outcome recorded, the other refused with exit 5", async () => {
    const store = makeStore()
    const id = "race-2"
    const asker = ask(store, id)
    await untilStatus(store, id, (status) => status === "pending", asker)
    const [a, b] = await Promise.all([
      run(["answer", "--store", store.url, id, store.file("yes.json", yes)]),
      run(["answer", "--store", store.url, id, store.file("no.json", no)])
    ])
    expect([a.code, b.code].sort()).toEqual([0, 5])
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(a.code === 0 ? yes : no)
  }, 120_000)
}
