/**
 * `effect-user-interaction/mcp`: the Model Context Protocol surface.
 * `McpProvider` asks the human behind an MCP client through form elicitation,
 * on every protocol era; `McpToolCalls` runs tool handlers across a
 * 2026-07-28 client's `input_required` rounds.
 *
 * @since 0.2.0
 */
export { McpProvider, type McpProviderOptions } from "./McpProvider.js"
export { type ElicitReply, McpToolCall, type McpToolCallInfo, type UrlInput } from "./McpToolCall.js"
export { McpToolCalls, type ToolCallRequest } from "./McpToolCalls.js"
