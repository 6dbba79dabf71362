/**
 * Your own MCP server whose tool needs the human: a `deploy` tool that asks
 * for confirmation through the MCP client's own form (`McpProvider`), by way
 * of the `UserInteraction` seam. Swap `McpProvider.layer(server)` for another
 * provider layer and the same tool code asks on a terminal or a web page.
 *
 * The SDK's `serveStdio` builds one server per connection for the protocol
 * era the client speaks; `McpProvider.handleToolCall` makes the same handler
 * work on all of them (on 2026-07-28 the form travels in the call's
 * `input_required` result and the client's retry brings the answer).
 *
 * Register it in an MCP client as the command `node examples/mcp-server.ts`
 * (after `npm run build`).
 */
import { McpServer } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { Effect, ManagedRuntime } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { McpProvider } from "effect-user-interaction/mcp"

const deploy = UserInteraction.ask({
  questions: [
    {
      id: "target",
      question: "Deploy to which environment?",
      options: [{ label: "staging (Recommended)" }, { label: "production" }]
    },
    { id: "note", question: "Release note?" }
  ]
}).pipe(
  Effect.map(({ answers }) => {
    const target = answers[0]?.custom ?? answers[0]?.selected[0]
    const text = target === undefined
      ? "The user skipped the deploy."
      : `Deployed to ${target}. Note: ${answers[1]?.custom ?? "(none)"}`
    return { content: [{ type: "text" as const, text }] }
  }),
  // Cancelled, declined, timed out, ...: tell the model which, in the contract's shape.
  Effect.catch((error) =>
    Effect.succeed({ content: [{ type: "text" as const, text: JSON.stringify(error.toJSON()) }], isError: true })
  )
)

serveStdio(() => {
  const server = new McpServer({ name: "deployer", version: "1.0.0" })
  const runtime = ManagedRuntime.make(UserInteraction.layerWith(McpProvider.layer(server), { timeout: "10 minutes" }))
  server.registerTool(
    "deploy",
    { description: "Deploy the current build, after the user confirms." },
    // The call's tool name (and arguments, for a tool that takes some): a 2026-07-28 retry that
    // brings this call's state to another tool is refused instead of resuming this handler.
    (ctx) => runtime.runPromise(McpProvider.handleToolCall(ctx, deploy, { params: { name: "deploy" } }))
  )
  server.server.onclose = () => void runtime.dispose()
  return server
})
