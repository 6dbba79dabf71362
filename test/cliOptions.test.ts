import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Option } from "effect"
import { CliError } from "effect/cli"
import {
  AskAborted,
  AskCancelled,
  AskDeclined,
  AskTimeout,
  EmptyQuestions,
  InvalidAnswer,
  InvalidRequest,
  NoProvider,
  ProviderClosed,
  ProviderFailed
} from "../src/UserInteractionError.js"
import { answerItem, answersFromFile, isAnswerJson } from "../src/cli/answersFile.js"
import { parseExpires } from "../src/cli/durableCommands.js"
import { describeFailure, exitCodeFor, exitCodeForCause } from "../src/cli/exitCodes.js"
import { inapplicableFlag, type RootFlags } from "../src/cli/flagRules.js"
import { parseTimeout } from "../src/cli/options.js"
import { TerminalProvider } from "effect-user-interaction/terminal"
import { CannotWrite } from "../src/cli/stdout.js"
import { expiresInProblem, maxExpiresIn } from "../src/durable/expiry.js"
import { pgDriverUrl, shownStoreUrl, storeUrlProblem } from "../src/durable/storeUrl.js"

const millis = (text: string) => Option.map(parseTimeout(text), Duration.toMillis)

describe("ask-user flags", () => {
  it("--timeout takes the short forms and Effect durations", () => {
    expect(millis("30s")).toEqual(Option.some(30_000))
    expect(millis("5m")).toEqual(Option.some(300_000))
    expect(millis("1h")).toEqual(Option.some(3_600_000))
    expect(millis("500ms")).toEqual(Option.some(500))
    expect(millis("1.5s")).toEqual(Option.some(1_500))
    expect(millis("5 minutes")).toEqual(Option.some(300_000))
    expect(millis("2 hours")).toEqual(Option.some(7_200_000))
  })

  it("--timeout refuses what is not a finite, positive duration", () => {
    for (const text of ["soon", "", "0s", "0 seconds", "-1s", "Infinity", "5 mins", "m5", "5x"]) {
      expect(parseTimeout(text)).toEqual(Option.none())
    }
  })
})

describe("ask-user durable flags", () => {
  it("--expires takes what --timeout takes, up to 3650 days (about 10 years)", () => {
    expect(Duration.toMillis(maxExpiresIn)).toBe(3650 * 86_400_000)
    expect(Option.map(parseExpires("3650d"), Duration.toMillis)).toEqual(Option.some(3650 * 86_400_000))
    expect(Option.map(parseExpires("1h"), Duration.toMillis)).toEqual(Option.some(3_600_000))
    // Past the limit: the deadline would not be a date (99999999 days) or the engine's clock
    // message would not encode (99999999999h); 3651 days is merely past the documented maximum.
    for (const text of ["3651d", "99999999 days", "99999999999h", "0s", "soon"]) {
      expect(parseExpires(text)).toEqual(Option.none())
    }
  })

  it("the durable provider refuses an expiry that is not positive or past the maximum", () => {
    expect(expiresInProblem("1 hour")).toBeUndefined()
    expect(expiresInProblem(maxExpiresIn)).toBeUndefined()
    expect(expiresInProblem("3651 days")).toContain("at most 3650 days")
    expect(expiresInProblem(Duration.infinity)).toContain("at most 3650 days")
    expect(expiresInProblem("0 millis")).toContain("positive")
  })

  it("a store URL must name a database: an empty or blank SQLite path or PostgreSQL URL is refused", () => {
    for (const url of ["sqlite:/tmp/a.db", "sqlite:a.db", "sqlite:///tmp/a.db", "sqlite::memory:", "postgres://u@h/db", "postgresql:///db"]) {
      expect(storeUrlProblem(url)).toBeUndefined()
    }
    for (const url of ["sqlite:", "sqlite:   ", "sqlite://", "sqlite:/tmp/", "postgres://", "postgresql://", "postgres:// ", "postgres:", " ", "", "mysql://x"]) {
      expect(storeUrlProblem(url)).toBeTypeOf("string")
    }
  })
})

describe("store URLs for PostgreSQL's driver", () => {
  it("libpq's socket form gets the driver's default host written in; every other URL passes unchanged", () => {
    expect(pgDriverUrl("postgres://qa:pw@/asks?host=/run/pg&port=5433")).toBe("postgres://qa:pw@localhost/asks?host=/run/pg&port=5433")
    expect(pgDriverUrl("postgresql://qa@?host=/run/pg")).toBe("postgresql://qa@localhost?host=/run/pg")
    for (const url of ["postgres://qa@db/asks", "postgres:///asks?host=/run/pg", "postgres://db/a@b", "sqlite:/a@/b.db"]) {
      expect(pgDriverUrl(url)).toBe(url)
    }
  })
})

describe("store URLs in messages", () => {
  it("show no password, even one holding an @, or given as a query parameter", () => {
    const masked = [
      ["postgres://agent:s3cret@db.internal:5432/asks", "postgres://agent:***@db.internal:5432/asks"],
      ["postgresql://agent:p@ss:w@h/db?sslmode=require", "postgresql://agent:***@h/db?sslmode=require"],
      ["MySQL://root:toor@h/db", "MySQL://root:***@h/db"],
      ["postgres://agent@h/db?sslmode=require&password=s3cret", "postgres://agent@h/db?sslmode=require&password=***"],
      ["postgres://h/db?PASSWORD=s3cret&x=1", "postgres://h/db?PASSWORD=***&x=1"],
      ["postgres:agent:hunter2@h/db", "postgres:agent:***@h/db"]
    ]
    expect(masked.map(([url]) => shownStoreUrl(url!))).toEqual(masked.map(([, shown]) => shown))
    for (const url of ["postgres://agent@h/db", "postgres://h:5432/db", "sqlite:/var/lib/a:b@c.db", "sqlite::memory:"]) {
      expect(shownStoreUrl(url)).toBe(url)
    }
  })
})

describe("ask-user flags that cannot apply", () => {
  const booleans = ["web", "terminal", "durable", "plain", "detach", "receipt", "review"] as const
  const optionals = ["port", "host", "token", "answers", "timeout", "store", "askId", "expires"] as const
  const flagsOf = (given: ReadonlySet<string>): RootFlags => ({
    ...Object.fromEntries(booleans.map((name) => [name, given.has(name)])),
    ...Object.fromEntries(optionals.map((name) => [name, given.has(name) ? Option.some("x") : Option.none()]))
  }) as unknown as RootFlags
  const spelling = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

  it("every combination of the fifteen flags: refused exactly when one of them would do nothing, naming it", () => {
    const names: ReadonlyArray<string> = [...booleans, ...optionals]
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const given = new Set(names.filter((_, i) => (mask & (1 << i)) !== 0))
      const has = (name: string) => given.has(name)
      const idle = (has("durable") && ["web", "terminal", "answers", "timeout", "plain", "review"].some(has)) ||
        (has("durable") && has("detach") && has("receipt")) ||
        (!has("durable") && ["store", "askId", "expires", "detach"].some(has)) ||
        (!has("web") && ["terminal", "port", "host", "token"].some(has))
      const message = inapplicableFlag(flagsOf(given))
      expect({ given: [...given], refused: message !== undefined }).toEqual({ given: [...given], refused: idle })
      if (message !== undefined) expect([...given].map(spelling)).toContain(message.split(" ")[0])
    }
  })

  it("says what to do instead", () => {
    expect(inapplicableFlag(flagsOf(new Set(["durable", "web"])))).toBe(
      "--web does not apply with --durable: its asker only waits; show the question with 'ask-user inbox --web'."
    )
    expect(inapplicableFlag(flagsOf(new Set(["durable", "answers"])))).toContain("'ask-user answer ID FILE'")
    expect(inapplicableFlag(flagsOf(new Set(["durable", "timeout"])))).toContain("use --expires")
    expect(inapplicableFlag(flagsOf(new Set(["durable", "plain"])))).toContain("'ask-user inbox --plain'")
    expect(inapplicableFlag(flagsOf(new Set(["durable", "review"])))).toContain("'ask-user inbox --review'")
    expect(inapplicableFlag(flagsOf(new Set(["port"])))).toBe("--port only applies with --web.")
    expect(inapplicableFlag(flagsOf(new Set(["askId"])))).toBe("--ask-id only applies with --durable.")
    // --answers answers instead of asking, before any surface (decision 055): --web beside it is allowed.
    expect(inapplicableFlag(flagsOf(new Set(["web", "terminal", "port", "answers", "timeout"])))).toBeUndefined()
  })
})

describe("ask-user exit statuses", () => {
  it("map every error class to its status", () => {
    expect(exitCodeFor(new InvalidRequest())).toBe(2)
    expect(exitCodeFor(new EmptyQuestions())).toBe(2)
    expect(exitCodeFor(new AskCancelled())).toBe(3)
    expect(exitCodeFor(new AskDeclined())).toBe(3)
    expect(exitCodeFor(new AskTimeout())).toBe(4)
    expect(exitCodeFor(new AskAborted())).toBe(130)
    for (const error of [new ProviderClosed(), new ProviderFailed(), new InvalidAnswer(), new NoProvider(), new Error("x")]) {
      expect(exitCodeFor(error)).toBe(1)
    }
    expect(exitCodeFor(new CliError.UnrecognizedOption({ option: "--bogus", suggestions: [] }))).toBe(2)
  })

  it("an interrupted main fiber exits 130; a failed one by its error", () => {
    expect(exitCodeForCause(Cause.interrupt())).toBe(130)
    expect(exitCodeForCause(Cause.fail(new AskTimeout()))).toBe(4)
    expect(exitCodeForCause(Cause.die(new Error("defect")))).toBe(1)
  })

  it("a broken stdout: EPIPE ends quietly with 141 (128 + SIGPIPE), any other write error exits 1 in one line", () => {
    const pipe = new CannotWrite({ what: "the answer", cause: Object.assign(new Error("write EPIPE"), { code: "EPIPE" }) })
    const full = new CannotWrite({
      what: "the answer",
      cause: Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })
    })
    expect(exitCodeFor(pipe)).toBe(141)
    expect(exitCodeForCause(Cause.die(pipe))).toBe(141)
    expect(exitCodeFor(full)).toBe(1)
    expect(describeFailure(full)).toBe("ask-user: cannot write the answer: ENOSPC: no space left on device, write")
    expect(describeFailure(pipe)).toBeUndefined()
  })

  it("diagnostics name the code", () => {
    expect(describeFailure(new AskCancelled())).toBe("ask-user: ASK_CANCELLED: The human cancelled the request.")
  })

  it("diagnostics quote model text inert, on one line", () => {
    expect(describeFailure(new InvalidRequest({ message: "id \"\x1b]2;PWNED\x07\u200b\"\nnext" })))
      .toBe("ask-user: INVALID_REQUEST: id \"\\x1b]2;PWNED\\x07\\u200b\" next")
    expect(describeFailure(new Error("\x9b2J"))).toBe("ask-user: \\x9b2J")
  })
})

describe("--answers file entries", () => {
  const question = { id: "db", question: "Which?", options: [{ label: "Postgres" }, { label: "SQLite" }] }

  it("a label selects, other text is custom, arrays select several, null skips", () => {
    expect(answerItem(question, "SQLite")).toEqual({ id: "db", selected: ["SQLite"] })
    expect(answerItem(question, "MySQL")).toEqual({ id: "db", selected: [], custom: "MySQL" })
    expect(answerItem(question, ["Postgres", "SQLite"])).toEqual({ id: "db", selected: ["Postgres", "SQLite"] })
    expect(answerItem(question, null)).toEqual({ id: "db", selected: [] })
    expect(answerItem(question, { custom: "later" })).toEqual({ id: "db", selected: [], custom: "later" })
  })
})

describe("--answers keyed form", () => {
  const questions = [
    { id: "go", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] },
    { id: "why", question: "Why?" }
  ]

  it("gives an item for every key, the request's questions first, so an unknown key breaks the rules like an unknown id", () => {
    expect(answersFromFile({ why: "ok", go: "Yes" }, questions)).toEqual({
      answers: [{ id: "go", selected: ["Yes"] }, { id: "why", selected: [], custom: "ok" }]
    })
    expect(answersFromFile({ go: "Yes", why: "ok", zzz: "extra" }, questions).answers.map((item) => item.id))
      .toEqual(["go", "why", "zzz"])
  })
})

describe("--answers file forms", () => {
  it("the answer JSON is a non-empty array of objects under answers; anything else is keyed by question id", () => {
    expect(isAnswerJson({ answers: [{ id: "db", selected: ["SQLite"] }] })).toBe(true)
    expect(isAnswerJson({ answers: ["a", "b"] })).toBe(false)
    expect(isAnswerJson({ answers: "a" })).toBe(false)
    expect(isAnswerJson({ answers: null })).toBe(false)
    expect(isAnswerJson({ answers: [] })).toBe(false)
    expect(isAnswerJson({ db: "SQLite" })).toBe(false)
    expect(isAnswerJson([{ id: "db" }])).toBe(false)
  })
})

describe("the terminal's mode from the environment", () => {
  it("plain with ASK_USER_PLAIN set (not 0) or TERM=dumb; menus otherwise", () => {
    expect(TerminalProvider.modeFromEnvironment({})).toBe("menu")
    expect(TerminalProvider.modeFromEnvironment({ TERM: "xterm-256color" })).toBe("menu")
    expect(TerminalProvider.modeFromEnvironment({ TERM: "dumb" })).toBe("plain")
    expect(TerminalProvider.modeFromEnvironment({ ASK_USER_PLAIN: "1" })).toBe("plain")
    expect(TerminalProvider.modeFromEnvironment({ ASK_USER_PLAIN: "yes", TERM: "xterm" })).toBe("plain")
    expect(TerminalProvider.modeFromEnvironment({ ASK_USER_PLAIN: "0" })).toBe("menu")
    expect(TerminalProvider.modeFromEnvironment({ ASK_USER_PLAIN: "" })).toBe("menu")
  })
})
