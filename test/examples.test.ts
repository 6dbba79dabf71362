/** The examples in `examples/` that run to completion on their own do so, and print what they promise. */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"

const run = (file: string) => execFileSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 })

describe("examples", () => {
  it("seam.ts wires a provider and asks through the seam", () => {
    expect(run("examples/seam.ts")).toBe("deploying to staging (Recommended)\n")
  })
})
