/**
 * What an ask knows about the MCP tool call it serves: the `tools/call`
 * request's id and, on a 2026-07-28 connection, the channel through which
 * the call's `input_required` rounds carry a form to the client and its
 * reply back.
 *
 * @since 0.1.0
 */
import type {
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitResult,
  Implementation,
  RequestId
} from "@modelcontextprotocol/server"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ProviderFailed } from "../UserInteractionError.js"

/**
 * The client's reply to one form: what `elicitation/create` answers, whether
 * it came as a response (2025 era) or in a retry's `inputResponses` (2026-07-28).
 * `content` is as the client sent it, unchecked: the form's reader refuses
 * content of the wrong shape as `InvalidAnswer`.
 *
 * @since 0.2.0
 */
export interface ElicitReply {
  readonly action: ElicitResult["action"]
  readonly content?: unknown
}

/**
 * A URL-mode elicitation as a 2026-07-28 input request carries it: that
 * revision has no `elicitationId` (the retry names the round).
 *
 * @since 0.3.0
 */
export interface UrlInput {
  readonly mode: "url"
  readonly message: string
  readonly url: string
}

/**
 * The tool call an ask serves.
 *
 * @since 0.2.0
 */
export interface McpToolCallInfo {
  /** The `tools/call` request's id (`ctx.mcpReq.id`). */
  readonly requestId: RequestId
  /**
   * Set by `McpProvider.handleToolCall` on a 2026-07-28 connection: puts a
   * form (or, since 0.3.0, a URL-mode elicitation) in the call's next
   * `input_required` result and waits for the client's retry to bring the
   * reply (`ProviderFailed` when what it brings is no elicitation result).
   */
  readonly requestInput?:
    | ((input: ElicitRequestFormParams | UrlInput) => Effect.Effect<ElicitReply, ProviderFailed>)
    | undefined
  /** The capabilities the client declared on this request (2026-07-28: every request carries them). */
  readonly capabilities?: ClientCapabilities | undefined
  /**
   * The client's name and version as this request declared them (2026-07-28:
   * every request carries them); who answers its forms, `mcp:<name>`.
   *
   * @since 0.3.0
   */
  readonly clientInfo?: Implementation | undefined
}

/**
 * The MCP request an ask comes from, usually the `tools/call` being handled.
 * `McpProvider.handleToolCall` sets it around a tool's handler; code that
 * runs its own handlers on a 2025-era connection may set `{ requestId }`
 * itself, which makes `McpProvider` send its elicitation as related to that
 * request (Streamable HTTP delivers it on that request's stream).
 *
 * ```ts
 * UserInteraction.ask(request).pipe(Effect.provideService(McpToolCall, { requestId: ctx.mcpReq.id }))
 * ```
 *
 * @since 0.1.0
 */
export const McpToolCall = Context.Reference<McpToolCallInfo | undefined>(
  "effect-user-interaction/McpToolCall",
  { defaultValue: () => undefined }
)
