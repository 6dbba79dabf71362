/**
 * The seam in twenty lines: a tool asks, whichever provider is registered
 * answers. Swap `ScriptedProvider.layer(...)` for `TerminalProvider.layer()`
 * (or the ACP, MCP or web provider) and nothing else changes.
 *
 * Run: npm run build && node examples/seam.ts
 */
import { Effect } from "effect"
import { ScriptedProvider, UserInteraction } from "effect-user-interaction"

const deployTool = Effect.gen(function*() {
  const { answers } = yield* UserInteraction.ask({
    questions: [{ id: "target", question: "Deploy where?", options: [{ label: "staging (Recommended)" }, { label: "production" }] }]
  })
  return `deploying to ${answers[0]?.selected[0] ?? answers[0]?.custom ?? "nowhere"}`
}).pipe(Effect.catchTag("AskCancelled", () => Effect.succeed("the human cancelled; not deploying")))

const scripted = ScriptedProvider.layer((request) =>
  Effect.succeed({ answers: request.questions.map((q) => ({ id: q.id, selected: [q.options?.[0]?.label ?? ""] })) })
)

const result = await Effect.runPromise(
  deployTool.pipe(Effect.provide(UserInteraction.layerWith(scripted, { timeout: "5 minutes" })))
)
console.log(result)
