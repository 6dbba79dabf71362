/**
 * Asks the human behind an MCP client (Claude Code, VS Code, Cursor, ...)
 * through the client's own form: MCP form elicitation, one form per
 * request, the same form as `AcpProvider` (see `ElicitationForm`), on every
 * protocol era the SDK's v2 server serves:
 *
 * - 2026-07-28: the form rides the tool call's `input_required` result and
 *   the client's retry brings the reply (`McpProvider.handleToolCall` runs
 *   the tool's handler across those calls);
 * - 2025-11-25: an `elicitation/create` request pushed to the client;
 * - 2025-06-18: the same, with the form in that revision's schema.
 *
 * ```ts
 * const server = new McpServer({ name: "my-agent-tools", version: "1.0.0" })
 * const layer = UserInteraction.layerWith(McpProvider.layer(server))
 * ```
 *
 * A secret question is never put in a form: given a `secretPage`, the
 * provider asks the other questions in one form, then sends each secret
 * question as a URL-mode elicitation pointing at a one-time page that takes
 * the value (see `SecretPage`); the client only says whether the human went
 * there. A 2025-11-25 client is told when the page has its answer
 * (`notifications/elicitation/complete`).
 *
 * Outcomes: accept -> the answer (held to the answer rules); decline ->
 * `AskDeclined`; cancel -> `AskCancelled`; each given by the client,
 * `mcp:<clientInfo.name>` (an ask whose `answerableBy` does not allow it
 * fails `NotAuthorized` before anything is sent); a client without form
 * elicitation (for the questions that are not secret) or without URL mode
 * (for the secret ones), or a secret question and no `secretPage` ->
 * `ProviderFailed` before anything is sent; content that
 * breaks the form -> `InvalidAnswer`; a client error or a closed connection
 * -> `ProviderFailed`. No SDK request timeout ends a human's answer: only
 * the seam's `timeout` does. Interrupting a 2025-era ask sends
 * `notifications/cancelled` for its elicitation.
 *
 * @since 0.1.0
 */
import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  ProtocolError,
  Server,
  ServerContext
} from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { formRefusal } from "../ElicitationForm.js"
import { askAs, clientAnswerer } from "../internal/answeredBy.js"
import { askWithSecretPages, hasSecrets } from "../internal/secretAsk.js"
import type { SecretPage } from "../SecretPage.js"
import { UserInteractionProvider } from "../UserInteractionProvider.js"
import { ProviderFailed } from "../UserInteractionError.js"
import {
  currentForm,
  fromElicitResult,
  fromUrlReply,
  missingSupport,
  notifyCompleted,
  pushElicitation,
  pushUrlElicitation,
  sendPing,
  servesModernEra
} from "./elicit.js"
import { McpToolCall, type McpToolCallInfo } from "./McpToolCall.js"
import { McpToolCalls, type ToolCallRequest } from "./McpToolCalls.js"

const lowLevel = (server: McpServer | Server): Server => "server" in server ? server.server : server

const outsideToolCall = new ProviderFailed({
  message: "A 2026-07-28 MCP client can only be asked from a tool call run by McpProvider.handleToolCall."
})

/**
 * Options of `McpProvider.layer`.
 *
 * @since 0.3.0
 */
export interface McpProviderOptions {
  /**
   * Where secret questions are answered (for example `WebSecretPage`).
   * Without one, a request with a secret question fails `PROVIDER_FAILED`
   * before anything is sent.
   */
  readonly secretPage?: SecretPage["Service"] | undefined
}

/** A 2026-07-28 ask: each form, and each URL-mode elicitation, rides an `input_required` round of the tool call. */
const askInRounds = (
  request: AskUserQuestionRequest,
  requestInput: NonNullable<McpToolCallInfo["requestInput"]>,
  secretPage: SecretPage["Service"] | undefined
) => {
  const askForm = (asked: AskUserQuestionRequest) => {
    const form = currentForm(asked)
    return Effect.flatMap(requestInput(form.params), (reply) => fromElicitResult(asked, form, reply))
  }
  if (secretPage === undefined || !hasSecrets(request)) return askForm(request)
  return askWithSecretPages(request, secretPage, {
    form: askForm,
    url: (elicitation) => Effect.flatMap(requestInput({ mode: "url", message: elicitation.message, url: elicitation.url }), fromUrlReply),
    // That revision has no completion notice: the client's retry is what it waits on.
    completed: () => Effect.void
  })
}

const providerLayer = (sdk: Server, secretPage: SecretPage["Service"] | undefined): Layer.Layer<UserInteractionProvider> =>
  Layer.effect(
    UserInteractionProvider,
    Effect.gen(function*() {
      // The ping that takes request id 0 is not awaited; it ends with the provider at the latest.
      const ping = yield* Effect.acquireRelease(
        Effect.sync(() => new AbortController()),
        (controller) => Effect.sync(() => controller.abort())
      )
      let idZeroTaken = false
      const takeIdZero = Effect.sync(() => {
        if (idZeroTaken) return
        idZeroTaken = true
        sendPing(sdk, ping.signal)
      })
      const askOn = (request: AskUserQuestionRequest, call: McpToolCallInfo | undefined) =>
        Effect.gen(function*() {
          // A secret has no place in a form; URL mode (a secret page) is the only way to ask one.
          const refused = secretPage === undefined ? formRefusal(request, "MCP") : undefined
          if (refused !== undefined) return yield* refused
          if (call?.requestInput !== undefined) {
            const missing = missingSupport(call.capabilities, undefined, request)
            if (missing !== undefined) return yield* missing
            return yield* askInRounds(request, call.requestInput, secretPage)
          }
          if (servesModernEra(sdk)) return yield* outsideToolCall
          const missing = missingSupport(sdk.getClientCapabilities(), sdk.getNegotiatedProtocolVersion(), request)
          if (missing !== undefined) return yield* missing
          yield* takeIdZero
          const related = call?.requestId
          if (secretPage === undefined || !hasSecrets(request)) return yield* pushElicitation(sdk, request, related)
          return yield* askWithSecretPages(request, secretPage, {
            form: (asked) => pushElicitation(sdk, asked, related),
            url: (elicitation) => pushUrlElicitation(sdk, elicitation, related),
            completed: (elicitation) => notifyCompleted(sdk, elicitation, related)
          })
        })
      return UserInteractionProvider.of({
        // Who answers is the client, as the request (2026-07-28) or `initialize` (2025 eras) named it.
        ask: (request) =>
          Effect.flatMap(McpToolCall, (call) =>
            askAs(clientAnswerer("mcp", call?.clientInfo ?? sdk.getClientVersion()), request, askOn(request, call))),
        name: "mcp"
      })
    })
  )

/**
 * A provider that asks through the MCP client connected to `server` (the
 * high-level `McpServer` or its low-level `Server`), and the `McpToolCalls`
 * runner for that server's tool handlers. The server may be connected
 * before or after the layer is built. A 2025-era client needs
 * `capabilities.elicitation` from `initialize` (`{ form: {} }`, or `{}`,
 * which MCP reads as form support); a 2026-07-28 client declares it on the
 * tool call itself. Secret questions need `options.secretPage` and a
 * client that declares `capabilities.elicitation.url` (2025-11-25 or later).
 *
 * @since 0.1.0
 */
const layer = (
  server: McpServer | Server,
  options: McpProviderOptions = {}
): Layer.Layer<UserInteractionProvider | McpToolCalls> => {
  const sdk = lowLevel(server)
  return Layer.merge(providerLayer(sdk, options.secretPage), McpToolCalls.layer(sdk))
}

/**
 * Runs a tool's handler as the answer to its `tools/call` (`ctx` is the SDK
 * handler's second argument), so that the handler's asks reach the client
 * on whatever era it speaks: on 2026-07-28 the result may be
 * `input_required`, and the client's retry resumes the handler. Pass the
 * `tools/call` `request` too (through `McpServer.registerTool`, `{ params:
 * { name, arguments } }`), and a retry that changes the tool or its
 * arguments is refused instead of resuming a handler that asked other
 * questions; without it, one tool's state brought to another tool resumes
 * the first.
 *
 * ```ts
 * server.setRequestHandler("tools/call", (request, ctx) =>
 *   runtime.runPromise(McpProvider.handleToolCall(ctx, deploy(request.params.arguments), request)))
 * ```
 *
 * @since 0.2.0
 */
const handleToolCall = <E, R>(
  ctx: ServerContext,
  handler: Effect.Effect<CallToolResult, E, R>,
  request?: ToolCallRequest
): Effect.Effect<CallToolResult | InputRequiredResult, E | ProtocolError, R | McpToolCalls> =>
  McpToolCalls.use((calls) => calls.handle(ctx, handler, request))

/**
 * The MCP provider's constructors.
 *
 * @since 0.1.0
 */
export const McpProvider = {
  layer,
  handleToolCall
} as const
