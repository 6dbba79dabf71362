/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own Node process, one
 * after another, so one benchmark's heap and timers never colour another's.
 * Each prints its own table; figures are ratios against a baseline measured
 * in the same process.
 */
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { join } from "node:path"

const dir = import.meta.dirname
const only = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
let failed = 0
for (const file of files) {
  process.stdout.write(`\n## ${file}\n\n`)
  const run = spawnSync(process.execPath, ["--expose-gc", join(dir, file)], { stdio: "inherit" })
  if (run.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
