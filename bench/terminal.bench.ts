/**
 * How fast `ask-user` starts: `ask-user --help`, `--version` and
 * `--answers FILE req.json` wall time against `node -e 0`, and the time until
 * the first question is on a terminal against the same job done with
 * `@clack/prompts`. Each ratio is the median of paired runs: every round runs
 * the baseline and the subject back to back, so a noisy neighbour slows both.
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
const runs = Number(process.env["BENCH_RUNS"] ?? 11)
const dir = mkdtempSync(join(tmpdir(), "ask-user-bench-"))
const question = "Which database should the new service use?"
const requestFile = join(dir, "request.json")
writeFileSync(requestFile, JSON.stringify({
  questions: [{ id: "db", question, options: [{ label: "PostgreSQL" }, { label: "SQLite" }] }]
}))
const answersFile = join(dir, "answers.json")
writeFileSync(answersFile, JSON.stringify({ db: "SQLite" }))

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

interface Pair {
  readonly label: string
  readonly baseline: string
  readonly ms: number
  readonly baseMs: number
  readonly ratio: number
  readonly target: number
}

/** Median of `runs` paired rounds (after one warm-up of each): subject and baseline back to back. */
const paired = async (
  label: string,
  subject: () => number | Promise<number>,
  baseline: string,
  base: () => number | Promise<number>,
  target: number
): Promise<Pair> => {
  await base()
  await subject() // warm the file cache and Node's compile cache
  const ms: Array<number> = []
  const baseMs: Array<number> = []
  const ratios: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const b = await base()
    const m = await subject()
    baseMs.push(b)
    ms.push(m)
    ratios.push(m / b)
  }
  return { label, baseline, ms: median(ms), baseMs: median(baseMs), ratio: median(ratios), target }
}

const nodeZero = () => wall(["-e", "0"])
const results = [
  await paired("`ask-user --help`", () => wall([askUser, "--help"]), "`node -e 0`", nodeZero, 3),
  await paired("`ask-user --version`", () => wall([askUser, "--version"]), "`node -e 0`", nodeZero, 3),
  await paired("`ask-user --answers FILE req.json`", () => wall([askUser, "--answers", answersFile, requestFile]), "`node -e 0`", nodeZero, 4),
  await paired(
    "`ask-user FILE`, first prompt line (pty)",
    () => firstLine([askUser, "--no-bell", requestFile], question),
    "@clack/prompts select, first line (pty)",
    () => firstLine([clackPrompt, requestFile], question),
    2
  ),
  await paired("@clack/prompts script `--help`", () => wall([clackHelp, "--help"]), "`node -e 0`", nodeZero, Infinity),
  await paired("node printing the question line (pty)", () => firstLine([printLine], question), "`node -e 0`", nodeZero, Infinity)
]

console.log(`Median of ${runs} paired runs (after one warm-up run of each), Node ${process.version}.\n`)
console.log("| measurement | ms | baseline | baseline ms | ratio | target |")
console.log("|---|---:|---|---:|---:|---:|")
for (const r of results) {
  const target = Number.isFinite(r.target) ? `≤ ${r.target}× (${r.ratio <= r.target ? "met" : "not met"})` : ""
  console.log(`| ${r.label} | ${r.ms.toFixed(0)} | ${r.baseline} | ${r.baseMs.toFixed(0)} | ${r.ratio.toFixed(2)}× | ${target} |`)
}

rmSync(dir, { recursive: true, force: true })
