/**
 * The built `ask-user` in a real pseudo-terminal (tmux): keys are sent with
 * `send-keys`, the screen is read with `capture-pane`, and after the program
 * ends the pane's terminal settings and cursor show it was restored.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { hostname, userInfo } from "node:os"
import { join } from "node:path"
import stringWidth from "fast-string-width"
import { hostile } from "./terminalCorpus.js"
import { ownSequences, unsafeChars } from "./terminalHarness.js"
import { program, tempDir, tempFiles } from "./cliHarness.js"
import { askPending, killHard, makeStore, run } from "./support/durableCli.js"

const socket = `ask-user-e2e-${process.pid}`
const tmux = (...args: ReadonlyArray<string>) =>
  execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" })

afterAll(() => {
  spawnSync("tmux", ["-L", socket, "kill-server"])
  // tmux may leave its socket file behind.
  rmSync(join(process.env["TMUX_TMPDIR"] ?? "/tmp", `tmux-${process.getuid?.() ?? 0}`, socket), { force: true })
})

const request = {
  questions: [
    { id: "db", header: "Storage", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
    { id: "features", question: "Which features?", multiSelect: true, options: [{ label: "auth" }, { label: "billing" }, { label: "search" }] }
  ]
}
const files = tempFiles({
  "request.json": request,
  "storage.json": { questions: [request.questions[0]] },
  "tall.json": {
    questions: [{
      id: "tall",
      question: Array.from({ length: 60 }, (_, i) => `question line ${String(i + 1).padStart(2, "0")}`).join("\n"),
      options: [{ label: "yes" }, { label: "no" }]
    }]
  },
  "wide.json": {
    questions: [{
      id: "w",
      header: "漢字ヘッダー",
      question: "どのデータベースを使いますか？ ".repeat(6),
      options: [{ label: "日本語のラベル".repeat(8), description: "説明文".repeat(10) }, { label: "한국어" }, { label: "中文选项" }]
    }]
  },
  "notify.json": {
    agent: { id: "p", name: "Planner;\x1b]0;evil\x07" },
    questions: [{ id: "go", question: "Deploy \x1b[2J now; really?", options: [{ label: "yes" }, { label: "no" }] }]
  },
  "hostile.json": {
    agent: { id: "x", name: "\x1b]0;evil title\x07agent" },
    questions: [{ id: "q", header: hostile[1], question: hostile.join(" | "), options: hostile.map((label) => ({ label, description: label })) }]
  }
})

let sessions = 0

/** Runs `command` (a shell command line) in a fresh tmux window; returns helpers to drive it. */
const open = (command: string, height = 50, width = 120) => {
  const name = `s${++sessions}`
  const dir = tempDir()
  const out = `${dir}/out.json`
  const status = `${dir}/status`
  const stty = `${dir}/stty`
  // After the program ends, record its status and the terminal's settings, then idle so the pane can be read.
  const script = `${command} >${out}; echo $? >${status}; stty -a >${stty}; echo DONE; sleep 600`
  tmux("new-session", "-d", "-s", name, "-x", String(width), "-y", String(height), "sh", "-c", script)
  const screen = () => tmux("capture-pane", "-p", "-t", name)
  const history = () => tmux("capture-pane", "-p", "-S", "-500", "-t", name)
  const waitFor = async (predicate: (text: string) => boolean, what: string) => {
    const deadline = Date.now() + 40_000
    while (Date.now() < deadline) {
      const text = screen()
      if (predicate(text)) return text
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`)
  }
  return {
    name,
    screen,
    history,
    waitFor,
    keys: (...keys: ReadonlyArray<string>) => void tmux("send-keys", "-t", name, ...keys),
    /** Sends a signal to the program (the pane's shell's child). */
    signal: (signal: NodeJS.Signals) => {
      const shell = tmux("display-message", "-p", "-t", name, "#{pane_pid}").trim()
      const child = execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim().split("\n")[0]!
      process.kill(Number(child), signal)
    },
    text: (text: string) => void tmux("send-keys", "-t", name, "-l", text),
    /** Waits for the program to end; gives its status, stdout and whether the terminal was restored. */
    finished: async () => {
      await waitFor((text) => text.includes("DONE"), "the program to end")
      const settings = readFileSync(stty, "utf8")
      return {
        status: Number(readFileSync(status, "utf8").trim()),
        stdout: existsSync(out) ? readFileSync(out, "utf8") : "",
        cooked: / icanon /.test(` ${settings.replace(/\s+/g, " ")} `) && / echo /.test(` ${settings.replace(/\s+/g, " ")} `),
        cursorVisible: tmux("display-message", "-p", "-t", name, "#{cursor_flag}").trim() === "1",
        title: tmux("display-message", "-p", "-t", name, "#{pane_title}").trim()
      }
    }
  }
}

const askUser = `${JSON.stringify(process.execPath)} ${JSON.stringify(program)}`

// Generous bounds: each case starts Node programs, and the machine may be busy.
describe("ask-user in a real terminal (tmux)", { timeout: 90_000 }, () => {
  it("arrows pick, Space toggles, Other takes typed text; answer JSON on stdout; terminal restored", async () => {
    const pane = open(`${askUser} demo`)
    await pane.waitFor((text) => text.includes("❯ PostgreSQL (Recommended)"), "the first question")
    pane.keys("Down", "Enter")
    await pane.waitFor((text) => text.includes("Question 2 of 3"), "the second question")
    pane.keys("Space", "Down", "Space", "Down", "Down", "Enter")
    await pane.waitFor((text) => text.includes("Other: "), "the Other field")
    pane.text("CSV and JSON")
    // Typed text replaces the ticked options: the screen says so before Enter.
    await pane.waitFor((text) => text.includes("Other: CSV and JSON█  (replaces the 2 ticked options)"), "the note")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("Question 3 of 3"), "the third question")
    pane.text("ledger")
    // A free-text question has one input line and one cursor.
    const typing = await pane.waitFor((text) => text.includes("ledger█"), "the typed text")
    expect(typing.split("ledger")).toHaveLength(2)
    expect(typing).not.toContain("Other")
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    // The demo prints what its model receives, which names who answered where.
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [
        { id: "database", selected: ["SQLite"] },
        { id: "features", selected: [], custom: "CSV and JSON" },
        { id: "name", selected: [], custom: "ledger" }
      ],
      answeredBy: `os:${userInfo().username}@${hostname()} (terminal)`
    })
    expect(result.cooked).toBe(true)
    expect(result.cursorVisible).toBe(true)
    expect(pane.screen()).toContain("demo agent: database = SQLite")
  })

  it("with the request on stdin, keys are read from /dev/tty", async () => {
    const pane = open(`cat ${files["request.json"]} | ${askUser}`)
    await pane.waitFor((text) => text.includes("❯ Postgres"), "the first question")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("Which features?"), "the second question")
    pane.keys("Space", "Down", "Down", "Space", "Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [{ id: "db", selected: ["Postgres"] }, { id: "features", selected: ["auth", "search"] }]
    })
    expect(result.cooked).toBe(true)
  })

  it("Esc cancels (exit 3); Ctrl+C and SIGINT interrupt (exit 130); each restores the terminal", async () => {
    const cancel = open(`${askUser} ${files["request.json"]}`)
    const interrupt = open(`${askUser} ${files["request.json"]}`)
    const sigint = open(`${askUser} ${files["request.json"]}`)
    await cancel.waitFor((text) => text.includes("❯ Postgres"), "the question")
    cancel.keys("Down", "Escape")
    await interrupt.waitFor((text) => text.includes("❯ Postgres"), "the question")
    interrupt.keys("C-c")
    await sigint.waitFor((text) => text.includes("❯ Postgres"), "the question")
    sigint.signal("SIGINT")
    const cancelled = await cancel.finished()
    const interrupted = await interrupt.finished()
    const signalled = await sigint.finished()
    expect(signalled.status).toBe(130)
    expect(cancelled.status).toBe(3)
    expect(cancelled.stdout).toBe("")
    expect(interrupted.status).toBe(130)
    expect(interrupted.stdout).toBe("")
    for (const result of [cancelled, interrupted, signalled]) {
      expect(result.cooked).toBe(true)
      expect(result.cursorVisible).toBe(true)
    }
  })

  it("who answered: --receipt names the account at the terminal, and so does the Settled event of an Esc", async () => {
    const me = `os:${userInfo().username}@${hostname()}`
    const answered = open(`${askUser} --receipt ${files["storage.json"]}`)
    // A program of the library's own, in the worktree so it finds the package: the Settled event of an Esc.
    const script = tempFiles({
      "cancel.mjs": `
        import { readFileSync } from "node:fs"
        import { Effect, Stream } from "effect"
        import { UserInteraction } from "effect-user-interaction"
        import { TerminalProvider } from "effect-user-interaction/terminal"
        const request = JSON.parse(readFileSync(${JSON.stringify(files["storage.json"])}, "utf8"))
        const program = Effect.gen(function*() {
          const events = yield* UserInteraction.subscribe
          yield* Effect.exit(UserInteraction.ask(request))
          const settled = yield* events.pipe(Stream.filter((event) => event._tag === "Settled"), Stream.take(1), Stream.runCollect)
          console.log(JSON.stringify(settled[0]))
        }).pipe(Effect.scoped, Effect.provide(UserInteraction.layerWith(TerminalProvider.layer())))
        await Effect.runPromise(program)`
    })["cancel.mjs"]!
    const cancelled = open(`cd ${JSON.stringify(process.cwd())} && ${JSON.stringify(process.execPath)} --input-type=module -e "$(cat ${script})"`)
    await answered.waitFor((text) => text.includes("❯ Postgres"), "the question")
    answered.keys("Down", "Enter")
    await cancelled.waitFor((text) => text.includes("❯ Postgres"), "the question")
    cancelled.keys("Escape")
    const receipt = JSON.parse((await answered.finished()).stdout).receipt
    expect(receipt).toEqual({ surface: "terminal", by: { id: me }, at: expect.any(String), millis: expect.any(Number) })
    const settled = JSON.parse((await cancelled.finished()).stdout)
    expect(settled).toMatchObject({ _tag: "Settled", outcome: "ASK_CANCELLED", surface: "terminal", by: { id: me } })
  })

  it("Home/End, PageUp/PageDown and Shift+Tab move in a menu; Esc after an answer says it was not used", async () => {
    const pane = open(`${askUser} ${files["request.json"]}`)
    await pane.waitFor((text) => text.includes("❯ Postgres"), "the question")
    // Each key is sent once its frame is drawn, so every wait sees the result of one key.
    const press = async (key: string, row: string) => {
      pane.keys(key)
      return pane.waitFor((text) => text.includes(`❯ ${row}`), `${key} to reach ${row}`)
    }
    expect(await press("End", "Skip this question")).toContain("Enter skips this question")
    await press("Home", "Postgres")
    await press("NPage", "Skip this question")
    await press("PPage", "Postgres")
    // Shift+Tab goes up (from the first row, round to the last), as Tab goes down.
    await press("BTab", "Skip this question")
    expect(await press("BTab", "Other")).toContain("Enter lets you type your own answer")
    await press("Tab", "Skip this question")
    await press("Up", "Other")
    await press("Up", "SQLite")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("Which features?"), "the second question")
    pane.keys("Escape")
    const result = await pane.finished()
    expect(result.status).toBe(3)
    expect(pane.screen()).toMatch(/✔ \[Storage\] Which database\? › SQLite\n✖ Which features\? \(cancelled\)\nThe answer above was not used\.\n/)
  })

  it("SIGTERM, SIGHUP and SIGQUIT during a prompt restore the terminal and exit 143, 129, 131", async () => {
    const signals = [["SIGTERM", 143], ["SIGHUP", 129], ["SIGQUIT", 131]] as const
    const panes = signals.map(() => open(`${askUser} ${files["request.json"]}`))
    for (const [i, [signal]] of signals.entries()) {
      await panes[i]!.waitFor((text) => text.includes("❯ Postgres"), "the question")
      panes[i]!.signal(signal)
    }
    for (const [i, [signal, status]] of signals.entries()) {
      const result = await panes[i]!.finished()
      expect({ signal, status: result.status, stdout: result.stdout, cooked: result.cooked, cursorVisible: result.cursorVisible })
        .toEqual({ signal, status, stdout: "", cooked: true, cursorVisible: true })
    }
  })

  it("closing the terminal: SIGHUP exits 129 (also in the Other field); with SIGHUP ignored, PROVIDER_CLOSED in one line, exit 1", async () => {
    const dir = tempDir()
    // The pane's shell dies with the pane, so the program writes its own exit status on the way out.
    const recorder = `${dir}/exit.cjs`
    // Written aside and renamed: a reader that sees the file sees the code, never an empty file.
    writeFileSync(recorder, `process.on("exit", (code) => {
      const fs = require("node:fs")
      fs.writeFileSync(process.env.EXIT_FILE + ".part", String(code))
      fs.renameSync(process.env.EXIT_FILE + ".part", process.env.EXIT_FILE)
    })`)
    const run = (name: string, wrap: (command: string) => string) => {
      const command = `EXIT_FILE=${dir}/${name}.status NODE_OPTIONS='--require ${recorder}' ${askUser} ${files["storage.json"]} 2>${dir}/${name}.err`
      const pane = open(wrap(command))
      return {
        pane,
        result: async () => {
          const deadline = Date.now() + 20_000
          while (!existsSync(`${dir}/${name}.status`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
          return { status: readFileSync(`${dir}/${name}.status`, "utf8"), stderr: readFileSync(`${dir}/${name}.err`, "utf8") }
        }
      }
    }
    const hungUp = run("hup", (command) => command)
    const inOther = run("other", (command) => command)
    const ignored = run("ignored", (command) => `trap '' HUP; ${command}`)
    await hungUp.pane.waitFor((text) => text.includes("❯ Postgres"), "the question")
    await ignored.pane.waitFor((text) => text.includes("❯ Postgres"), "the question")
    await inOther.pane.waitFor((text) => text.includes("❯ Postgres"), "the question")
    inOther.pane.keys("Down", "Down", "Enter")
    inOther.pane.text("half typed")
    await inOther.pane.waitFor((text) => text.includes("half typed█"), "the Other field")
    // The shell that ignores SIGHUP outlives its pane: it is ended with the test.
    const survivor = Number(tmux("display-message", "-p", "-t", ignored.pane.name, "#{pane_pid}").trim())
    try {
      for (const { pane } of [hungUp, inOther, ignored]) tmux("kill-session", "-t", pane.name)
      expect(await hungUp.result()).toEqual({ status: "129", stderr: "" })
      expect(await inOther.result()).toEqual({ status: "129", stderr: "" })
      const closed = await ignored.result()
      expect(closed.status).toBe("1")
      expect(closed.stderr).toMatch(/^ask-user: PROVIDER_CLOSED: [^\n]+\n$/)
      expect(closed.stderr).not.toContain("QuitError")
    } finally {
      // The pane's shell leads its own process group: the group goes at once, whatever it runs now.
      try {
        process.kill(-survivor, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
  })

  it("inbox: Ctrl+C on a prompt quits it (exit 130), the terminal restored and every ask still pending", async () => {
    const store = makeStore()
    const asker = await askPending(store, "ctrl-c")
    const pane = open(`${askUser} inbox --no-bell --store ${JSON.stringify(store.url)}`)
    await pane.waitFor((text) => text.includes("❯ Yes"), "the inbox's prompt")
    pane.keys("C-c")
    const result = await pane.finished()
    expect(result).toMatchObject({ status: 130, cooked: true, cursorVisible: true })
    // No ASK_ABORTED: that code means an ask its agent withdrew, and none was.
    expect(pane.screen()).toContain("ask-user: Quit (Ctrl+C): every ask stays pending.")
    expect(pane.screen()).not.toContain("ASK_ABORTED")
    expect(JSON.parse((await run(["status", "--store", store.url, "ctrl-c"])).stdout)).toEqual({ id: "ctrl-c", status: "pending" })
    await killHard(asker)
  })

  it("--durable --ask-id on a terminal says what it waits for and how to answer; the answer from elsewhere ends it", async () => {
    const store = makeStore()
    const pane = open(`${askUser} --durable --store ${JSON.stringify(store.url)} --ask-id wait-1 ${JSON.stringify(store.requestFile)}`)
    await pane.waitFor(
      (text) => text.includes("waiting for an answer to wait-1: answer it with 'ask-user answer wait-1 FILE'"),
      "the waiting line"
    )
    expect((await run(["answer", "--store", store.url, "wait-1", store.file("yes.json", { answers: [{ id: "q", selected: ["Yes"] }] })])).code)
      .toBe(0)
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ answers: [{ id: "q", selected: ["Yes"] }] })
  })

  it("--timeout ends an unanswered prompt with exit 4 and restores the terminal", async () => {
    const pane = open(`${askUser} --timeout 2s ${files["request.json"]}`)
    await pane.waitFor((text) => text.includes("❯ Postgres"), "the question")
    const result = await pane.finished()
    expect(result.status).toBe(4)
    expect(result.cooked).toBe(true)
    expect(result.cursorVisible).toBe(true)
  })

  it("a question taller than the pane stays usable and leaves no stale copies in the scrollback", async () => {
    const pane = open(`${askUser} ${files["tall.json"]}`, 30)
    await pane.waitFor((text) => text.includes("❯ yes"), "the question")
    for (let i = 0; i < 5; i++) {
      pane.keys(i % 2 === 0 ? "Down" : "Up")
      await pane.waitFor((text) => text.includes(i % 2 === 0 ? "❯ no" : "❯ yes"), `arrow press ${i + 1}`)
    }
    const screen = pane.screen()
    expect(screen).toContain("question line 01")
    expect(screen).toMatch(/more lines of the question/)
    expect(screen).toContain("Other (type your own answer)")
    expect(pane.history().split("question line 01")).toHaveLength(2)
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout).answers[0].selected).toEqual(["no"])
  })

  it("in panes 5 and 3 rows high every redraw fits, so the scrollback keeps no stale copies", async () => {
    // Lines printed first put the cursor at the bottom, where a frame too tall for the pane would scroll.
    const sizes = [[20, 5], [40, 3]] as const
    const panes = sizes.map(([width, height]) => open(`seq 1 10; ${askUser} ${files["storage.json"]}`, height, width))
    for (const [i, pane] of panes.entries()) {
      await pane.waitFor((text) => text.includes("❯ Postgres"), "the question")
      for (const [arrow, row] of [["Down", "❯ SQLite"], ["Down", "❯ Other"], ["Up", "❯ SQLite"], ["Up", "❯ Postgres"]]) {
        pane.keys(arrow!)
        await pane.waitFor((text) => text.includes(row!), `${arrow} to ${row}`)
      }
      // Below the last printed line: the frame on screen (one row spare) and nothing else.
      const history = pane.history()
      const frame = history.slice(history.lastIndexOf("\n10\n") + 4).trimEnd().split("\n")
      expect(frame.length).toBeLessThanOrEqual(sizes[i]![1] - 1)
      expect(frame.join("\n")).toContain("Which database?")
      pane.keys("Enter")
    }
    for (const pane of panes) {
      const result = await pane.finished()
      expect(result.status).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({ answers: [{ id: "db", selected: ["Postgres"] }] })
    }
  })

  it("after the pane is resized, frames are drawn for its new size: redraws add nothing to the scrollback", async () => {
    const pane = open(`${askUser} ${files["tall.json"]}`, 30, 100)
    await pane.waitFor((text) => text.includes("❯ yes"), "the question")
    const historySize = () => Number(tmux("display-message", "-p", "-t", pane.name, "#{history_size}").trim())
    tmux("resize-window", "-t", pane.name, "-x", "40", "-y", "10")
    // The first frame after the resize is drawn at the new size; what the shrink itself pushed up stays.
    pane.keys("Down")
    await pane.waitFor((text) => text.includes("❯ no"), "the first arrow after the resize")
    const settled = historySize()
    for (let i = 0; i < 6; i++) {
      pane.keys(i % 2 === 0 ? "Up" : "Down")
      await pane.waitFor((text) => text.includes(i % 2 === 0 ? "❯ yes" : "❯ no"), `arrow press ${i + 1}`)
    }
    // A frame laid out for 100 columns wraps on 40, and each redraw would leave its overflow above.
    expect(historySize()).toBe(settled)
    const screen = pane.screen().trimEnd().split("\n")
    expect(screen.length).toBeLessThanOrEqual(9)
    expect(screen.filter((line) => line.includes("❯"))).toEqual(["❯ no"])
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout).answers[0].selected).toEqual(["no"])
  })

  it("wide (CJK) text takes two columns a character: frames fit, and redraws add nothing to the scrollback", async () => {
    const pane = open(`${askUser} ${files["wide.json"]}`, 12, 40)
    await pane.waitFor((text) => text.includes("❯ 日本語"), "the question")
    const historySize = () => Number(tmux("display-message", "-p", "-t", pane.name, "#{history_size}").trim())
    const before = historySize()
    for (const [arrow, row] of [["Down", "❯ 한국어"], ["Down", "❯ 中文选项"], ["Up", "❯ 한국어"], ["Up", "❯ 日本語"], ["Down", "❯ 한국어"], ["Down", "❯ 中文选项"]]) {
      pane.keys(arrow!)
      await pane.waitFor((text) => text.includes(row!), `${arrow} to ${row}`)
    }
    // Counted one column a character, the long rows wrapped and each redraw left its overflow above.
    expect(historySize()).toBe(before)
    expect(pane.screen()).toContain("[漢字ヘッダー]")
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout).answers[0].selected).toEqual(["中文选项"])
  })

  it("a multi-line paste (bracketed, as tmux pastes it) into Other is one answer, not several keystrokes", async () => {
    const pane = open(`${askUser} ${files["request.json"]}`)
    await pane.waitFor((text) => text.includes("❯ Postgres"), "the first question")
    pane.keys("Down", "Down", "Enter")
    await pane.waitFor((text) => text.includes("Other: "), "the Other field")
    tmux("set-buffer", "-b", "multi", "line one\nline two")
    // -p: pasted as the application asked for it, between ESC[200~ and ESC[201~; -d: the buffer goes (a later test reads the buffers).
    tmux("paste-buffer", "-p", "-d", "-b", "multi", "-t", pane.name)
    await pane.waitFor((text) => text.includes("line one line two█"), "the pasted text in the field")
    // Still the first question: the paste's line break answered nothing.
    expect(pane.screen()).toContain("Question 1 of 2")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("Question 2 of 2"), "the second question")
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [{ id: "db", selected: [], custom: "line one line two" }, { id: "features", selected: [] }]
    })
  })

  it("hostile model text is shown as visible escapes: no clear, no title, no clipboard", async () => {
    tmux("start-server")
    tmux("set-option", "-g", "set-clipboard", "on")
    const pane = open(`echo MARKER-BEFORE; ${askUser} ${files["hostile.json"]}`)
    // The menu is taller than the pane, so it is drawn as a window; wait for its key hint.
    await pane.waitFor((text) => text.includes("Enter chooses"), "the question")
    const screen = pane.history()
    expect(screen).toContain("MARKER-BEFORE") // nothing cleared the screen or the scrollback
    expect(screen).toContain("\\x1b]52;c;")
    expect(screen).toContain("\\u202etxt.exe")
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout).answers[0].selected).toEqual([hostile[0]])
    expect(result.title).not.toContain("evil")
    expect(result.title).not.toContain("pwned")
    expect(spawnSync("tmux", ["-L", socket, "list-buffers"], { encoding: "utf8" }).stdout).toBe("")
  })

  it("--notify desktop writes OSC 777 and OSC 9 notifications with inert text; nothing else raw reaches the pty", async () => {
    const dir = tempDir()
    const raw = `${dir}/raw`
    const go = `${dir}/go`
    // The program starts once the pane's output is being recorded.
    const pane = open(`while [ ! -e ${go} ]; do sleep 0.05; done; NO_COLOR=1 ${askUser} --notify desktop ${files["notify.json"]}`)
    tmux("pipe-pane", "-o", "-t", pane.name, `cat >> ${raw}`)
    writeFileSync(go, "")
    await pane.waitFor((text) => text.includes("❯ yes"), "the question")
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ answers: [{ id: "go", selected: ["yes"] }] })
    const written = readFileSync(raw, "utf8")
    const title = "Planner,\\x1b]0,evil\\x07 asks"
    const body = "Deploy \\x1b[2J now, really?"
    expect(written).toContain(`\x1b]777;notify;${title};${body}\x07`)
    expect(written).toContain(`\x1b]9;${title}: ${body}\x07`)
    const rest = written
      .replace(`\x1b]777;notify;${title};${body}\x07`, "")
      .replace(`\x1b]9;${title}: ${body}\x07`, "")
      .replace(ownSequences, "")
    expect(rest).not.toMatch(unsafeChars)
    expect(result.title).not.toContain("evil")
  })

  it("--plain, ASK_USER_PLAIN=1 and TERM=dumb: numbered lines on the TTY; the screen only ever grows downward", async () => {
    for (const command of [`${askUser} --plain`, `ASK_USER_PLAIN=1 ${askUser}`, `TERM=dumb ${askUser}`]) {
      const dir = tempDir()
      const raw = `${dir}/raw`
      const go = `${dir}/go`
      const pane = open(`while [ ! -e ${go} ]; do sleep 0.05; done; ${command} ${files["notify.json"]}`)
      tmux("pipe-pane", "-o", "-t", pane.name, `cat >> ${raw}`)
      writeFileSync(go, "")
      const lines = (text: string) => text.replace(/\n+$/, "").split("\n")
      const frames = [lines(await pane.waitFor((text) => text.includes("  2. no"), "the numbered options"))]
      // A number out of range: a hint, and the question stays above it.
      pane.text("7")
      pane.keys("Enter")
      frames.push(lines(await pane.waitFor((text) => text.includes("There is no option 7"), "the hint")))
      pane.text("1")
      pane.keys("Enter")
      const result = await pane.finished()
      frames.push(lines(pane.history()).filter((line) => line !== "DONE"))
      expect(result.status).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({ answers: [{ id: "go", selected: ["yes"] }] })
      // Every frame keeps the lines of the one before, unchanged: nothing was redrawn or erased.
      for (let i = 1; i < frames.length; i++) {
        const before = frames[i - 1]!.filter((line) => line.trim() !== "")
        expect(frames[i]!.filter((line) => line.trim() !== "").slice(0, before.length)).toEqual(before)
      }
      // And no escape sequence reached the pty: no cursor movement, no colour, no erase.
      // The pty turns each newline into CR LF; the program writes no CR of its own.
      const written = readFileSync(raw, "utf8").replaceAll("\r\n", "\n")
      expect(written).toContain("Deploy \\x1b[2J now; really?")
      expect(written).not.toContain("\x1b")
      expect(written).not.toMatch(unsafeChars)
    }
  })
})

// The README's example request ("A request can carry more"): a recommended option, previews, a secret.
const readmeRequest = /A request can carry more[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(
  readFileSync(new URL("../README.md", import.meta.url), "utf8")
)![1]!
const secret = "qZ7§xV9-kW3j"
const carried = tempFiles({
  "readme.json": readmeRequest,
  "long-preview.json": {
    questions: [{
      id: "layout",
      question: "Which layout?",
      options: [
        { label: "grid", preview: Array.from({ length: 40 }, (_, i) => `grid row ${i + 1} ${"█ ".repeat(40)}`).join("\n") },
        { label: "list", preview: "one\ntwo" },
        { label: "cards" }
      ]
    }]
  },
  "plain-secret.json": {
    questions: [
      { id: "db", question: "Which database?", options: [{ label: "SQLite" }, { label: "PostgreSQL", recommended: true }] },
      { id: "token", question: "Deploy token?", secret: true }
    ]
  }
})

/** Opens `command` in a pane whose raw output (every byte the program writes) is recorded. */
const openRecorded = (command: string, height?: number, width?: number) => {
  const dir = tempDir()
  const raw = `${dir}/raw`
  const go = `${dir}/go`
  const pane = open(`while [ ! -e ${go} ]; do sleep 0.05; done; ${command}`, height, width)
  tmux("pipe-pane", "-o", "-t", pane.name, `cat >> ${raw}`)
  writeFileSync(go, "")
  return { ...pane, raw: () => existsSync(raw) ? readFileSync(raw, "utf8") : "" }
}

/**
 * Waits for the program to end with the database question and the secret answered, the secret in
 * the answer JSON and nowhere on the terminal: not on screen, in the scrollback or in any byte
 * written to it. Gives those bytes.
 */
const answeredWithSecret = async (pane: ReturnType<typeof openRecorded>) => {
  const result = await pane.finished()
  expect(result.status).toBe(0)
  expect(JSON.parse(result.stdout)).toEqual({
    answers: [{ id: "db", selected: ["PostgreSQL"] }, { id: "token", selected: [], secret }]
  })
  expect(result.cooked).toBe(true)
  expect(pane.history()).not.toContain("kW3j")
  expect(pane.raw()).toContain("Deploy token?")
  expect(pane.raw()).not.toContain("kW3j")
  return pane.raw()
}

describe("ask-user in a real terminal: recommended, previews, secrets, review", { timeout: 90_000 }, () => {
  it("README's example: cursor on the recommended option, its preview boxed; the secret typed masked, never on the pty", async () => {
    const pane = openRecorded(`${askUser} ${carried["readme.json"]}`, 30, 100)
    const historySize = () => Number(tmux("display-message", "-p", "-t", pane.name, "#{history_size}").trim())
    const first = await pane.waitFor((text) => text.includes("│ ## PostgreSQL"), "the preview of the recommended option")
    expect(first).toContain("❯ PostgreSQL (recommended)")
    expect(first).toContain("A server the platform team already runs.")
    expect(first).toMatch(/┌─ Preview ─+┐/)
    const before = historySize()
    for (const [arrow, shown] of [["Up", "│ One file next to the app"], ["Down", "│ ## PostgreSQL"], ["Up", "│ One file next to the app"], ["Down", "│ ## PostgreSQL"]]) {
      pane.keys(arrow!)
      await pane.waitFor((text) => text.includes(shown!), `${arrow} to show ${shown}`)
    }
    // Redraws with and without a box of another height leave nothing in the scrollback.
    expect(historySize()).toBe(before)
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("Deploy token?") && text.includes("typing is hidden"), "the secret question")
    pane.text(secret)
    const typing = await pane.waitFor((text) => text.includes(`❯ ${"•".repeat(Array.from(secret).length)}█`), "the masked text")
    expect(typing).not.toContain("kW3j")
    pane.keys("Enter")
    await answeredWithSecret(pane)
    expect(pane.screen()).toContain("✔ Deploy token? › (secret received)")
  })

  it("a preview taller and wider than a small pane is cut to it (\"…\"), keeps the menu whole, and leaves no copies in the scrollback", async () => {
    const pane = open(`seq 1 20; ${askUser} ${carried["long-preview.json"]}`, 14, 40)
    const first = await pane.waitFor((text) => text.includes("│ grid row 1"), "the preview")
    const historySize = () => Number(tmux("display-message", "-p", "-t", pane.name, "#{history_size}").trim())
    const before = historySize()
    for (const [arrow, shown] of [["Down", "│ one"], ["Down", "❯ cards"], ["Up", "│ one"], ["Up", "│ grid row 1"]]) {
      pane.keys(arrow!)
      await pane.waitFor((text) => text.includes(shown!), `${arrow} to show ${shown}`)
    }
    expect(historySize()).toBe(before)
    const rows = first.trimEnd().split("\n")
    // Every option and Other are on screen; the box ends its long lines and its last row with "…".
    for (const row of ["❯ grid", "  list", "  cards", "  Other (type your own answer)"]) expect(rows).toContain(row)
    expect(rows.find((row) => row.startsWith("│ grid row 1"))).toMatch(/… │$/)
    expect(rows.some((row) => /^│ … \d+ more lines +│$/.test(row))).toBe(true)
    for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(40)
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout).answers[0].selected).toEqual(["grid"])
  })

  it("--review: the batch ends with a review; a question's row goes back to it; Submit sends; Esc cancels (exit 3)", async () => {
    const pane = open(`${askUser} --review ${files["request.json"]}`)
    await pane.waitFor((text) => text.includes("❯ Postgres"), "the first question")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("Which features?"), "the second question")
    pane.keys("Space", "Enter")
    const review = await pane.waitFor((text) => text.includes("Review your answers"), "the review")
    expect(review).toContain("❯ Submit\n  [Storage] Which database? › Postgres\n  Which features? › auth\n")
    // No ✔ line while an answer can still change.
    expect(review).not.toContain("✔")
    pane.keys("Down")
    await pane.waitFor((text) => text.includes("❯ [Storage] Which database? › Postgres"), "the first answer's row")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("❯ Postgres") && text.includes("Which database?"), "the first question, on its answer")
    pane.keys("Down", "Enter")
    await pane.waitFor((text) => text.includes("Which database? › SQLite") && text.includes("❯ Submit"), "the review again")
    pane.keys("Enter")
    const result = await pane.finished()
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      answers: [{ id: "db", selected: ["SQLite"] }, { id: "features", selected: ["auth"] }]
    })
    expect(result.cooked).toBe(true)
    // Once sent, the ✔ lines, and no stale review above them.
    const history = pane.history()
    expect(history).toMatch(/✔ \[Storage\] Which database\? › SQLite\n✔ Which features\? › auth\n/)
    expect(history).not.toContain("Review your answers")

    const cancel = open(`${askUser} --review ${files["request.json"]}`)
    await cancel.waitFor((text) => text.includes("❯ Postgres"), "the first question")
    cancel.keys("Enter")
    await cancel.waitFor((text) => text.includes("Which features?"), "the second question")
    cancel.keys("Enter")
    await cancel.waitFor((text) => text.includes("Review your answers"), "the review")
    cancel.keys("Escape")
    const cancelled = await cancel.finished()
    expect(cancelled.status).toBe(3)
    expect(cancelled.stdout).toBe("")
    expect(cancel.screen()).toContain("✖ Your answers were not sent (cancelled)")
  })

  it("--plain: a secret is typed with echo off (\"typing is hidden\"): nothing reaches the pty, the terminal is cooked again", async () => {
    const pane = openRecorded(`${askUser} --plain ${carried["plain-secret.json"]}`)
    await pane.waitFor((text) => text.includes("  2. PostgreSQL (recommended)"), "the numbered options")
    pane.text("2")
    pane.keys("Enter")
    await pane.waitFor((text) => text.includes("typing is hidden"), "the secret question")
    pane.text(secret)
    pane.keys("BSpace")
    pane.text(secret.at(-1)!)
    pane.keys("Enter")
    const written = await answeredWithSecret(pane)
    expect(written).toContain("typing is hidden")
    // Still plain: no escape sequence of ours reached the pty.
    expect(written).not.toContain("\x1b")
  })
})
