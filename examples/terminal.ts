/**
 * A tool that needs the human, asking on this terminal: arrows and Enter to
 * choose, Space to toggle, "Other" to type, Esc to cancel, Ctrl+C to abort.
 * Pipe answers in (`printf '1\n' | node examples/terminal.ts`) and the same
 * code asks in line mode.
 *
 * Run: npm run build && node examples/terminal.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { TerminalProvider } from "effect-user-interaction/terminal"

const cleanupTool = Effect.gen(function*() {
  const { answers } = yield* UserInteraction.ask({
    agent: { id: "janitor", name: "Janitor" },
    questions: [{
      id: "scope",
      header: "Cleanup",
      question: "Which caches may I delete?",
      multiSelect: true,
      options: [
        { label: "node_modules/.cache", description: "Rebuilt on the next build." },
        { label: "dist", description: "Rebuilt by npm run build." },
        { label: "~/.npm/_cacache", description: "Shared with every project." }
      ]
    }]
  })
  const answer = answers[0]!
  return answer.custom ?? (answer.selected.length === 0 ? "nothing" : answer.selected.join(", "))
}).pipe(
  Effect.catchTags({
    AskCancelled: () => Effect.succeed("nothing (cancelled)"),
    AskTimeout: () => Effect.succeed("nothing (no answer in time)")
  })
)

NodeRuntime.runMain(
  cleanupTool.pipe(
    Effect.flatMap((what) => Console.error(`deleting: ${what}`)),
    Effect.provide(UserInteraction.layerWith(TerminalProvider.layer({ bell: false }), { timeout: "5 minutes" }))
  )
)
