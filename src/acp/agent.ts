/**
 * The agent behind `ask-user acp`: an ACP agent whose every prompt turn asks
 * the human one batch through `AcpProvider` and streams the answer JSON back.
 *
 * - `initialize` registers the `AcpProvider` for this connection, with the
 *   client's capabilities (so a client without form elicitation gets
 *   `PROVIDER_FAILED` reports and never an elicitation);
 * - `session/new` needs an absolute `cwd` (`-32602` otherwise);
 * - `session/prompt`: prompt text that parses as a JSON object is the request
 *   (`decodeRequestJson`; a bad one is reported as `INVALID_REQUEST`), any
 *   other text asks the demo batch. The ask is a tool call (`AcpProvider`
 *   reports it); the answer JSON, or a failure's `{"name","code","message"}`,
 *   goes back as one `agent_message_chunk`, and the turn ends `end_turn`. A
 *   prompt arriving while the session's turn runs ends that turn first;
 * - `session/cancel` marks the turn cancelled (it reports nothing more), lets
 *   `AcpProvider.cancelSession` settle its open form (the client's answer, or
 *   `$/cancel_request` after the grace), then interrupts the turn; only then is
 *   the prompt answered `cancelled`.
 *
 * The asks run in the session that prompted (`AcpProvider.withSession`), so a
 * request's own `agent` field can name who asks but never redirects the form.
 *
 * @internal
 */
import * as acp from "@agentclientprotocol/sdk"
import { Cause, type Context, Duration, Effect, Exit, Fiber, FiberSet, Layer, Result, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { isAbsolute } from "node:path"
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

/** One prompt turn of a session: its fiber, and whether the client (or a newer prompt) cancelled it. */
interface Turn {
  readonly fiber: Fiber.Fiber<void>
  cancelled: boolean
  /** Resolves when the turn's prompt handler has returned its reply. */
  readonly replied: Promise<void>
}

/** One macrotask: every microtask queued before it (the SDK's reply to a finished handler) has run. */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve))

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
    const fibers = yield* FiberSet.make<void, never>()
    const services = yield* Effect.context<never>()
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromiseWith(services)(effect)
    const runSync = Effect.runSyncWith(services)
    const sessions = new Set<string>()
    const turns = new Map<string, Turn>()
    let seam: Context.Context<UserInteraction | AcpProvider> | undefined

    const register = (client: acp.AgentContext, clientCapabilities: acp.ClientCapabilities | undefined) =>
      Layer.buildWithScope(
        UserInteraction.layerWith(
          AcpProvider.layer({ client, clientCapabilities }),
          options.timeout === undefined ? {} : { timeout: options.timeout }
        ),
        scope
      ).pipe(Effect.map((context) => void (seam = context)))

    /** Sends one text chunk to the session, unless the turn was cancelled meanwhile. */
    const say = (client: acp.AgentContext, sessionId: string, turn: () => Turn | undefined, text: string) =>
      Effect.suspend(() =>
        turn()?.cancelled === true ? Effect.void : Effect.tryPromise(() =>
          client.notify(acp.methods.client.session.update, {
            sessionId,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }
          })
        ).pipe(Effect.ignore)
      )

    /** One prompt turn: ask, then stream the answer (or the failure) back as one message chunk. */
    const turnOf = (
      sessionId: string,
      prompt: ReadonlyArray<acp.ContentBlock>,
      client: acp.AgentContext,
      self: () => Turn | undefined
    ) =>
      Effect.suspend(() => {
        const request = requestOfPrompt(promptText(prompt), options.demoRequest)
        if (Result.isFailure(request)) return Effect.fail(request.failure)
        return UserInteraction.ask(request.success).pipe(
          AcpProvider.withSession({ sessionId }),
          Effect.provideContext(seam!)
        )
      }).pipe(
        Effect.map((answer) => JSON.stringify(answer)),
        Effect.catchDefect((defect) =>
          Effect.fail(new ProviderFailed({ message: `The ask failed unexpectedly: ${String(defect)}`, cause: defect }))
        ),
        Effect.catch((error) =>
          Effect.sync(() => {
            // A cancelled turn reports nothing: the client stopped it and knows why.
            if (self()?.cancelled === true) return undefined
            options.onFailure?.(error)
            return failureText(error)
          })
        ),
        Effect.flatMap((text) => text === undefined ? Effect.void : say(client, sessionId, self, text))
      )

    /** Ends the session's running turn (if any) as cancelled and waits until its reply went out. */
    const supersede = async (sessionId: string) => {
      const previous = turns.get(sessionId)
      if (previous === undefined) return
      previous.cancelled = true
      await run(Fiber.interrupt(previous.fiber))
      await previous.replied
      // The SDK queues the old prompt's reply in the microtasks after its handler returned.
      await nextMacrotask()
    }

    const app = acp.agent({ name: "ask-user" })
      .onRequest(acp.methods.agent.initialize, async ({ client, params }) => {
        if (seam !== undefined) throw acp.RequestError.invalidRequest(undefined, "The connection is already initialized.")
        await run(register(client, params.clientCapabilities))
        return {
          protocolVersion: acp.PROTOCOL_VERSION,
          // What the agent does: text prompts (and resource links, which every agent must accept); nothing else.
          agentCapabilities: {
            loadSession: false,
            promptCapabilities: { image: false, audio: false, embeddedContext: false }
          },
          agentInfo: { name: "ask-user", title: "ask-user", version: options.version },
          authMethods: []
        }
      })
      .onRequest(acp.methods.agent.session.new, ({ params }) => {
        if (!isAbsolute(params.cwd)) {
          throw acp.RequestError.invalidParams({ cwd: params.cwd }, "cwd must be an absolute path")
        }
        const sessionId = randomUUID()
        sessions.add(sessionId)
        return { sessionId }
      })
      .onRequest(acp.methods.agent.session.prompt, async ({ client, params }) => {
        const { sessionId } = params
        if (!sessions.has(sessionId)) {
          throw acp.RequestError.invalidParams(undefined, `Unknown session ${sessionId}.`)
        }
        // One turn per session: a new prompt first ends the one still running, its form cancelled on the wire.
        await supersede(sessionId)
        let reply!: () => void
        const replied = new Promise<void>((resolve) => {
          reply = resolve
        })
        let turn: Turn | undefined
        const self = () => turn
        turn = { fiber: runSync(FiberSet.run(fibers, turnOf(sessionId, params.prompt, client, self))), cancelled: false, replied }
        turns.set(sessionId, turn)
        try {
          // An observer, not a fiber: one less fiber per turn.
          const exit = await new Promise<Exit.Exit<void>>((resolve) => turn!.fiber.addObserver(resolve))
          const cancelled = turn.cancelled || (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))
          return { stopReason: cancelled ? "cancelled" : "end_turn" }
        } finally {
          if (turns.get(sessionId) === turn) turns.delete(sessionId)
          reply()
        }
      })
      .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
        const turn = turns.get(params.sessionId)
        if (turn === undefined || seam === undefined) return
        // Set before anything else: a form answer arriving with this cancel must not be reported as a failure.
        turn.cancelled = true
        // The client answers its open forms itself; those it leaves open are cancelled on the wire.
        await run(AcpProvider.use((provider) => provider.cancelSession(params.sessionId)).pipe(Effect.provideContext(seam)))
        // Then the turn ends; its reply (`cancelled`) goes after any `$/cancel_request`.
        await run(Fiber.interrupt(turn.fiber))
      })

    connection = app.connect(stream)
    const { closed } = connection
    yield* Effect.promise(() => closed)
    // A closed connection has rejected every pending elicitation: let the turns report
    // that (PROVIDER_FAILED) before the scope interrupts whatever is left.
    yield* FiberSet.awaitEmpty(fibers).pipe(Effect.timeoutOption(Duration.seconds(1)))
  }))
