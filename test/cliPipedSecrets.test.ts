/**
 * `ask-user` in line mode (answers piped on stdin, no terminal) with a
 * secret question: refused before anything is asked unless
 * `--allow-piped-secrets`, and then the piped line is the secret, printed in
 * the answer JSON on stdout and nowhere else. The flags that cannot apply are
 * usage errors.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { removeTempDirs, runWith, tempFiles } from "./cliHarness.js"

const value = "qZ7§xV9-kW3j"

const files = tempFiles({
  "secret.json": {
    questions: [
      { id: "db", question: "Which database?", options: [{ label: "SQLite" }, { label: "PostgreSQL", recommended: true }] },
      { id: "token", question: "Deploy token?", secret: true }
    ]
  },
  "answers.json": { db: "SQLite", token: value }
})

afterAll(removeTempDirs)

describe("ask-user, a secret question and piped answers", { timeout: 60_000 }, () => {
  it("is refused before anything is asked (PROVIDER_FAILED, exit 1), naming --allow-piped-secrets", async () => {
    const result = await runWith([files["secret.json"]!], `2\n${value}\n`)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toMatch(/^ask-user: PROVIDER_FAILED: The question "token" is secret[^\n]*--allow-piped-secrets[^\n]*\n$/)
    // Not even the first question was printed.
    expect(result.stderr).not.toContain("Which database?")
    expect(result.stderr).not.toContain("kW3j")
  })

  it("with --allow-piped-secrets, the piped line is the secret: on stdout in the answer JSON, never on stderr", async () => {
    const result = await runWith([files["secret.json"]!, "--allow-piped-secrets"], `2\n${value}\n`)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [{ id: "db", selected: ["PostgreSQL"] }, { id: "token", selected: [], secret: value }]
    })
    expect(result.stderr).toContain("  2. PostgreSQL (recommended)")
    expect(result.stderr).toContain("typing is hidden")
    expect(result.stderr).not.toContain("kW3j")
  })

  it("--review and --allow-piped-secrets where they cannot apply are usage errors (exit 2)", async () => {
    const cases = [
      [["--durable", "--review", files["secret.json"]!], "--review does not apply with --durable"],
      [["--durable", "--allow-piped-secrets", files["secret.json"]!], "--allow-piped-secrets does not apply with --durable"],
      [["--answers", files["answers.json"]!, "--allow-piped-secrets", files["secret.json"]!], "--allow-piped-secrets does not apply with --answers"]
    ] as const
    for (const [args, message] of cases) {
      const result = await runWith(args)
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" })
      expect(result.stderr).toContain(message)
    }
  })
})
