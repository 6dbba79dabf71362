/**
 * The `ask_user_question` tool served over MCP: its listing (that of
 * `AskUserQuestionTool`, whose JSON Schema is generated from
 * `AskUserQuestionArgs`), its calls answered through
 * the `UserInteraction` seam, and a server wired with `McpProvider` on a
 * transport. `ask-user mcp`, the tests and the benchmark share it.
 *
 * @internal
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Context, Deferred, type Duration, Effect, FiberSet, Layer, Option, Result, type Scope } from "effect"
import { Tool } from "effect/ai"
import { requestFromToolArgs } from "../internal/toolCall.js"
import { AskUserQuestionTool } from "../AskUserQuestionTool.js"
import { McpProvider, McpToolCall } from "./McpProvider.js"
import { packageVersion } from "../internal/packageVersion.js"
import { UserInteraction } from "../UserInteraction.js"
import { type HarnessError, ProviderFailed } from "../UserInteractionError.js"

/** The one tool's name, as the model sees it. */
export const toolName = AskUserQuestionTool.name

const annotations = AskUserQuestionTool.annotations
const title = Option.getOrUndefined(Context.getOption(annotations, Tool.Title))
const description = Tool.getDescription(AskUserQuestionTool)

/**
 * The tool as `tools/list` shows it: name, title, description, hints and
 * input JSON Schema are `AskUserQuestionTool`'s, so a model behind an MCP
 * client sees exactly what an effect/ai model sees.
 */
export const askUserQuestionTool: McpTool = {
  name: toolName,
  ...(title === undefined ? {} : { title }),
  ...(description === undefined ? {} : { description }),
  inputSchema: Tool.getJsonSchema(AskUserQuestionTool) as McpTool["inputSchema"],
  annotations: {
    readOnlyHint: Context.get(annotations, Tool.Readonly),
    destructiveHint: Context.get(annotations, Tool.Destructive),
    idempotentHint: Context.get(annotations, Tool.Idempotent),
    openWorldHint: Context.get(annotations, Tool.OpenWorld)
  }
}

const text = (body: unknown, isError: boolean): CallToolResult =>
  isError
    ? { content: [{ type: "text", text: JSON.stringify(body) }], isError: true }
    : { content: [{ type: "text", text: JSON.stringify(body) }] }

const failure = (error: HarnessError): CallToolResult => text(error.toJSON(), true)

/**
 * Answers one `tools/call` of `ask_user_question`: decodes the arguments
 * (`INVALID_REQUEST` naming the path, `EMPTY_QUESTIONS`) and asks through the
 * seam. The call's `signal` (aborted when the client cancels the call) is
 * the request's; its `requestId` is the elicitation's related request.
 */
export const callAskUserQuestion = (
  args: unknown,
  extra: { readonly signal: AbortSignal; readonly requestId: RequestId }
): Effect.Effect<CallToolResult, never, UserInteraction> => {
  // The same order and the same trust as the Effect tool: an aborted call first; only `questions` from the model.
  const request = requestFromToolArgs(args ?? {}, { signal: extra.signal })
  if (Result.isFailure(request)) return Effect.succeed(failure(request.failure))
  return UserInteraction.ask(request.success).pipe(
    Effect.provideService(McpToolCall, { requestId: extra.requestId }),
    Effect.map((answer) => text(answer, false)),
    Effect.catch((error) => Effect.succeed(failure(error))),
    Effect.catchCause((cause) =>
      Effect.succeed(failure(new ProviderFailed({ message: "The ask failed unexpectedly.", cause: Cause.squash(cause) })))
    )
  )
}

/**
 * Declares the `tools` capability and installs `tools/list` and `tools/call`
 * for `ask_user_question` on a server that is not connected yet. Calls still
 * running when the scope closes are interrupted (their elicitations are
 * cancelled on the wire).
 */
export const installAskUserQuestion = (server: Server): Effect.Effect<void, never, UserInteraction | Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntimePromise<UserInteraction, CallToolResult, never>()
    server.registerCapabilities({ tools: {} })
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [askUserQuestionTool] }))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      request.params.name === toolName
        ? run(callAskUserQuestion(request.params.arguments, extra))
        : Promise.reject(new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)))
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        server.removeRequestHandler("tools/call")
        server.removeRequestHandler("tools/list")
      })
    )
  })

/** Options of `serveAskUser`: the seam's `timeout` for each ask. */
export interface ServeOptions {
  readonly timeout?: Duration.Input | undefined
}

/** A running `ask_user_question` server. */
export interface AskUserMcpServer {
  readonly server: McpServer
  /** Completes when the transport closes (the client went away). */
  readonly closed: Effect.Effect<void>
}


/**
 * An MCP server with the one tool `ask_user_question`, answered through a
 * seam of its own with `McpProvider` registered, connected to `transport` for
 * the lifetime of the scope.
 */
export const serveAskUser = (
  transport: Transport,
  options: ServeOptions = {}
): Effect.Effect<AskUserMcpServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const server = new McpServer({ name: "ask-user", version: packageVersion })
    const context = yield* Layer.build(UserInteraction.layerWith(McpProvider.layer(server), { timeout: options.timeout }))
    // Finalizers run in reverse: pending calls are interrupted (their forms
    // cancelled on the wire) while the connection is still open, then it closes.
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close()))
    yield* installAskUserQuestion(server.server).pipe(Effect.provideContext(context))
    const closed = yield* Deferred.make<void>()
    server.server.onclose = () => Deferred.doneUnsafe(closed, Effect.void)
    yield* Effect.promise(() => server.connect(transport))
    return { server, closed: Deferred.await(closed) }
  })
