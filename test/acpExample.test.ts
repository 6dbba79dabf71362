/** examples/acp-agent.ts, run as an editor would run it, answered by the SDK's client app. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { driveAgent, neverAnswers, spawnProgram, waitFor } from "./acpHarness.js"

describe("examples/acp-agent.ts", () => {
  it.live("asks inside its tool call and uses the answer; session/cancel ends the turn cancelled", () =>
    Effect.gen(function*() {
      let answer = true
      const program = yield* spawnProgram(["examples/acp-agent.ts"])
      const agent = yield* driveAgent(program.stream, (seen) =>
        answer ? { action: "accept", content: { question_1: "staging", question_2: "ship it" } } : neverAnswers(seen))
      const sessionId = yield* agent.newSession()
      const turn = yield* agent.prompt(sessionId, "deploy please")
      expect(turn).toEqual({ stopReason: "end_turn", reply: "Deployed to staging." })
      const toolCall = agent.updates.find((n) => n.update.sessionUpdate === "tool_call")
      expect(agent.seen[0]!.params).toMatchObject({
        sessionId,
        toolCallId: (toolCall?.update as { toolCallId?: string } | undefined)?.toolCallId
      })

      answer = false
      const pending = yield* Effect.forkChild(agent.prompt(sessionId, "deploy again"))
      yield* waitFor(() => agent.seen.length === 2, "the second form")
      yield* agent.cancel(sessionId)
      expect((yield* Fiber.join(pending)).stopReason).toBe("cancelled")
      yield* waitFor(() => agent.seen[1]!.signal.aborted, "$/cancel_request")
    }))
})
