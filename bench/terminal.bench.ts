/**
 * How fast `ask-user` starts: `ask-user --help` wall time and the time until
 * the first question is on a terminal, each against `node -e 0` (and a
 * one-line print for the prompt) and against the same job done with
 * `@clack/prompts`, as ratios measured in this process.
 *
 *   npm run build && node --expose-gc bench/terminal.bench.ts
 *
 * The first-prompt figures run each program in a pseudo-terminal (`script`)
 * and stop the clock when the question text appears.
 */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"

const root = join(import.meta.dirname, "..")
const askUser = join(root, "dist", "bin", "ask-user.js")
const runs = Number(process.env["BENCH_RUNS"] ?? 5)
const dir = mkdtempSync(join(tmpdir(), "ask-user-bench-"))
const question = "Which database should the new service use?"
const requestFile = join(dir, "request.json")
writeFileSync(requestFile, JSON.stringify({
  questions: [{ id: "db", question, options: [{ label: "PostgreSQL" }, { label: "SQLite" }] }]
}))

const clack = import.meta.resolve("@clack/prompts")
const clackHelp = join(dir, "clack-help.mjs")
writeFileSync(clackHelp, `import * as p from ${JSON.stringify(clack)}
const help = "USAGE\\n  ask-user [FILE]\\n\\nFLAGS\\n  --timeout DURATION\\n  --answers FILE\\n  --no-bell\\n"
if (process.argv.includes("--help")) { process.stdout.write(help); process.exit(0) }
p.intro("ask-user")
`)
const clackPrompt = join(dir, "clack-prompt.mjs")
writeFileSync(clackPrompt, `import * as p from ${JSON.stringify(clack)}
import { readFileSync } from "node:fs"
const request = JSON.parse(readFileSync(process.argv[2], "utf8"))
const q = request.questions[0]
const value = await p.select({ message: q.question, options: q.options.map((o) => ({ value: o.label, label: o.label })) })
process.stdout.write(JSON.stringify({ answers: [{ id: q.id, selected: [value] }] }) + "\\n")
`)
const printLine = join(dir, "print-line.mjs")
writeFileSync(printLine, `process.stdout.write(${JSON.stringify(question)} + "\\n")\n`)

const node = process.execPath
const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Wall time of a process that runs to its end. */
const wall = (args: ReadonlyArray<string>): number => {
  const start = performance.now()
  const result = spawnSync(node, args, { stdio: ["ignore", "pipe", "pipe"], cwd: root })
  const elapsed = performance.now() - start
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return elapsed
}

/** Time until `text` appears on a pseudo-terminal running `args`; then the program is stopped. */
const firstLine = (args: ReadonlyArray<string>, text: string): Promise<number> =>
  new Promise((resolve, reject) => {
    // `script` gives the program a pty with no size; set one, or prompts wrap at every character.
    const command = "stty cols 120 rows 40; exec " + [node, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    const start = performance.now()
    const child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "ignore"], detached: true })
    let seen = ""
    const timer = setTimeout(() => finish(new Error(`no ${JSON.stringify(text)} from ${command}: ${JSON.stringify(seen)}`)), 30_000)
    const finish = (error?: Error) => {
      clearTimeout(timer)
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {}
      error ? reject(error) : resolve(performance.now() - start)
    }
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      // eslint-disable-next-line no-control-regex
      if (seen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").includes(text)) finish()
    })
  })

const measure = async (label: string, sample: () => number | Promise<number>) => {
  await sample() // warm the file cache and Node's compile cache
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) times.push(await sample())
  return { label, ms: median(times) }
}

const nodeBaseline = await measure("`node -e 0`", () => wall(["-e", "0"]))
const help = await measure("`ask-user --help`", () => wall([askUser, "--help"]))
const clackHelpTime = await measure("@clack/prompts script `--help`", () => wall([clackHelp, "--help"]))
const printBaseline = await measure("node printing the question line (pty)", () => firstLine([printLine], question))
const prompt = await measure("`ask-user FILE` first prompt line (pty)", () => firstLine([askUser, "--no-bell", requestFile], question))
const clackPromptTime = await measure("@clack/prompts select first line (pty)", () => firstLine([clackPrompt, requestFile], question))

const row = (m: { label: string; ms: number }, base: { ms: number }, other?: { ms: number }) =>
  `| ${m.label} | ${m.ms.toFixed(0)} | ${(m.ms / base.ms).toFixed(2)}× | ${other ? `${(m.ms / other.ms).toFixed(2)}×` : ""} |`

console.log(`Median of ${runs} runs (after one warm-up run), Node ${process.version}.\n`)
console.log("| measurement | ms | vs node baseline | vs @clack/prompts |")
console.log("|---|---:|---:|---:|")
console.log(row(nodeBaseline, nodeBaseline))
console.log(row(help, nodeBaseline, clackHelpTime))
console.log(row(clackHelpTime, nodeBaseline))
console.log(row(printBaseline, printBaseline))
console.log(row(prompt, printBaseline, clackPromptTime))
console.log(row(clackPromptTime, printBaseline))
console.log(`\nTarget \`ask-user --help\` ≤ 3× \`node -e 0\`: ${(help.ms / nodeBaseline.ms).toFixed(2)}× ` +
  `(${help.ms / nodeBaseline.ms <= 3 ? "met" : "not met"}).`)

rmSync(dir, { recursive: true, force: true })
