/**
 * `ask-user` with the second edition's fields, as a user runs it (the built
 * program, no terminal): a secret answered from `--answers` is printed on
 * stdout in the answer JSON and nowhere else; a request's own timeout with
 * onTimeout "recommended" exits 0 with `defaulted: true`, with "fail" exits 4
 * saying nobody answered; a durable ask refuses a secret; `ask-user answer`
 * says on stderr when a keyed string was taken as Other text.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { type Run, runWith, start, tempFiles } from "./cliHarness.js"
import { makeStore, run as runDurable, untilStatus } from "./support/durableCli.js"

const value = "tok-§-0123456789abcdef"

const files = tempFiles({
  "secret.json": {
    questions: [
      { id: "user", question: "User name?" },
      { id: "token", question: "Deploy token?", secret: true },
      { id: "go", question: "Deploy now?", options: [{ label: "Yes" }, { label: "No" }] }
    ]
  },
  "secret-keyed.json": { user: "ana", token: value, go: "yes" },
  "secret-printed.json": {
    answers: [{ id: "user", selected: [] }, { id: "token", selected: [], secret: value }, { id: "go", selected: ["No"] }]
  },
  "late-recommended.json": {
    questions: [
      { id: "go", question: "Deploy now?", options: [{ label: "Yes" }, { label: "No (Recommended)" }] },
      { id: "why", question: "Why?" }
    ],
    timeout: "1s",
    on_timeout: "recommended"
  },
  "late-fail.json": {
    questions: [{ id: "go", question: "Deploy now?", options: [{ label: "Yes", recommended: true }, { label: "No" }] }],
    timeout: "1s"
  },
  "bad-fields.json": {
    questions: [{ id: "token", question: "Token?", secret: true, options: [{ label: "a" }] }]
  }
})

const running = new Set<Run>()
afterEach(() => {
  for (const run of running) if (run.child.exitCode === null) process.kill(-run.child.pid!, "SIGKILL")
  running.clear()
})
const track = (run: Run) => (running.add(run), run)

describe("ask-user and the second edition's fields", { timeout: 90_000 }, () => {
  it("--answers answers a secret (keyed: a string is its secret; or the printed JSON): stdout holds it, stderr never", async () => {
    for (const answers of ["secret-keyed.json", "secret-printed.json"]) {
      const result = await runWith([files["secret.json"]!, "--answers", files[answers]!])
      expect(result.code).toBe(0)
      expect(result.stderr).not.toContain(value)
      const printed = JSON.parse(result.stdout)
      expect(printed.answers[1]).toEqual({ id: "token", selected: [], secret: value })
    }
    // The keyed label matched without regard to case.
    const keyed = await runWith([files["secret.json"]!, "--answers", files["secret-keyed.json"]!])
    expect(JSON.parse(keyed.stdout)).toEqual({
      answers: [{ id: "user", selected: [], custom: "ana" }, { id: "token", selected: [], secret: value }, { id: "go", selected: ["Yes"] }]
    })
  })

  it("a request's own timeout with on_timeout \"recommended\": exit 0, the recommended options, defaulted: true", async () => {
    // Nobody answers: line mode waits on stdin, which the test keeps open.
    const run = track(start([files["late-recommended.json"]!]))
    expect(await run.exited).toBe(0)
    expect(JSON.parse(run.stdout())).toEqual({
      answers: [{ id: "go", selected: ["No (Recommended)"] }, { id: "why", selected: [] }],
      defaulted: true
    })
  })

  it("a request's own timeout, onTimeout \"fail\" by default: exit 4, saying nobody answered and nothing was agreed to", async () => {
    const run = track(start([files["late-fail.json"]!]))
    expect(await run.exited).toBe(4)
    expect(run.stdout()).toBe("")
    expect(run.stderr()).toContain("ASK_TIMEOUT: No answer arrived within 1s: nobody answered, so nothing was agreed to.")
  })

  it("a field that breaks its rule exits 2 naming the path", async () => {
    const result = await runWith([files["bad-fields.json"]!])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("questions[0].secret: a secret question cannot have options")
  })

  it("--durable refuses a secret question: exit 2, nothing stored", async () => {
    const store = makeStore()
    const result = await runWith(["--durable", "--store", store.url, "--ask-id", "s1", files["secret.json"]!])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("a secret cannot be kept in the store")
    expect((await runDurable(["pending", "--store", store.url])).stdout).toBe("")
  })

  it("ask-user answer: a keyed string that names no option is recorded as Other text, and stderr says so", async () => {
    const store = makeStore()
    const asker = track(start(["--durable", "--store", store.url, "--ask-id", "k1", store.requestFile]))
    asker.child.stdin!.end()
    await untilStatus(store, "k1", (status) => status === "pending", asker)
    const recorded = await runDurable(["answer", "--store", store.url, "k1", store.file("nope.json", { q: "Nope" })])
    expect(recorded.code).toBe(0)
    expect(recorded.stderr).toBe("ask-user: recorded \"Nope\" as Other text for question q: no option has that label\n")
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual({ answers: [{ id: "q", selected: [], custom: "Nope" }] })

    // A label in another case picks the option, without a word.
    const second = track(start(["--durable", "--store", store.url, "--ask-id", "k2", store.requestFile]))
    second.child.stdin!.end()
    await untilStatus(store, "k2", (status) => status === "pending", second)
    const picked = await runDurable(["answer", "--store", store.url, "k2", store.file("yes.json", { q: "yes" })])
    expect(picked).toMatchObject({ code: 0, stderr: "" })
    expect(await second.exited).toBe(0)
    expect(JSON.parse(second.stdout())).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
  })
})
