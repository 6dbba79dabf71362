/**
 * The `ask_user_question` tool served over MCP: its listing (that of
 * `AskUserQuestionTool`, whose JSON Schema is generated from
 * `AskUserQuestionArgs`), its calls answered through
 * the `UserInteraction` seam, and a server wired with `McpProvider` on a
 * transport. `ask-user mcp`, the tests and the benchmark share it.
 *
 * @internal
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type Tool as McpTool,
  type Transport
} from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { Tool } from "effect/ai"
import type { Writable } from "node:stream"
import type { AskUserQuestionAnswer } from "../AskUserQuestion.js"
import { AskUserQuestionTool } from "../AskUserQuestionTool.js"
import { brief, briefFailure } from "../internal/brief.js"
import { packageVersion } from "../internal/packageVersion.js"
import { modelJson } from "../internal/secrets.js"
import { requestFromToolArgs } from "../internal/toolCall.js"
import type { SecretPage } from "../SecretPage.js"
import { UserInteraction } from "../UserInteraction.js"
import { type HarnessError, ProviderFailed } from "../UserInteractionError.js"
import { causeOf, servesModernEra } from "./elicit.js"
import { repairingReplies } from "./malformedReplies.js"
import { McpProvider } from "./McpProvider.js"
import type { McpToolCalls } from "./McpToolCalls.js"

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

// The model reads the message: at most 300 characters, whatever produced it.
const failure = (error: HarnessError): CallToolResult => text(briefFailure(error), true)

/**
 * Answers one `tools/call` of `ask_user_question`: decodes the arguments
 * (`INVALID_REQUEST` naming the path, `EMPTY_QUESTIONS`) and asks through the
 * seam. Run under `McpProvider.handleToolCall`, which ties the ask to its
 * tool call (and, on a 2026-07-28 connection, to the call's rounds).
 */
export const callAskUserQuestion = (args: unknown): Effect.Effect<CallToolResult, never, UserInteraction> =>
  // Decoded when run: a 2026-07-28 retry resumes the handler its first call started, and never runs this one.
  Effect.suspend(() => {
    // The same trust as the Effect tool: only `questions` from the model.
    const request = requestFromToolArgs(args ?? {})
    if (Result.isFailure(request)) return Effect.succeed(failure(request.failure))
    return UserInteraction.ask(request.success).pipe(
      Effect.map(answered),
      Effect.catch(failed),
      Effect.catchCause(failedUnexpectedly)
    )
  })

// As the Effect tool returns it: a secret as "received", a defaulted answer with its note.
const answered = (answer: AskUserQuestionAnswer): CallToolResult => text(modelJson(answer), false)
const failed = (error: HarnessError) => Effect.succeed(failure(error))
const failedUnexpectedly = (cause: Cause.Cause<never>) =>
  Cause.hasInterruptsOnly(cause)
    ? Effect.failCause(cause)
    : Effect.succeed(failure(new ProviderFailed({ message: "The ask failed unexpectedly.", cause: Cause.squash(cause) })))

/**
 * Declares the `tools` capability and installs `tools/list` and `tools/call`
 * for `ask_user_question` on a server that is not connected yet. Calls still
 * running when the scope closes are interrupted (their elicitations are
 * cancelled on the wire).
 */
export const installAskUserQuestion = (
  server: Server
): Effect.Effect<void, never, UserInteraction | McpToolCalls | Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntimePromise<
      UserInteraction | McpToolCalls,
      CallToolResult | InputRequiredResult,
      ProtocolError
    >()
    server.registerCapabilities({ tools: {} })
    server.setRequestHandler("tools/list", () => ({ tools: [askUserQuestionTool] }))
    server.setRequestHandler("tools/call", (request, ctx) =>
      request.params.name === toolName
        ? run(McpProvider.handleToolCall(ctx, callAskUserQuestion(request.params.arguments), request))
        : Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)))
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        server.removeRequestHandler("tools/call")
        server.removeRequestHandler("tools/list")
      })
    )
  })

/** A connection error (a malformed message, a failed write) in one short line: its cause, not its dump. */
export const connectionErrorLine = (error: Error): string => brief(causeOf(error.message))

/** Options of `serveAskUser`. */
export interface ServeOptions {
  /** The seam's `timeout` for each ask. */
  readonly timeout?: Duration.Input | undefined
  /** Where the stdio transport writes (process.stdout when omitted); ignored when a transport is given. */
  readonly output?: Writable | undefined
  /** Errors of the connection that no request sees (a malformed message, a failed write). */
  readonly onerror?: ((error: Error) => void) | undefined
  /** Where secret questions are answered; without one they fail `PROVIDER_FAILED`. */
  readonly secretPage?: SecretPage["Service"] | undefined
}

/** A running `ask_user_question` server. */
export interface AskUserMcpServer {
  /** Completes when the connection closes (the client went away). */
  readonly closed: Effect.Effect<void>
}

/**
 * One server instance for a connection: an `McpServer` with the tool, a seam
 * of its own with `McpProvider` registered, living until the instance closes
 * or `scope` does.
 */
const instance = (
  scope: Scope.Scope,
  options: ServeOptions,
  made: (server: McpServer) => void
): Effect.Effect<McpServer> =>
  Effect.gen(function*() {
    const server = new McpServer({ name: "ask-user", version: packageVersion })
    made(server)
    const instanceScope = yield* Scope.fork(scope)
    const context = yield* Layer.buildWithScope(
      UserInteraction.layerWith(McpProvider.layer(server, { secretPage: options.secretPage }), { timeout: options.timeout }),
      instanceScope
    )
    yield* installAskUserQuestion(server.server).pipe(Effect.provideContext(context), Scope.provide(instanceScope))
    server.server.onclose = () => Effect.runFork(Scope.close(instanceScope, Exit.void))
    return server
  })

/**
 * An MCP server with the one tool `ask_user_question` on `transport` (stdio
 * when omitted), for the lifetime of the scope. The SDK's `serveStdio` reads
 * the connection's opening message and pins one instance for the era the
 * client speaks (2026-07-28 after `server/discover`, 2025 after
 * `initialize`); each instance asks through its own `McpProvider`.
 */
export const serveAskUser = (
  transport: Transport | undefined,
  options: ServeOptions = {}
): Effect.Effect<AskUserMcpServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    // The instance serving the client: on 2026-07-28 it sends no requests, so no reply needs repair.
    let latest: McpServer | undefined
    const awaitsReplies = () => latest === undefined || !servesModernEra(latest.server)
    const wire = transport ?? new StdioServerTransport(repairingReplies(process.stdin, awaitsReplies), options.output)
    const run = yield* FiberSet.makeRuntimePromise<never, McpServer, never>()
    const handle = serveStdio(() => run(instance(scope, options, (server) => void (latest = server))), {
      transport: wire,
      ...(options.onerror === undefined ? {} : { onerror: options.onerror })
    })
    // Finalizers run in reverse: the instances' scopes (forked later) close first, so pending
    // calls are interrupted and their forms cancelled on the wire while it is still open.
    yield* Effect.addFinalizer(() => Effect.promise(() => handle.close()))
    const closed = yield* Deferred.make<void>()
    const onWireClose = wire.onclose
    wire.onclose = () => {
      onWireClose?.()
      Deferred.doneUnsafe(closed, Effect.void)
    }
    return { closed: Deferred.await(closed) }
  })
