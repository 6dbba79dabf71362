/**
 * `ask-user` writing to a broken stdout: a reader that has gone (EPIPE) ends
 * the program quietly with 141, as a Unix tool killed by SIGPIPE would; any
 * other write error (a full disk) is one line on stderr and exit 1. No stack
 * trace either way. The durable commands' output is covered in
 * `test/durableCliInput.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { runWithBrokenStdout, tempFiles } from "./cliHarness.js"

const files = tempFiles({
  "request.json": { questions: [{ id: "go", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }] },
  "answers.json": { go: "Yes" }
})
const answered = ["--answers", files["answers.json"]!, files["request.json"]!]

describe("ask-user with a broken stdout", { timeout: 60_000 }, () => {
  it("the answer JSON to a full disk: one line naming the reason, exit 1", async () => {
    const result = await runWithBrokenStdout(answered, "full")
    expect(result).toEqual({ code: 1, stderr: "ask-user: cannot write the answer: ENOSPC: no space left on device, write\n" })
  })

  it("the answer JSON to a reader that has gone: nothing on stderr, exit 141", async () => {
    expect(await runWithBrokenStdout(answered, "closed")).toEqual({ code: 141, stderr: "" })
  })

  it("demo, --help and --version too", async () => {
    const demoAnswers = tempFiles({ "a.json": { database: "SQLite", features: ["Audit log"], name: "x" } })["a.json"]!
    const full = await runWithBrokenStdout(["demo", "--answers", demoAnswers], "full")
    expect(full.code).toBe(1)
    expect(full.stderr.split("\n")[0]).toBe("ask-user: cannot write the answer: ENOSPC: no space left on device, write")
    expect(await runWithBrokenStdout(["--help"], "full")).toEqual({
      code: 1,
      stderr: "ask-user: cannot write the help: ENOSPC: no space left on device, write\n"
    })
    expect(await runWithBrokenStdout(["pending", "--help"], "closed")).toEqual({ code: 141, stderr: "" })
    expect((await runWithBrokenStdout(["--version"], "full")).code).toBe(1)
  })
})
