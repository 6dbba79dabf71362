/**
 * examples/mcp-server.ts, run as an MCP client runs it, by a client of each
 * protocol era: its own `deploy` tool asks through `McpProvider.handleToolCall`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { toContent20250618 } from "../src/mcp/form20250618.js"
import { eras, nodeOverStdio } from "./support/mcpClient.js"

const request = {
  questions: [
    { id: "target", question: "Deploy to which environment?", options: [{ label: "staging (Recommended)" }, { label: "production" }] },
    { id: "note", question: "Release note?" }
  ]
}

describe("examples/mcp-server.ts", () => {
  it.live.each(eras)("%s: the deploy tool asks the client's human and uses the answer", (era) =>
    Effect.gen(function*() {
      const content = { question_1: "production", question_2: "ship it" }
      const h = yield* nodeOverStdio(["examples/mcp-server.ts"], {
        era,
        human: () => ({
          action: "accept",
          content: era === "2025-06-18"
            ? toContent20250618(request, { answers: [{ id: "target", selected: ["production"] }, { id: "note", selected: [], custom: "ship it" }] })
            : content
        })
      })
      const result: any = yield* Effect.promise(() => h.callTool("deploy", {}))
      expect(result.content).toEqual([{ type: "text", text: "Deployed to production. Note: ship it" }])
      expect(h.forms).toHaveLength(1)
      expect(h.forms[0]!.message).toContain("Deploy to which environment?")
    }))
})
