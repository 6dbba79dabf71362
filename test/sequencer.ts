/**
 * Starts the slowest files first. They mostly wait (npm installs a tarball,
 * Chromium loads a page, programs run in tmux), so overlapping them with the
 * rest is most of the suite's wall time; left to file size, vitest would start
 * the small package test last and wait for it alone.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node"

const slowFirst = ["package", "packageNpx", "durablePostgres", "durableCli", "webPage", "e2e-terminal", "cli", "webCli", "mcpStdio", "acpAgent", "entryPoints"]

const rank = (spec: TestSpecification) => {
  const name = spec.moduleId.replace(/^.*\/test\//, "").replace(/\.test\.ts$/, "")
  const index = slowFirst.indexOf(name)
  return index === -1 ? slowFirst.length : index
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec)
  }
}
