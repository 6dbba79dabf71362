/**
 * The agent behind `ask-user acp`: an ACP agent whose every prompt turn asks
 * the human one batch through `AcpProvider` and streams the answer JSON back.
 *
 * - `initialize` registers the `AcpProvider` for this connection, with the
 *   client's capabilities (so a client without form elicitation gets
 *   `PROVIDER_FAILED` reports and never an elicitation) and its `clientInfo`
 *   (its answers are `acp:<name>`'s);
 * - `session/new` needs an absolute `cwd` (`-32602` otherwise);
 * - `session/prompt`: prompt text that parses as a JSON object is the request
 *   (`decodeRequestJson`; a bad one is reported as `INVALID_REQUEST`), any
 *   other text asks the demo batch. The ask is a tool call (`AcpProvider`
 *   reports it); the answer JSON, or a failure's `{"name","code","message"}`,
 *   goes back as one `agent_message_chunk`, and the turn ends `end_turn`.
 *   One turn per session: each prompt ends the session's older turn (its form
 *   cancelled on the wire, its prompt answered `cancelled`) before it asks, so
 *   of prompts piling up only the newest asks;
 * - `session/cancel` marks the turn cancelled, lets
 *   `AcpProvider.cancelSession` settle its open form (the client's answer, or
 *   `$/cancel_request` after the grace), then interrupts the turn; only then is
 *   the prompt answered `cancelled`. `$/cancel_request` for a prompt does the
 *   same without the grace and answers it `-32800`;
 * - a cancelled turn reports nothing more, whatever ends its ask: no chunk, no
 *   `failed` tool call (the client marks a cancelled turn's tool calls);
 * - when `serve` is interrupted (a signal), every open prompt is ended so and
 *   answered before the connection closes.
 *
 * The asks run in the session that prompted (`AcpProvider.withSession`), so a
 * request's own `agent` field can name who asks but never redirects the form.
 *
 * @internal
 */
import * as acp from "@agentclientprotocol/sdk"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { isAbsolute } from "node:path"
import { AcpProvider } from "./AcpProvider.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { decodeRequestJson } from "../AskUserQuestionArgs.js"
import { briefFailure } from "../internal/brief.js"
import { modelJson } from "../internal/secrets.js"
import { markWellFormed } from "../internal/wellFormed.js"
import type { SecretPage } from "../SecretPage.js"
import { UserInteraction } from "../UserInteraction.js"
import { type HarnessError, InvalidRequest, ProviderFailed, type UserInteractionError } from "../UserInteractionError.js"

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
  /** Where secret questions are answered; without one they fail `PROVIDER_FAILED`. */
  readonly secretPage?: SecretPage["Service"] | undefined
}

/** The prompt's text: its text blocks, in order. */
const promptText = (prompt: ReadonlyArray<acp.ContentBlock>): string =>
  prompt.flatMap((block) => block.type === "text" ? [block.text] : []).join("\n")

/**
 * The request a prompt asks: a JSON object is decoded as one (a leading
 * byte-order mark is not part of it, as in a request file), and text that
 * opens like one but is not JSON is a bad request, not the demo (a pasted
 * request cut short should say so); anything else is the demo.
 */
export const requestOfPrompt = (
  text: string,
  demoRequest: AskUserQuestionRequest
): Result.Result<AskUserQuestionRequest, UserInteractionError> => {
  const body = text.startsWith("\ufeff") ? text.slice(1) : text
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch (cause) {
    if (!body.trimStart().startsWith("{")) return Result.succeed(demoRequest)
    return Result.fail(
      new InvalidRequest({ message: `Invalid request: the prompt is not JSON (${(cause as Error).message})`, cause })
    )
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return Result.succeed(demoRequest)
  return Result.map(decodeRequestJson(json), markWellFormed)
}

const failureText = (error: HarnessError): string => JSON.stringify(briefFailure(error))

/** One prompt of a session, from its arrival to its reply. */
interface Turn {
  readonly sessionId: string
  /** Set once it asks; a prompt still waiting for the session's older turn to end has none. */
  fiber: Fiber.Fiber<void> | undefined
  /** The client, a newer prompt or the agent's shutdown ended it: it reports nothing more, and ends `cancelled`. */
  cancelled: boolean
  /** Resolves when its prompt handler has returned its reply. */
  readonly replied: Promise<void>
}

/** One macrotask: every microtask queued before it (the SDK's reply to a finished handler) has run. */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Awaited in a promise callback: resolves once the microtasks queued so far, and those they
 * queue, have run (Node runs a `nextTick` queued by a microtask once the microtask queue is
 * empty). The SDK dispatches every message of one read from the client in those microtasks.
 */
const afterMicrotasks = () => new Promise<void>((resolve) => process.nextTick(resolve))

/** The reason the SDK aborts a request's signal with when the client sent `$/cancel_request` for it. */
const isCancelRequest = (reason: unknown): reason is acp.RequestError =>
  reason instanceof acp.RequestError && reason.code === -32800

/** How long the agent, when it is stopped, waits for its open prompts to be answered. */
const shutdownBound = Duration.seconds(1)

/**
 * Serves one ACP connection until it closes (or the fiber is interrupted, as
 * a signal does): then every open prompt is ended `cancelled`, its form
 * cancelled on the wire, and answered while the connection still writes
 * (within `shutdownBound`), before the connection closes.
 */
export const serve = (stream: acp.Stream, options: AcpAgentOptions): Effect.Effect<void> =>
  Effect.scoped(Effect.gen(function*() {
    const scope = yield* Effect.scope
    // Closed last: the turns end (their elicitations cancelled) while the connection is still open.
    let connection: acp.AgentConnection | undefined
    yield* Scope.addFinalizer(scope, Effect.sync(() => connection?.close()))
    // The seam closes after the turns, so none of them sees its provider close.
    const seamScope = yield* Scope.fork(scope)
    const fibers = yield* FiberSet.make<void, never>()
    const services = yield* Effect.context<never>()
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromiseWith(services)(effect)
    const runFork = Effect.runForkWith(services)
    const sessions = new Set<string>()
    /** Each session's newest prompt. */
    const turns = new Map<string, Turn>()
    /** Every prompt not answered yet. */
    const open = new Set<Turn>()
    let closing = false
    let seam: Context.Context<UserInteraction | AcpProvider> | undefined
    /** Forks a turn straight into the set, with the seam in its context: one fiber per turn, no context built per turn. */
    let runTurn: ((turn: Effect.Effect<void, never, UserInteraction | AcpProvider>) => Fiber.Fiber<void>) | undefined

    const register = (client: acp.AgentContext, params: acp.InitializeRequest) =>
      Layer.buildWithScope(
        UserInteraction.layerWith(
          AcpProvider.layer({
            client,
            clientCapabilities: params.clientCapabilities,
            clientInfo: params.clientInfo,
            secretPage: options.secretPage
          }),
          options.timeout === undefined ? {} : { timeout: options.timeout }
        ),
        seamScope
      ).pipe(
        Effect.flatMap((context) => {
          seam = context
          return Effect.provideContext(FiberSet.runtime(fibers)<UserInteraction | AcpProvider>(), context)
        }),
        Effect.map((run) => void (runTurn = run))
      )

    /**
     * Sends one text chunk to the session, unless the turn was cancelled
     * meanwhile. Queued, not awaited: the SDK writes in order, so the chunk
     * goes out before the prompt's reply; a failed write closes the connection.
     */
    const say = (client: acp.AgentContext, turn: Turn, text: string): void => {
      if (turn.cancelled) return
      client.notify(acp.methods.client.session.update, {
        sessionId: turn.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }
      }).catch(() => undefined)
    }

    /** Reports a failed turn, unless it was cancelled: the client stopped it and knows why. */
    const sayFailure = (client: acp.AgentContext, turn: Turn, error: HarnessError): void => {
      if (turn.cancelled) return
      options.onFailure?.(error)
      say(client, turn, failureText(error))
    }

    /** One prompt turn: ask, then stream the answer (or the failure) back as one message chunk. */
    const turnOf = (
      turn: Turn,
      prompt: ReadonlyArray<acp.ContentBlock>,
      client: acp.AgentContext
    ): Effect.Effect<void, never, UserInteraction | AcpProvider> =>
      Effect.suspend(() => {
        const request = requestOfPrompt(promptText(prompt), options.demoRequest)
        if (Result.isFailure(request)) return Effect.sync(() => sayFailure(client, turn, request.failure))
        return Effect.matchCauseEffect(
          UserInteraction.ask(request.success).pipe(AcpProvider.withSession({ sessionId: turn.sessionId })),
          {
            // The chat shows the answer as a model reads it: a secret as "received", never its value.
            onSuccess: (answer) => Effect.sync(() => say(client, turn, JSON.stringify(modelJson(answer)))),
            onFailure: (cause) => {
              const error = Cause.findErrorOption(cause)
              if (error._tag === "Some") return Effect.sync(() => sayFailure(client, turn, error.value))
              // Ended by `endTurn` (or the agent's shutdown): the prompt's handler answers `cancelled`.
              if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
              const defect = Cause.squash(cause)
              return Effect.sync(() =>
                sayFailure(client, turn, new ProviderFailed({ message: `The ask failed unexpectedly: ${String(defect)}`, cause: defect }))
              )
            }
          }
        )
      })

    /**
     * Ends a turn as cancelled: marked at once (so nothing it settles with
     * afterwards is reported), its open form settled by the client within
     * `grace` (the provider's default when not given) or cancelled on the wire,
     * then its fiber interrupted. Its tool call gets no final update: a
     * client marks a cancelled turn's tool calls itself.
     */
    const endTurn = (turn: Turn, grace?: Duration.Duration): Effect.Effect<void> => {
      turn.cancelled = true
      if (seam === undefined) return Effect.void
      return AcpProvider.use((provider) => provider.cancelSession(turn.sessionId, { grace })).pipe(
        Effect.provideContext(seam),
        Effect.andThen(Effect.suspend(() => turn.fiber === undefined ? Effect.void : Fiber.interrupt(turn.fiber)))
      )
    }

    /** Ends the session's older turn and waits until its reply went out. */
    const supersede = async (previous: Turn) => {
      await run(endTurn(previous, Duration.zero))
      await previous.replied
      // The SDK queues the old prompt's reply in the microtasks after its handler returned.
      await nextMacrotask()
    }

    // Runs first when the scope closes: a signal (or a closed connection) ends every open prompt as
    // cancelled, its form cancelled on the wire, and lets its reply reach the stream.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closing = true
        const ending = Array.from(open)
        if (ending.length === 0) return Effect.void
        return Effect.forEach(ending, (turn) => endTurn(turn, Duration.zero), { concurrency: "unbounded", discard: true }).pipe(
          Effect.andThen(Effect.promise(() => Promise.all(ending.map((turn) => turn.replied)))),
          Effect.andThen(Effect.promise(nextMacrotask)),
          // Finalizers are uninterruptible; the bound must be able to stop this wait.
          Effect.interruptible,
          Effect.timeoutOption(shutdownBound)
        )
      })
    )

    const app = acp.agent({ name: "ask-user" })
      .onRequest(acp.methods.agent.initialize, async ({ client, params }) => {
        if (seam !== undefined) throw acp.RequestError.invalidRequest(undefined, "The connection is already initialized.")
        await run(register(client, params))
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
      .onRequest(acp.methods.agent.session.prompt, async ({ client, params, signal }) => {
        const { sessionId } = params
        if (!sessions.has(sessionId)) {
          throw acp.RequestError.invalidParams(undefined, `Unknown session ${sessionId}.`)
        }
        let reply!: () => void
        const turn: Turn = {
          sessionId,
          fiber: undefined,
          cancelled: closing,
          replied: new Promise<void>((resolve) => {
            reply = resolve
          })
        }
        // One turn per session: this prompt is the session's newest from now on, whatever arrives after it.
        const previous = turns.get(sessionId)
        turns.set(sessionId, turn)
        open.add(turn)
        // `$/cancel_request` for this prompt ends it at once, its form cancelled on the wire.
        const onAbort = () => {
          if (isCancelRequest(signal.reason)) runFork(endTurn(turn, Duration.zero))
        }
        signal.addEventListener("abort", onAbort, { once: true })
        // Sent right behind the prompt, the cancel may have been dispatched before this handler ran.
        if (signal.aborted) onAbort()
        try {
          // The older turn ends first, its form cancelled on the wire and its reply sent before this one asks.
          // Without one, the prompts read in the same breath are dispatched first: only the newest asks.
          if (previous !== undefined) await supersede(previous)
          else await afterMicrotasks()
          if (!turn.cancelled) {
            // Set by `initialize`: the SDK refuses every request that comes before it.
            const fiber = runTurn!(turnOf(turn, params.prompt, client))
            turn.fiber = fiber
            // An observer, not a fiber: one less fiber per turn.
            const exit = await new Promise<Exit.Exit<void>>((resolve) => fiber.addObserver(resolve))
            if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) turn.cancelled = true
          }
          // The client asked for this request's cancellation: ACP's answer to that is -32800.
          if (isCancelRequest(signal.reason)) throw signal.reason
          return { stopReason: turn.cancelled ? "cancelled" : "end_turn" }
        } finally {
          signal.removeEventListener("abort", onAbort)
          if (turns.get(sessionId) === turn) turns.delete(sessionId)
          open.delete(turn)
          reply()
        }
      })
      .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
        const turn = turns.get(params.sessionId)
        if (turn === undefined) return
        // Marked before anything else: a form answer arriving with this cancel is not reported as a failure.
        // The client answers its open form itself; one it leaves open is cancelled on the wire after the
        // grace, before the turn's reply (`cancelled`).
        await run(endTurn(turn))
      })

    connection = app.connect(stream)
    const { closed } = connection
    yield* Effect.promise(() => closed)
    // A closed connection has rejected every pending elicitation: let the turns report
    // that (PROVIDER_FAILED) before the scope ends whatever is left.
    yield* FiberSet.awaitEmpty(fibers).pipe(Effect.timeoutOption(Duration.seconds(1)))
  }))
