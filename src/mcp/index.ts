/**
 * `effect-user-interaction/mcp`: the Model Context Protocol surface.
 * `McpProvider` asks the human behind an MCP client through form elicitation.
 *
 * @since 0.2.0
 */
export { McpProvider, McpToolCall } from "./McpProvider.js"
