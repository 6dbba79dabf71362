/**
 * Your own MCP server whose tool needs the human: a `deploy` tool that asks
 * for confirmation through the MCP client's own form (`McpProvider`), by way
 * of the `UserInteraction` seam. Swap `McpProvider.layer(server)` for another
 * provider layer and the same tool code asks on a terminal or a web page.
 *
 * Register it in an MCP client as the command `node examples/mcp-server.ts`
 * (after `npm run build`).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { RequestId } from "@modelcontextprotocol/sdk/types.js"
import { Effect, ManagedRuntime } from "effect"
import { isUserInteractionError, UserInteraction } from "effect-user-interaction"
import { McpProvider, McpToolCall } from "effect-user-interaction/mcp"

const server = new McpServer({ name: "deployer", version: "1.0.0" })
const runtime = ManagedRuntime.make(UserInteraction.layerWith(McpProvider.layer(server), { timeout: "10 minutes" }))

const confirmDeploy = (signal: AbortSignal, requestId: RequestId) =>
  UserInteraction.ask({
    signal, // the client cancelling the tool call takes the form down
    questions: [
      {
        id: "target",
        question: "Deploy to which environment?",
        options: [{ label: "staging (Recommended)" }, { label: "production" }]
      },
      { id: "note", question: "Release note?" }
    ]
  }).pipe(Effect.provideService(McpToolCall, { requestId })) // ties the form to this tools/call

server.registerTool("deploy", { description: "Deploy the current build, after the user confirms." }, async (extra) => {
  try {
    const { answers } = await runtime.runPromise(confirmDeploy(extra.signal, extra.requestId))
    const target = answers[0]?.custom ?? answers[0]?.selected[0]
    if (target === undefined) return { content: [{ type: "text", text: "The user skipped the deploy." }] }
    return { content: [{ type: "text", text: `Deployed to ${target}. Note: ${answers[1]?.custom ?? "(none)"}` }] }
  } catch (error) {
    // Cancelled, declined, timed out, ...: tell the model which, in the contract's shape.
    const text = isUserInteractionError(error) ? JSON.stringify(error.toJSON()) : String(error)
    return { content: [{ type: "text", text }], isError: true }
  }
})

await server.connect(new StdioServerTransport())
process.stdin.once("end", () => void runtime.dispose().then(() => server.close()))
