import { readFileSync } from "node:fs"
import { hostname, userInfo } from "node:os"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { hostile } from "./terminalCorpus.js"
import { type Run, runWith, start, tempFiles } from "./cliHarness.js"
import { unsafeChars } from "./terminalHarness.js"
import { askPending, makeStore, run as runDurable } from "./support/durableCli.js"

const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }

const request = {
  agent: { id: "planner", name: "Planner" },
  questions: [
    { id: "db", header: "Storage", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
    { id: "features", question: "Which features?", multi_select: true, options: [{ label: "auth" }, { label: "billing" }, { label: "search" }] },
    { id: "name", question: "Project name?" }
  ]
}

const files = tempFiles({
  "request.json": request,
  "invalid.json": { questions: [{ id: "db", question: "Which?", options: [{ label: "" }] }] },
  "not-json.json": "{ questions: ",
  "answers.json": { db: "SQLite", features: ["auth", "search"], name: "atlas" },
  "answers-missing.json": { db: "SQLite" },
  "answers-bad.json": { db: 42 },
  "answers-extra.json": { db: "SQLite", features: ["auth"], name: "atlas", zzz: "extra" },
  "answers-json-extra.json": {
    answers: [
      { id: "db", selected: ["SQLite"] },
      { id: "features", selected: [] },
      { id: "name", selected: [], custom: "atlas" },
      { id: "zzz", selected: [] }
    ]
  },
  "demo-answers.json": { database: "SQLite", features: ["Audit log"], name: { custom: "ledger" } },
  "hostile.json": {
    agent: { id: "x", name: hostile[0] },
    questions: hostile.map((text, i) => ({ id: `q${i}`, header: text, question: text, options: [{ label: text, description: text }] }))
  }
})

// Every sequence of the corpus at once: one run per diagnostic path is enough to see them all.
const hostileText = hostile.join(" | ")
// A command-line argument cannot hold NUL; everything else of the corpus goes in.
const hostileArg = hostileText.replaceAll("\x00", "")
const hostileFiles = tempFiles({
  "repeated-id.json": { questions: [{ id: hostileText, question: "A?" }, { id: hostileText, question: "B?" }] },
  "repeated-label.json": { questions: [{ id: "q", question: "A?", options: [{ label: hostileText }, { label: hostileText }] }] },
  "bad-value.json": { questions: [{ id: "q", question: "A?", multi_select: hostileText }] },
  "not-json.json": `{ "questions": [${hostileText}`,
  "one.json": { questions: [{ id: hostileText, question: "A?", options: [{ label: hostileText }, { label: "b" }] }] },
  "answers-none.json": {},
  "answers-two.json": { [hostileText]: [hostileText, "b"] },
  "answers-unknown-label.json": { [hostileText]: { selected: [`not ${hostileText}`] } },
  "answers-bad-key.json": { [hostileText]: 42 },
  "answers-bad-item.json": { answers: [{ id: hostileText, selected: [hostileText], custom: 42 }] },
  "answers-not-json.json": `{ "${hostileText}`
})

const running = new Set<Run>()
afterEach(() => {
  for (const run of running) if (run.child.exitCode === null) process.kill(-run.child.pid!, "SIGKILL")
  running.clear()
})
const track = (run: Run) => (running.add(run), run)

// Generous bound: each case starts the program, and the machine may be busy.
describe("ask-user, without a terminal", { timeout: 90_000 }, () => {
  it("--help and --version print on stdout and exit 0", async () => {
    const help = await runWith(["--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--timeout")
    expect(help.stdout).toContain("demo")
    const version = await runWith(["--version"])
    expect(version.code).toBe(0)
    expect(version.stdout).toBe(`ask-user v${packageJson.version}\n`)
  })

  it("line mode: questions on stderr, hints after bad input, the answer JSON alone on stdout, exit 0", async () => {
    const result = await runWith([files["request.json"]!], "\n7\n2\n4\n1 3\natlas\n")
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [
        { id: "db", selected: ["SQLite"] },
        { id: "features", selected: ["auth", "search"] },
        { id: "name", selected: [], custom: "atlas" }
      ]
    })
    expect(result.stdout.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("1. Postgres")
    expect(result.stderr).toContain("Question 3 of 3")
    expect(result.stderr).toContain("Nothing typed · 1-2 or a label chooses")
    expect(result.stderr).toContain("There is no option 7")
    expect(result.stderr).toContain("There is no option 4")
  })

  it("line mode: ! cancels the request with exit 3", async () => {
    const result = await runWith([files["request.json"]!], "2\n!\n")
    expect(result.code).toBe(3)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("ASK_CANCELLED")
  })

  it("input that ends before an answer exits 1 with PROVIDER_CLOSED on stderr", async () => {
    const result = await runWith([files["request.json"]!], "1\n")
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("PROVIDER_CLOSED")
  })

  it("a request on stdin with no terminal to ask on exits 1 (PROVIDER_CLOSED), without showing a question it cannot ask", async () => {
    const result = await runWith([], JSON.stringify(request))
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("PROVIDER_CLOSED")
    expect(result.stderr).toContain("There is no terminal to ask on")
    expect(result.stderr).not.toContain(request.questions[0]!.question)
  })

  it("an invalid request exits 2 naming the path, and asks nothing", async () => {
    const invalid = await runWith([files["invalid.json"]!])
    expect(invalid.code).toBe(2)
    expect(invalid.stdout).toBe("")
    expect(invalid.stderr).toContain("INVALID_REQUEST")
    expect(invalid.stderr).toContain("questions[0].options[0].label")
    expect(invalid.stderr).not.toContain("Which?")
    expect((await runWith([files["not-json.json"]!])).code).toBe(2)
    const empty = await runWith([], "{\"questions\": []}")
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain("EMPTY_QUESTIONS")
  })

  it("--answers answers from a file (labels, several labels, free text), no terminal needed", async () => {
    const result = await runWith([files["request.json"]!, "--answers", files["answers.json"]!])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [
        { id: "db", selected: ["SQLite"] },
        { id: "features", selected: ["auth", "search"] },
        { id: "name", selected: [], custom: "atlas" }
      ]
    })
    const missing = await runWith([files["request.json"]!, "--answers", files["answers-missing.json"]!])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("no answer for question \"features\"")
    const bad = await runWith([files["request.json"]!, "--answers", files["answers-bad.json"]!])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("db")
  })

  it("FILE \"-\" reads the request from stdin", async () => {
    const result = await runWith(["--answers", files["answers.json"]!, "-"], JSON.stringify(request))
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).answers[0]).toEqual({ id: "db", selected: ["SQLite"] })
  })

  it("--answers: a key or id that is not a question of the request breaks the answer rules, in either form", async () => {
    for (const file of ["answers-extra.json", "answers-json-extra.json"]) {
      const result = await runWith([files["request.json"]!, "--answers", files[file]!])
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: "ask-user: INVALID_ANSWER: The answer breaks the answer rules: \"zzz\" is not a question of the request.\n"
      })
    }
  })

  it("the request may come on stdin with --answers, in either multiSelect casing", async () => {
    const camel = { questions: request.questions.map(({ multi_select, ...q }) => multi_select ? { ...q, multiSelect: true } : q) }
    const result = await runWith(["--answers", files["answers.json"]!], JSON.stringify(camel))
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).answers[1].selected).toEqual(["auth", "search"])
  })

  it("--timeout: no answer in time exits 4; a bad duration exits 2", async () => {
    const run = track(start([files["request.json"]!, "--timeout", "1s"]))
    const code = await run.exited
    expect(code).toBe(4)
    expect(run.stderr()).toContain("ASK_TIMEOUT")
    const bad = await runWith([files["request.json"]!, "--timeout", "soon"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--timeout \"soon\" is not valid")
  })

  it("SIGINT while waiting for an answer exits 130", async () => {
    const run = track(start([files["request.json"]!]))
    await run.stderrContains("Which database?")
    run.child.kill("SIGINT")
    expect(await run.exited).toBe(130)
    expect(run.stdout()).toBe("")
  })

  it("demo with --answers prints the answer JSON on stdout and a summary on stderr", async () => {
    const result = await runWith(["demo", "--answers", files["demo-answers.json"]!])
    expect(result.code).toBe(0)
    // What the model receives: the person running the command answered, from their file.
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [
        { id: "database", selected: ["SQLite"] },
        { id: "features", selected: ["Audit log"] },
        { id: "name", selected: [], custom: "ledger" }
      ],
      answeredBy: `os:${userInfo().username}@${hostname()} (scripted)`
    })
    expect(result.stderr).toContain("demo agent: database = SQLite")
  })

  it("hostile model text reaches stderr inert in line mode, and the answer JSON on stdout too", async () => {
    const result = await runWith([files["hostile.json"]!], hostile.map(() => "1\n").join(""))
    expect(result.code).toBe(0)
    expect(result.stderr).not.toMatch(unsafeChars)
    // The labels come back unchanged, their C1 controls and BiDi overrides as JSON escapes.
    expect(result.stdout).not.toMatch(unsafeChars)
    expect(JSON.parse(result.stdout).answers.map((a: { selected: Array<string> }) => a.selected[0])).toEqual(hostile)
  })

  it("every diagnostic that quotes the request, the answers file or the command line is inert", async () => {
    const f = hostileFiles
    const runs: ReadonlyArray<readonly [string, ReadonlyArray<string>, number]> = [
      ["repeated question id", [f["repeated-id.json"]!], 2],
      ["repeated label", [f["repeated-label.json"]!], 2],
      ["value that does not decode", [f["bad-value.json"]!], 2],
      ["request that is not JSON", [f["not-json.json"]!], 2],
      ["question missing from --answers", [f["one.json"]!, "--answers", f["answers-none.json"]!], 1],
      ["INVALID_ANSWER: two labels", [f["one.json"]!, "--answers", f["answers-two.json"]!], 1],
      ["INVALID_ANSWER: not an option", [f["one.json"]!, "--answers", f["answers-unknown-label.json"]!], 1],
      ["bad key in the answers file", [f["one.json"]!, "--answers", f["answers-bad-key.json"]!], 2],
      ["bad item in answer JSON", [f["one.json"]!, "--answers", f["answers-bad-item.json"]!], 2],
      ["answers file that is not JSON", [f["one.json"]!, "--answers", f["answers-not-json.json"]!], 2],
      ["bad --timeout value", [f["one.json"]!, "--timeout", hostileArg], 2],
      ["unknown flag", [`--${hostileArg}`], 2],
      ["unexpected argument", [f["one.json"]!, hostileArg], 2]
    ]
    const results = await Promise.all(runs.map(([, args]) => runWith(args)))
    runs.forEach(([what, , code], i) => {
      const result = results[i]!
      expect({ what, code: result.code }).toEqual({ what, code })
      expect(result.stdout).toBe("")
      expect(result.stderr.length, what).toBeGreaterThan(0)
      expect(result.stderr, what).not.toMatch(unsafeChars)
    })
    // The quoted text is still there for a person to read, as visible escapes.
    expect(results[0]!.stderr).toContain("\\x1b]52;c;")
    expect(results[0]!.stderr).toContain("ye\\u200bs")
    // A bad flag value is quoted in the same escapes as every other message, not JSON's \u001b.
    expect(results[10]!.stderr).toContain("--timeout \"\\x1b")
    expect(results[10]!.stderr).not.toContain("\\u001b")
  })

  it("a usage error prints one line and a hint on stderr, nothing on stdout, exit 2, in every mode", async () => {
    const cases = [
      ["--bogus"],
      ["--timeout", "banana", files["request.json"]!],
      ["mcp", "--bogus"],
      ["acp", "--timeout", "banana"],
      ["demo", "--nope"],
      // A flag that would do nothing (flagRules.ts): no page would open, nothing would be asked.
      ["--durable", "--web", files["request.json"]!],
      ["--port", "8080", files["request.json"]!],
      ["inbox", "--port", "8080"]
    ]
    const results = await Promise.all(cases.map((args) => runWith(args)))
    results.forEach((result, i) => {
      expect({ args: cases[i], code: result.code, stdout: result.stdout }).toEqual({ args: cases[i], code: 2, stdout: "" })
      const lines = result.stderr.trimEnd().split("\n")
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^ask-user: /)
      expect(lines[1]).toMatch(/^Try 'ask-user( \w+)? --help'\.$/)
    })
    expect(results[1]!.stderr.split("\n")[0]).toBe(
      "ask-user: --timeout \"banana\" is not valid: expected a duration longer than zero, such as 30s, 5m, 1h or \"5 minutes\"."
    )
    expect(results[2]!.stderr).toContain("Try 'ask-user mcp --help'.")
    expect(results[5]!.stderr).toContain("ask-user: --web does not apply with --durable")
    expect(results[6]!.stderr).toContain("ask-user: --port only applies with --web.")
    expect(results[7]!.stderr).toBe("ask-user: --port only applies with --web.\nTry 'ask-user inbox --help'.\n")
  })

  it("the usage line does not make the subcommand look required", async () => {
    const help = await runWith(["--help"])
    expect(help.stdout).toContain("ask-user [flags] [<file>]\n  ask-user <subcommand> [flags]")
    expect(help.stdout).not.toContain("ask-user <subcommand> [flags] [<file>]")
  })

  it("SIGTERM, SIGHUP and SIGQUIT in line mode exit 128 + n", async () => {
    const signals = [["SIGTERM", 143], ["SIGHUP", 129], ["SIGQUIT", 131], ["SIGINT", 130]] as const
    await Promise.all(signals.map(async ([signal, code]) => {
      const run = track(start([files["request.json"]!]))
      await run.stderrContains("Which database?")
      run.child.kill(signal)
      expect({ signal, code: await run.exited }).toEqual({ signal, code })
      expect(run.stdout()).toBe("")
    }))
  })

  it("a byte-order mark at the start of the request and the answers file is accepted", async () => {
    const bom = tempFiles({
      "request.json": `\ufeff${JSON.stringify(request)}`,
      "answers.json": `\ufeff${JSON.stringify({ db: "SQLite", features: ["auth"], name: "atlas" })}`
    })
    const result = await runWith([bom["request.json"]!, "--answers", bom["answers.json"]!])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).answers[0]).toEqual({ id: "db", selected: ["SQLite"] })
  })

  it("--answers replays the answer JSON ask-user printed; a question named answers still works", async () => {
    const first = await runWith([files["request.json"]!, "--answers", files["answers.json"]!])
    const recorded = tempFiles({ "recorded.json": first.stdout })
    const replay = await runWith([files["request.json"]!, "--answers", recorded["recorded.json"]!])
    expect(replay.code).toBe(0)
    expect(replay.stdout).toBe(first.stdout)
    const named = tempFiles({
      "request.json": { questions: [{ id: "answers", question: "Which?", multi_select: true, options: [{ label: "a" }, { label: "b" }] }] },
      "labels.json": { answers: ["a", "b"] },
      "label.json": { answers: "b" }
    })
    const labels = await runWith([named["request.json"]!, "--answers", named["labels.json"]!])
    expect(JSON.parse(labels.stdout)).toEqual({ answers: [{ id: "answers", selected: ["a", "b"] }] })
    const label = await runWith([named["request.json"]!, "--answers", named["label.json"]!])
    expect(JSON.parse(label.stdout)).toEqual({ answers: [{ id: "answers", selected: ["b"] }] })
  })
})

describe("ask-user --receipt", { timeout: 90_000 }, () => {
  // Computed from the system here, as SPEC words it, not with the program's own helper.
  const me = `os:${userInfo().username}@${hostname()}`
  const receiptFiles = tempFiles({
    "ana-only.json": { ...request, answerableBy: ["os:nobody-but-ana@*"] },
    "mine.json": { ...request, answerableBy: [`os:${userInfo().username}@*`] }
  })

  /** The printed answer's receipt, its times checked to be ISO 8601 within the run. */
  const receiptOf = (stdout: string, before: number, after: number) => {
    expect(stdout.trim().split("\n")).toHaveLength(1)
    const printed = JSON.parse(stdout) as { answers: unknown; receipt: { at: string; millis: number } }
    expect(Object.keys(printed)).toEqual(["answers", "receipt"])
    const at = Date.parse(printed.receipt.at)
    expect(new Date(at).toISOString()).toBe(printed.receipt.at)
    expect(at).toBeGreaterThanOrEqual(before)
    expect(at).toBeLessThanOrEqual(after)
    expect(printed.receipt.millis).toBeGreaterThanOrEqual(0)
    return printed.receipt
  }

  it("--answers: the person running the command answered, as os:<user>@<host>; the output replays as an answers file", async () => {
    const before = Date.now()
    const result = await runWith([files["request.json"]!, "--answers", files["answers.json"]!, "--receipt"])
    expect(result.code).toBe(0)
    const receipt = receiptOf(result.stdout, before, Date.now())
    expect(receipt).toEqual({ surface: "scripted", by: { id: me }, at: expect.any(String), millis: expect.any(Number) })
    expect(JSON.parse(result.stdout).answers).toEqual([
      { id: "db", selected: ["SQLite"] },
      { id: "features", selected: ["auth", "search"] },
      { id: "name", selected: [], custom: "atlas" }
    ])
    // Without --receipt, the same answer JSON as ever; and a receipt in a replayed file is ignored.
    const recorded = tempFiles({ "recorded.json": result.stdout })
    const replay = await runWith([files["request.json"]!, "--answers", recorded["recorded.json"]!])
    expect(replay.code).toBe(0)
    expect(JSON.parse(replay.stdout)).toEqual({ answers: JSON.parse(result.stdout).answers })
  })

  it("--durable: the answer recorded by another process is printed with the seam's receipt (surface durable)", async () => {
    const store = makeStore()
    const before = Date.now()
    const asker = await askPending(store, "receipt-1", "--receipt")
    const answerFile = store.file("answer.json", { q: "Yes" })
    expect((await runDurable(["answer", "--store", store.url, "receipt-1", answerFile])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    const receipt = receiptOf(asker.stdout(), before, Date.now())
    expect(receipt).toMatchObject({ surface: "durable" })
    expect(JSON.parse(asker.stdout()).answers).toEqual([{ id: "q", selected: ["Yes"] }])
  })

  it("line mode: the terminal's receipt names the account; an ask it may not answer exits 7 before any question", async () => {
    const before = Date.now()
    const result = await runWith([receiptFiles["mine.json"]!, "--receipt"], "2\n1 3\natlas\n")
    expect(result.code).toBe(0)
    expect(receiptOf(result.stdout, before, Date.now())).toMatchObject({ surface: "terminal", by: { id: me } })

    const refused = await runWith([receiptFiles["ana-only.json"]!, "--receipt"], "2\n1 3\natlas\n")
    expect(refused.code).toBe(7)
    expect(refused.stdout).toBe("")
    expect(refused.stderr).toContain("NOT_AUTHORIZED")
    expect(refused.stderr).toContain(`Only os:nobody-but-ana@* may settle this ask; ${me} may not.`)
    expect(refused.stderr).not.toContain("Which database?")
    const byFile = await runWith([receiptFiles["ana-only.json"]!, "--answers", files["answers.json"]!])
    expect(byFile.code).toBe(7)
    expect(byFile.stdout).toBe("")
  })
})
