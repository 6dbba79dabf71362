/**
 * Asks the human behind an MCP client (Claude Code, VS Code, Cursor, ...)
 * through the client's own form: MCP form elicitation
 * (`elicitation/create`), one form per request, the same form as
 * `AcpProvider` (see `ElicitationForm`).
 *
 * ```ts
 * const mcp = new McpServer({ name: "my-agent-tools", version: "1.0.0" })
 * const layer = UserInteraction.layerWith(McpProvider.layer(mcp))
 * ```
 *
 * Outcomes: accept -> the answer (held to the answer rules); decline ->
 * `AskDeclined`; cancel -> `AskCancelled`; a client without form elicitation
 * -> `ProviderFailed` before anything is sent; content that breaks the form
 * (including the SDK's own schema check, -32602) -> `InvalidAnswer`; any
 * other transport or client error -> `ProviderFailed`. No SDK request timeout
 * ends a human's answer: only the seam's `timeout` does. Interrupting the ask
 * sends `notifications/cancelled` for its elicitation.
 *
 * @since 0.1.0
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestId } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer } from "effect"
import { elicit, pingNow, supportsFormElicitation } from "./elicit.js"
import { UserInteractionProvider } from "../UserInteractionProvider.js"
import { ProviderFailed } from "../UserInteractionError.js"

/**
 * The MCP request an ask comes from, usually the `tools/call` being handled
 * (`extra.requestId` in an SDK request handler). When set around an ask,
 * `McpProvider` sends its elicitation as related to that request, which
 * Streamable HTTP uses to deliver it on that request's stream. Over stdio it
 * changes nothing.
 *
 * ```ts
 * UserInteraction.ask(request).pipe(Effect.provideService(McpToolCall, { requestId: extra.requestId }))
 * ```
 *
 * @since 0.1.0
 */
export const McpToolCall = Context.Reference<{ readonly requestId: RequestId } | undefined>(
  "effect-user-interaction/McpToolCall",
  { defaultValue: () => undefined }
)

const lowLevel = (server: McpServer | Server): Server => "server" in server ? server.server : server

/**
 * A provider that asks through the MCP client connected to `server` (the
 * high-level `McpServer` or its low-level `Server`). The server may be
 * connected before or after the layer is built; each ask needs a client that
 * has completed `initialize` with `capabilities.elicitation` (`{ form: {} }`,
 * or `{}`, which MCP reads as form support).
 *
 * @since 0.1.0
 */
const layer = (server: McpServer | Server): Layer.Layer<UserInteractionProvider> =>
  Layer.sync(UserInteractionProvider, () => {
    const sdk = lowLevel(server)
    let idZeroTaken = false
    const takeIdZero = Effect.suspend(() => {
      if (idZeroTaken) return Effect.void
      idZeroTaken = true
      return pingNow(sdk)
    })
    return UserInteractionProvider.of({
      ask: (request) =>
        Effect.gen(function*() {
          if (!supportsFormElicitation(sdk)) {
            return yield* new ProviderFailed({
              message: "The MCP client cannot show forms: it did not advertise capabilities.elicitation."
            })
          }
          yield* takeIdZero
          const toolCall = yield* McpToolCall
          return yield* elicit(sdk, request, toolCall?.requestId)
        }),
      name: "mcp"
    })
  })

/**
 * The MCP provider's constructors.
 *
 * @since 0.1.0
 */
export const McpProvider = {
  layer
} as const
