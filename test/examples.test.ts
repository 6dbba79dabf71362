/** The examples in `examples/` that run to completion on their own do so, and print what they promise. */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"

const run = (file: string) => execFileSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 })

describe("examples", () => {
  it("seam.ts wires a provider and asks through the seam", () => {
    expect(run("examples/seam.ts")).toBe("deploying to staging (Recommended)\n")
  })

  it("otel.ts exports each ask as a UserInteraction.ask span through @effect/opentelemetry", () => {
    expect(run("examples/otel.ts")).toBe(
      "UserInteraction.ask (in deploy tool) " +
        "{\"ask.id\":\"deploy-42\",\"ask.agent.id\":\"deployer\",\"ask.questions\":1,\"ask.outcome\":\"answered\",\"ask.surface\":\"scripted\",\"ask.answerer\":\"scripted:test\"}\n" +
        "deploy tool {}\n"
    )
  })
})
