/**
 * Runs MCP tool handlers that may ask the human, on every protocol era.
 *
 * On a 2025-era connection a handler runs once, inside its `tools/call`, and
 * `McpProvider` pushes its form as an `elicitation/create` request. A
 * 2026-07-28 server sends no requests: a tool that needs input answers its
 * `tools/call` with an `input_required` result carrying the form and an
 * opaque `requestState`, and the client retries the call with the reply in
 * `inputResponses`. Here the handler's fiber lives on across those calls:
 * when it asks, the current call ends `input_required`; the retry hands the
 * reply to the waiting ask and waits for the handler's next step.
 *
 * `requestState` names the suspended call and its round, sealed with an
 * HMAC under a random key per provider (`requestState.ts`).
 * A state that does not verify (tampered, expired), that was already used
 * (replayed), or that comes back on a call with other arguments than the
 * call it was issued for is refused with the JSON-RPC error `-32602 Invalid
 * or expired requestState`, never answered. A suspended call ends when its handler ends
 * (for example on the seam's `timeout`), when the client cancels a round, or
 * when its state expires; its state is refused from then on.
 *
 * @since 0.2.0
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext
} from "@modelcontextprotocol/server"
import { createHash } from "node:crypto"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import { type ElicitReply, McpToolCall } from "./McpToolCall.js"
import { canonicalJson } from "../internal/canonicalJson.js"
import { makeRequestStateCodec } from "./requestState.js"

/** What a 2026-07-28 client echoes back: which suspended call, and which of its rounds. */
interface RoundState {
  readonly call: string
  readonly round: number
}

/** A form an ask waits on, and where its reply goes. */
interface Need {
  readonly _tag: "Need"
  readonly form: ElicitRequestFormParams
  readonly reply: Deferred.Deferred<ElicitReply>
}

/** What ends a round: the handler's own end, or a form for the client. */
type Step = Need | { readonly _tag: "Done"; readonly exit: Exit.Exit<CallToolResult, unknown> }

/** A tool call whose handler is still running between the client's retries. */
interface Suspended {
  readonly id: string
  /** The digest of the call's tool name and arguments: a retry must repeat them. */
  readonly digest: string
  readonly steps: Queue.Queue<Step>
  fiber: Fiber.Fiber<void> | undefined
  round: number
  /** The form the client holds, between rounds. */
  pending: Need | undefined
  expiry: Fiber.Fiber<void> | undefined
}

/** The key of the one input request a round carries. */
const inputKey = "ask"

/**
 * How long a `requestState` stays good, and so how long a suspended call
 * waits for the client's retry when no seam `timeout` ends it sooner.
 */
const stateTtl = Duration.hours(24)

/** The 2026-07-28 revision and later: no server-to-client requests. Revision names are ISO dates. */
const servesModernEra = (server: Server): boolean => (server.getNegotiatedProtocolVersion() ?? "") >= "2026-07-28"

const reasons = {
  invalid: "invalid_request_state",
  used: "request_state_already_used",
  otherCall: "request_state_of_another_call"
} as const

const refused = (reason: keyof typeof reasons) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid or expired requestState", { reason: reasons[reason] })

/**
 * The `tools/call` request a round answers, as far as a retry must repeat it.
 *
 * @since 0.2.0
 */
export interface ToolCallRequest {
  readonly params: { readonly name: string; readonly arguments?: unknown }
}

/** What a retry must repeat of its call: the tool's name and arguments (nothing when not given). */
const digestOf = (request: ToolCallRequest | undefined): string =>
  request === undefined
    ? ""
    : createHash("sha256").update(canonicalJson([request.params.name, request.params.arguments ?? {}])).digest("base64url")

/** Interrupts `self` when `signal` aborts (the client cancelled the request, or the connection closed). */
const interruptOnAbort = (signal: AbortSignal) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.raceFirst(
    self,
    Effect.callback<never>((resume) => {
      const onAbort = () => resume(Effect.interrupt)
      if (signal.aborted) return onAbort()
      signal.addEventListener("abort", onAbort, { once: true })
      return Effect.sync(() => signal.removeEventListener("abort", onAbort))
    })
  )

/**
 * Runs the tool handlers of one MCP server (one connection) across protocol
 * eras. Built by `McpProvider.layer`, next to the provider.
 *
 * @since 0.2.0
 */
export class McpToolCalls extends Context.Service<McpToolCalls, {
  /**
   * Runs `handler` as the answer to the `tools/call` whose context is `ctx`
   * (the SDK handler's second argument): its result, or, on a 2026-07-28
   * connection while it waits for the human, an `input_required` result. A
   * retry carrying `requestState` resumes the waiting handler; given the
   * `tools/call` `request`, a retry with another tool name or other
   * arguments is refused. Fails with the SDK's `ProtocolError` (-32602) for
   * a state that is refused.
   */
  readonly handle: <E, R>(
    ctx: ServerContext,
    handler: Effect.Effect<CallToolResult, E, R>,
    request?: ToolCallRequest
  ) => Effect.Effect<CallToolResult | InputRequiredResult, E | ProtocolError, R>
}>()("effect-user-interaction/McpToolCalls") {
  /**
   * The runner for `server`'s tool calls; suspended calls are interrupted
   * when the layer's scope closes.
   */
  static readonly layer = (server: Server): Layer.Layer<McpToolCalls> =>
    Layer.effect(McpToolCalls, Effect.map(Effect.scope, (scope) => McpToolCalls.of({ handle: makeHandle(server, scope) })))
}

const makeHandle = (server: Server, scope: Scope.Scope) => {
  const suspended = new Map<string, Suspended>()
  const codec = makeRequestStateCodec<RoundState>(Duration.toMillis(stateTtl))

  const drop = (call: Suspended): Effect.Effect<void> =>
    Effect.suspend(() => {
      suspended.delete(call.id)
      call.pending = undefined
      return Effect.all([
        call.expiry === undefined ? Effect.void : Fiber.interrupt(call.expiry),
        call.fiber === undefined ? Effect.void : Fiber.interrupt(call.fiber)
      ], { discard: true })
    })

  /** Waits for the handler's next step and answers the current `tools/call` with it. */
  const round = <E>(ctx: ServerContext, call: Suspended): Effect.Effect<CallToolResult | InputRequiredResult, E> =>
    Effect.gen(function*() {
      const step = yield* Queue.take(call.steps).pipe(
        interruptOnAbort(ctx.mcpReq.signal),
        Effect.onInterrupt(() => drop(call))
      )
      if (step._tag === "Done") {
        suspended.delete(call.id)
        return yield* (step.exit as Exit.Exit<CallToolResult, E>)
      }
      return yield* ask(call, step)
    })

  /** Ends the current `tools/call` with `need`'s form and a fresh state for the retry. */
  const ask = (call: Suspended, need: Need): Effect.Effect<InputRequiredResult> =>
    Effect.gen(function*() {
      call.pending = need
      call.round += 1
      const requestState = codec.seal({ call: call.id, round: call.round })
      call.expiry = yield* Effect.forkIn(
        Effect.sleep(stateTtl).pipe(Effect.andThen(Effect.suspend(() => {
          // This fiber is the expiry: drop must not interrupt it before it has interrupted the handler.
          call.expiry = undefined
          return drop(call)
        }))),
        scope
      )
      return inputRequired({ inputRequests: { [inputKey]: inputRequired.elicit(need.form) }, requestState })
    })

  const start = <E, R>(
    ctx: ServerContext,
    handler: Effect.Effect<CallToolResult, E, R>,
    digest: string
  ): Effect.Effect<CallToolResult | InputRequiredResult, E, R> =>
    Effect.gen(function*() {
      const call: Suspended = {
        id: crypto.randomUUID(),
        digest,
        steps: yield* Queue.unbounded<Step>(),
        fiber: undefined,
        round: 0,
        pending: undefined,
        expiry: undefined
      }
      const requestInput = (form: ElicitRequestFormParams) =>
        Effect.gen(function*() {
          const reply = yield* Deferred.make<ElicitReply>()
          yield* Queue.offer(call.steps, { _tag: "Need", form, reply })
          return yield* Deferred.await(reply)
        })
      const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined
      const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined
      call.fiber = yield* handler.pipe(
        Effect.provideService(McpToolCall, { requestId: ctx.mcpReq.id, requestInput, capabilities }),
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.suspend(() => {
            // Ended while the client holds a form (the seam's timeout, say): nobody waits for this
            // result, and the state the client holds must be refused from now on.
            if (call.pending !== undefined) {
              // This fiber is the handler's, and it is ending anyway.
              call.fiber = undefined
              return drop(call)
            }
            return Queue.offer(call.steps, { _tag: "Done", exit })
          })
        ),
        Effect.asVoid,
        Effect.forkIn(scope)
      )
      suspended.set(call.id, call)
      return yield* round<E>(ctx, call)
    })

  const resume = (
    ctx: ServerContext,
    state: string,
    digest: string
  ): Effect.Effect<CallToolResult | InputRequiredResult, ProtocolError> =>
    Effect.gen(function*() {
      const opened = codec.open(state)
      if (opened === undefined) return yield* Effect.fail(refused("invalid"))
      const call = suspended.get(opened.call)
      const need = call?.pending
      // A state is good for exactly one retry: the round it was sealed for.
      if (call === undefined || need === undefined || call.round !== opened.round) return yield* Effect.fail(refused("used"))
      // The retry of another call would get an answer to questions it never asked; the client
      // keeps the state, and may still retry the call it belongs to.
      if (call.digest !== digest) return yield* Effect.fail(refused("otherCall"))
      call.pending = undefined
      if (call.expiry !== undefined) yield* Fiber.interrupt(call.expiry)
      const view = inputResponse(ctx.mcpReq.inputResponses, inputKey)
      // A retry without the reply: the client gets the same form again, under a new state.
      if (view.kind !== "elicit") return yield* ask(call, need)
      // The content as sent: the SDK's view drops content that is not an object, which would
      // read as a form left empty; the form's reader refuses it instead.
      const sent = (ctx.mcpReq.inputResponses?.[inputKey] as { readonly content?: unknown }).content
      const reply: ElicitReply = sent === undefined ? { action: view.action } : { action: view.action, content: sent }
      yield* Deferred.succeed(need.reply, reply)
      return yield* round<ProtocolError>(ctx, call)
    })

  return <E, R>(
    ctx: ServerContext,
    handler: Effect.Effect<CallToolResult, E, R>,
    request?: ToolCallRequest
  ): Effect.Effect<CallToolResult | InputRequiredResult, E | ProtocolError, R> =>
    Effect.suspend((): Effect.Effect<CallToolResult | InputRequiredResult, E | ProtocolError, R> => {
      if (!servesModernEra(server)) {
        return handler.pipe(
          Effect.provideService(McpToolCall, { requestId: ctx.mcpReq.id }),
          interruptOnAbort(ctx.mcpReq.signal)
        )
      }
      const state = ctx.mcpReq.requestState()
      const digest = digestOf(request)
      return typeof state === "string" ? resume(ctx, state, digest) : start(ctx, handler, digest)
    })
}
