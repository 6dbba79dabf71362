/**
 * The agent behind `ask-user acp`: an ACP agent whose every prompt turn asks
 * the human one batch through `AcpProvider` and streams the answer JSON back.
 *
 * - `initialize` registers the `AcpProvider` for this connection, with the
 *   client's capabilities (so a client without form elicitation gets
 *   `PROVIDER_FAILED` reports and never an elicitation);
 * - `session/prompt`: prompt text that parses as a JSON object is the request
 *   (`decodeRequestJson`; a bad one is reported as `INVALID_REQUEST`), any
 *   other text asks the demo batch. The answer JSON, or a failure's
 *   `{"name","code","message"}`, goes back as one `agent_message_chunk`, and
 *   the turn ends `end_turn`;
 * - `session/cancel` interrupts the session's turn: its pending elicitation
 *   is cancelled on the wire (`$/cancel_request`) before the prompt is
 *   answered `cancelled`.
 *
 * The asks run in the session that prompted (`AcpProvider.withSession`), so a
 * request's own `agent` field can name who asks but never redirects the form.
 *
 * @internal
 */
import * as acp from "@agentclientprotocol/sdk"
import { Cause, Duration, Effect, Exit, Fiber, FiberMap, Layer, Result, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { AcpProvider } from "./AcpProvider.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { decodeRequestJson } from "../AskUserQuestionArgs.js"
import { UserInteraction } from "../UserInteraction.js"
import { type HarnessError, ProviderFailed, type UserInteractionError } from "../UserInteractionError.js"

/** How the agent runs. */
export interface AcpAgentOptions {
  /** The seam's timeout for each ask (`--timeout`); none by default. */
  readonly timeout?: Duration.Input | undefined
  /** The batch asked when the prompt is not a JSON request. */
  readonly demoRequest: AskUserQuestionRequest
  /** Reported as `agentInfo.version` in the `initialize` response. */
  readonly version: string
  /** Told about every turn that ended in a failure (the command prints it on stderr). */
  readonly onFailure?: ((error: HarnessError) => void) | undefined
}

/** The prompt's text: its text blocks, in order. */
const promptText = (prompt: ReadonlyArray<acp.ContentBlock>): string =>
  prompt.flatMap((block) => block.type === "text" ? [block.text] : []).join("\n")

/** The request a prompt asks: a JSON object is decoded as one; anything else is the demo. */
export const requestOfPrompt = (
  text: string,
  demoRequest: AskUserQuestionRequest
): Result.Result<AskUserQuestionRequest, UserInteractionError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Result.succeed(demoRequest)
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return Result.succeed(demoRequest)
  return decodeRequestJson(json)
}

const failureText = (error: HarnessError): string => JSON.stringify(error.toJSON())

/**
 * Serves one ACP connection until it closes (or the fiber is interrupted,
 * which interrupts every turn in progress and closes the connection).
 */
export const serve = (stream: acp.Stream, options: AcpAgentOptions): Effect.Effect<void> =>
  Effect.scoped(Effect.gen(function*() {
    const scope = yield* Effect.scope
    // Closed last: turns are interrupted (their elicitations cancelled) while the connection is still open.
    let connection: acp.AgentConnection | undefined
    yield* Scope.addFinalizer(scope, Effect.sync(() => connection?.close()))
    const seam = yield* Layer.build(UserInteraction.layerConfig(options.timeout === undefined ? {} : { timeout: options.timeout }))
    const turns = yield* FiberMap.make<string, string, never>()
    const services = yield* Effect.context<never>()
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromiseWith(services)(effect)
    const sessions = new Set<string>()
    let registered = false

    const register = (client: acp.AgentContext, clientCapabilities: acp.ClientCapabilities | undefined) =>
      Layer.buildWithScope(UserInteraction.provide(AcpProvider.layer({ client, clientCapabilities })), scope).pipe(
        Effect.provideContext(seam),
        Effect.asVoid
      )

    /** One prompt turn: ask, then stream the answer (or the failure) back as one message chunk. */
    const turn = (sessionId: string, prompt: ReadonlyArray<acp.ContentBlock>, client: acp.AgentContext) =>
      Effect.gen(function*() {
        const request = yield* Effect.fromResult(requestOfPrompt(promptText(prompt), options.demoRequest))
        return yield* UserInteraction.ask(request).pipe(AcpProvider.withSession({ sessionId }), Effect.provideContext(seam))
      }).pipe(
        Effect.map((answer) => JSON.stringify(answer)),
        Effect.catchDefect((defect) =>
          Effect.fail(new ProviderFailed({ message: `The ask failed unexpectedly: ${String(defect)}`, cause: defect }))
        ),
        Effect.catch((error) =>
          Effect.sync(() => {
            options.onFailure?.(error)
            return failureText(error)
          })
        ),
        Effect.tap((text) =>
          Effect.tryPromise(() =>
            client.notify(acp.methods.client.session.update, {
              sessionId,
              update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }
            })
          ).pipe(Effect.ignore)
        )
      )

    const app = acp.agent({ name: "ask-user" })
      .onRequest(acp.methods.agent.initialize, async ({ client, params }) => {
        if (registered) throw acp.RequestError.invalidRequest(undefined, "The connection is already initialized.")
        registered = true
        await run(register(client, params.clientCapabilities))
        return {
          protocolVersion: acp.PROTOCOL_VERSION,
          agentCapabilities: {},
          agentInfo: { name: "ask-user", title: "ask-user", version: options.version },
          authMethods: []
        }
      })
      .onRequest(acp.methods.agent.session.new, () => {
        const sessionId = randomUUID()
        sessions.add(sessionId)
        return { sessionId }
      })
      .onRequest(acp.methods.agent.session.prompt, async ({ client, params }) => {
        if (!sessions.has(params.sessionId)) {
          throw acp.RequestError.invalidParams(undefined, `Unknown session ${params.sessionId}.`)
        }
        // A new prompt in the same session replaces (interrupts) a turn still running there.
        const exit = await run(
          FiberMap.run(turns, params.sessionId, turn(params.sessionId, params.prompt, client)).pipe(
            Effect.flatMap(Fiber.await)
          )
        )
        return { stopReason: Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? "cancelled" : "end_turn" }
      })
      .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
        // Waits until the turn's finalizers ran: its $/cancel_request is queued before the prompt's reply.
        await run(FiberMap.remove(turns, params.sessionId))
      })

    connection = app.connect(stream)
    const { closed } = connection
    yield* Effect.promise(() => closed)
    // A closed connection has rejected every pending elicitation: let the turns report
    // that (PROVIDER_FAILED) before the scope interrupts whatever is left.
    yield* FiberMap.awaitEmpty(turns).pipe(Effect.timeoutOption(Duration.seconds(1)))
  }))
