/**
 * `ask-user`'s durable commands and the input that used to poison a store or
 * wait for nothing (SQLite files): an expiry past the maximum and a store URL
 * that names no database are usage errors; a row that cannot be read is
 * skipped with a warning instead of failing every listing; an ask id reused
 * with other questions is refused; a rule-breaking answer is INVALID_ANSWER
 * (exit 2), unknown keys included; a broken stdout ends quietly or in one line.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { runWithBrokenStdout, start } from "./cliHarness.js"
import { askPending, killHard, makeStore, request, run, untilStatus } from "./support/durableCli.js"

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }
const day = 86_400_000

/** One usage line and the hint, nothing on stdout, exit 2. */
const expectUsageError = (result: { code: number; stdout: string; stderr: string }, start: string) => {
  expect(result.code).toBe(2)
  expect(result.stdout).toBe("")
  const lines = result.stderr.trimEnd().split("\n")
  expect(lines).toHaveLength(2)
  expect(lines[0]).toMatch(new RegExp(`^ask-user: ${start.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`))
}

describe("ask-user durable commands refuse what cannot work", () => {
  it("--expires past 3650 days is a usage error and creates nothing; 3650 days is stored with its deadline", async () => {
    const store = makeStore()
    for (const value of ["99999999999h", "99999999 days", "3651d"]) {
      const result = await run(["--durable", "--store", store.url, "--ask-id", "big", "--expires", value, store.requestFile])
      expectUsageError(result, `--expires "${value}" is not valid: expected a duration of at most 3650 days`)
    }
    expect(existsSync(join(store.dir, "asks.db"))).toBe(false)

    const asker = await askPending(store, "ten-years", "--expires", "3650d")
    const listed = JSON.parse((await run(["pending", "--store", store.url])).stdout.trim())
    expect(Date.parse(listed.expiresAt) - Date.parse(listed.askedAt)).toBe(3650 * day)
    expect((await run(["cancel", "--store", store.url, "ten-years"])).code).toBe(0)
    expect(await asker.exited).toBe(3)
  }, 90_000)

  it("an --ask-id of 201 characters is a usage error that says what an id may be", async () => {
    const store = makeStore()
    const long = "x".repeat(201)
    expectUsageError(
      await run(["--durable", "--store", store.url, "--ask-id", long, store.requestFile]),
      `--ask-id "${long}" is not valid: expected an id of 1 to 200 characters.`
    )
  })

  it("a store URL naming no database is a usage error, from --store or ASK_USER_STORE", async () => {
    const store = makeStore()
    for (const url of ["sqlite:", "sqlite:  ", "sqlite://", "postgres://", "postgresql://", " "]) {
      expectUsageError(
        await run(["--durable", "--store", url, "--ask-id", "e", store.requestFile]),
        `--store ${JSON.stringify(url)} is not valid`
      )
      expectUsageError(await run(["pending", "--store", url]), `--store ${JSON.stringify(url)} is not valid`)
    }
    const fromEnv = start(["pending"], { env: { ASK_USER_STORE: "sqlite:" } })
    fromEnv.child.stdin!.end()
    expect(await fromEnv.exited).toBe(2)
    expect(fromEnv.stdout()).toBe("")
    expect(fromEnv.stderr()).toMatch(/^ask-user: INVALID_REQUEST: .*"sqlite:".* It comes from \$ASK_USER_STORE\.\n$/)
    // Commands that open the store at once say so too.
    const status = start(["status", "some-id"], { env: { ASK_USER_STORE: "garbage" } })
    status.child.stdin!.end()
    expect(await status.exited).toBe(2)
    expect(status.stderr()).toMatch(/^ask-user: INVALID_REQUEST: .*"garbage".* It comes from \$ASK_USER_STORE\.\n$/)
  }, 90_000)
})

describe("ask-user inbox in line mode", () => {
  it("records the answers piped to it, then ends PROVIDER_CLOSED (exit 1) once its input has ended", async () => {
    const store = makeStore()
    const first = await askPending(store, "eof-1")
    const second = await askPending(store, "eof-2")
    // One answer, and the input ends at once: the answer must not be lost to the end.
    const inbox = start(["inbox", "--store", store.url, "--no-bell"])
    inbox.child.stdin!.end("1\n")
    expect(await inbox.exited).toBe(1)
    expect(inbox.stderr()).toContain("PROVIDER_CLOSED: Input ended")
    expect(await first.exited).toBe(0)
    expect(JSON.parse(first.stdout())).toEqual(yes)
    expect(JSON.parse((await run(["status", "--store", store.url, "eof-2"])).stdout)).toEqual({ id: "eof-2", status: "pending" })
    await killHard(second)
  }, 60_000)
})

describe("ask-user durable commands and a store URL's password", () => {
  it("never show it: a server that cannot be reached, or a URL of an unsupported kind", async () => {
    const unreachable = await run(["pending", "--store", "postgres://agent:s3cret@127.0.0.1:1/asks"])
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toContain("Cannot open the durable store postgres://agent:***@127.0.0.1:1/asks")
    // Why, in the system's own words: nothing listens there.
    expect(unreachable.stderr).toContain("ECONNREFUSED")
    const unsupported = await run(["pending", "--store", "mysql://agent:s3cret@h/asks"])
    expect(unsupported.code).toBe(2)
    expect(unsupported.stderr).toContain("mysql://agent:***@h/asks")
    const inQuery = await run(["pending", "--store", "postgres://agent@127.0.0.1:1/asks?password=s3cret"])
    expect(inQuery.stderr).toContain("postgres://agent@127.0.0.1:1/asks?password=***")
    expect(unreachable.stderr + unsupported.stderr + inQuery.stderr).not.toContain("s3cret")
  }, 60_000)
})

describe("ask-user --durable with a store folder that cannot be made", () => {
  it("fails like any store that cannot be opened: PROVIDER_FAILED naming the store and why, exit 1", async () => {
    // Even root cannot make a folder under a file.
    const child = start(["--durable", "--ask-id", "nowhere", makeStore().requestFile], { env: { XDG_STATE_HOME: "/dev/null/state" } })
    child.child.stdin!.end()
    expect(await child.exited).toBe(1)
    const stderr = child.stderr()
    expect(stderr).toContain("PROVIDER_FAILED: Cannot open the durable store sqlite:/dev/null/state/ask-user/asks.db")
    expect(stderr).toContain("ENOTDIR")
    expect(stderr.trimEnd().split("\n")).toHaveLength(1)
  }, 60_000)
})

describe("ask-user durable commands with rows they cannot read", () => {
  it("pending skips them with one warning line each; status names the ask; inbox still serves the rest", async () => {
    const store = makeStore()
    const asker = await askPending(store, "good")
    // Rows an older version, a bug or a hand edit could leave behind.
    const db = new DatabaseSync(join(store.dir, "asks.db"))
    const insert = db.prepare(
      "INSERT INTO ask_user_asks (id, execution_id, request, asked_at, expires_at, status) VALUES (?, 'x', ?, ?, ?, 'pending')"
    )
    const json = JSON.stringify(request)
    insert.run("big", json, Date.now(), 360001796305577408n)
    insert.run("undated", json, Date.now(), 8_640_000_000_000_001)
    insert.run("junk", "not json", Date.now(), null)
    db.prepare("INSERT INTO ask_user_asks (id, execution_id, request, asked_at, status) VALUES ('bogus', 'x', ?, ?, 'bogus')")
      .run(json, Date.now())
    db.close()

    const listed = await run(["pending", "--store", store.url])
    expect(listed.code).toBe(0)
    expect(listed.stdout.trim().split("\n").map((line) => JSON.parse(line).id)).toEqual(["good"])
    const warnings = listed.stderr.trimEnd().split("\n")
    expect(warnings).toHaveLength(3)
    for (const id of ["big", "undated", "junk"]) {
      expect(warnings.some((line) => line.startsWith(`ask-user: warning: skipped the ask "${id}": `))).toBe(true)
    }

    const status = await run(["status", "--store", store.url, "big"])
    expect(status.code).toBe(1)
    expect(status.stderr).toMatch(/^ask-user: .*"big" cannot be read.*\n$/)
    expect((await run(["status", "--store", store.url, "good"])).stdout).toContain("\"pending\"")
    // A status no version writes is not passed on as one, nor read as an outcome.
    const bogus = await run(["status", "--store", store.url, "bogus"])
    expect([bogus.code, bogus.stdout]).toEqual([1, ""])
    expect(bogus.stderr).toContain('The ask "bogus" cannot be read from the store: its status cannot be read ("bogus" is not a status).')
    const rerun = await run(["--durable", "--store", store.url, "--ask-id", "bogus", store.requestFile])
    expect(rerun.code).toBe(1)
    expect(rerun.stderr).toContain("is not a status")

    const inbox = start(["inbox", "--store", store.url, "--no-bell"])
    await inbox.stderrContains("Ship it?")
    expect(inbox.stderr()).toContain("ask-user: warning: skipped the ask \"big\": ")
    inbox.child.stdin!.write("1\n")
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(yes)
    inbox.child.kill("SIGTERM")
    await inbox.exited
  }, 90_000)
})

describe("ask-user durable ids and answers", () => {
  it("an --ask-id reused with other questions is refused (exit 2), pending or settled; the same questions join", async () => {
    const store = makeStore()
    const other = store.file("other.json", { questions: [{ id: "db", question: "Which database?" }] })
    const sameWithAgent = store.file("agent.json", { ...request, agent: { id: "session-2" } })
    const asker = await askPending(store, "reuse")

    const refused = await run(["--durable", "--store", store.url, "--ask-id", "reuse", other])
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe("")
    expect(refused.stderr).toMatch(/^ask-user: INVALID_REQUEST: The ask "reuse" was asked with other questions[^\n]*\n$/)

    // Another agent session asking the same questions joins the pending ask.
    const joiner = start(["--durable", "--store", store.url, "--ask-id", "reuse", sameWithAgent])
    joiner.child.stdin!.end()
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect((await run(["answer", "--store", store.url, "reuse", store.file("yes.json", yes)])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(await joiner.exited).toBe(0)
    expect(JSON.parse(joiner.stdout())).toEqual(yes)

    const late = await run(["--durable", "--store", store.url, "--ask-id", "reuse", other])
    expect(late.code).toBe(2)
    expect(late.stderr).toContain("INVALID_REQUEST")
    const again = await run(["--durable", "--store", store.url, "--ask-id", "reuse", store.requestFile])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual(yes)
  }, 90_000)

  it("answer: a rule-breaking answer is INVALID_ANSWER, exit 2; an unknown key is refused like an unknown id", async () => {
    const store = makeStore()
    const twoQuestions = store.file("yn.json", {
      questions: [{ id: "go", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }, { id: "why", question: "Why?" }]
    })
    const asker = start(["--durable", "--store", store.url, "--ask-id", "yn", twoQuestions])
    asker.child.stdin!.end()
    await untilStatus(store, "yn", (status) => status === "pending", asker)
    const unknown = "ask-user: INVALID_ANSWER: The answer breaks the answer rules: \"zzz\" is not a question of the request.\n"
    const files = {
      keyed: store.file("keyed.json", { go: "Yes", why: "ok", zzz: "extra" }),
      json: store.file("json.json", {
        answers: [{ id: "go", selected: ["Yes"] }, { id: "why", selected: [], custom: "ok" }, { id: "zzz", selected: [] }]
      }),
      label: store.file("label.json", { go: ["Maybe"], why: "ok" })
    }
    expect(await run(["answer", "--store", store.url, "yn", files.keyed])).toEqual({ code: 2, stdout: "", stderr: unknown })
    expect(await run(["answer", "--store", store.url, "yn", files.json])).toEqual({ code: 2, stdout: "", stderr: unknown })
    const label = await run(["answer", "--store", store.url, "yn", files.label])
    expect(label.code).toBe(2)
    expect(label.stderr).toMatch(/^ask-user: INVALID_ANSWER: [^\n]*Maybe[^\n]*\n$/)
    expect((await run(["status", "--store", store.url, "yn"])).stdout).toContain("\"pending\"")

    // pending and status to a broken stdout.
    expect(await runWithBrokenStdout(["pending", "--store", store.url], "full")).toEqual({
      code: 1,
      stderr: "ask-user: cannot write the pending asks: ENOSPC: no space left on device, write\n"
    })
    expect(await runWithBrokenStdout(["status", "--store", store.url, "yn"], "closed")).toEqual({ code: 141, stderr: "" })
    await killHard(asker)
  }, 90_000)
})
