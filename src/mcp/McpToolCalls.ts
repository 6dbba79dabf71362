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
 * HMAC under a random key per provider (`requestState.ts`), and a retry is
 * answered only when it brings back, character for character, the state
 * issued for its call's current round. Any other state (tampered, expired,
 * already used, or sealed elsewhere), or one that comes back on a call with
 * other arguments than the call it was issued for, is refused with the
 * JSON-RPC error `-32602 Invalid or expired requestState`, never answered.
 * A suspended call ends when its handler ends, when the client cancels a
 * round, or when its state expires; its state is refused from then on. A
 * handler that ends on its own while the client holds its form (the seam's
 * `timeout`, say) leaves its result for that form's state: the client's
 * retry, if it comes within the state's life, gets the result (for
 * `ask_user_question`, the `ASK_TIMEOUT` failure) instead of an answer to
 * the form, and the state is used.
 *
 * @since 0.2.0
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type Implementation,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext
} from "@modelcontextprotocol/server"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { servesModernEra } from "./elicit.js"
import { type ElicitReply, McpToolCall, type UrlInput } from "./McpToolCall.js"
import { sameJson } from "../internal/sameJson.js"
import { ProviderFailed } from "../UserInteractionError.js"
import { makeRequestStateCodec } from "./requestState.js"

/** What a 2026-07-28 client echoes back: which suspended call, and which of its rounds. */
interface RoundState {
  readonly call: string
  readonly round: number
}

/** A form (or a URL-mode elicitation) an ask waits on, and where its reply goes. */
interface Need {
  readonly _tag: "Need"
  readonly form: ElicitRequestFormParams | UrlInput
  readonly reply: (reply: Result.Result<ElicitReply, ProviderFailed>) => void
}

/** What ends a round: the handler's own end, or a form for the client. */
type Step = Need | { readonly _tag: "Done"; readonly exit: Exit.Exit<CallToolResult, unknown> }

/** A tool call whose handler is still running between the client's retries. */
interface Suspended {
  readonly id: string
  /** The call's tool name and arguments: a retry must repeat them. */
  readonly request: ToolCallRequest | undefined
  fiber: Fiber.Fiber<void> | undefined
  round: number
  /** The `requestState` the client holds for the current round. */
  state: string | undefined
  /** The form the client holds, between rounds. */
  pending: Need | undefined
  /** A step the handler took while no `tools/call` of this call was waiting for one. */
  step: Step | undefined
  /** The `tools/call` waiting for the handler's next step. */
  waiter: ((step: Step) => void) | undefined
  expiry: ReturnType<typeof setTimeout> | undefined
}

/** The key of the one input request a round carries. */
const inputKey = "ask"

/**
 * How long a `requestState` stays good, and so how long a suspended call
 * waits for the client's retry when no seam `timeout` ends it sooner.
 */
const stateTtl = Duration.hours(24)

const reasons = {
  invalid: "invalid_request_state",
  used: "request_state_already_used",
  otherCall: "request_state_of_another_call"
} as const

/** A reply in the retry that is no elicitation result: as on 2025 eras, the ask fails rather than asking again. */
const malformedReply = new ProviderFailed({
  message: "The MCP client's reply to the form is malformed: it is not an elicitation result with the action accept, decline or cancel."
})

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

/** Whether `retry` repeats the tool name and arguments of the call `original` (nothing to compare when either is not given). */
const repeats = (original: ToolCallRequest | undefined, retry: ToolCallRequest | undefined): boolean =>
  original === undefined || retry === undefined ||
  (original.params.name === retry.params.name && sameJson(original.params.arguments ?? {}, retry.params.arguments ?? {}))

/**
 * Interrupts the fiber running `self` when `signal` aborts (the client
 * cancelled the request, or the connection closed) while `self` runs: a
 * listener on the signal, not a race, which would fork two fibers per call.
 */
const interruptOnAbort = (signal: AbortSignal) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    if (signal.aborted) return Effect.interrupt
    const onAbort = () => fiber.interruptUnsafe()
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.ensuring(self, Effect.sync(() => signal.removeEventListener("abort", onAbort)))
  })

/**
 * The handler's next step, taken by the `tools/call` whose request `signal`
 * belongs to; interrupted when that signal aborts (the client cancelled the
 * request, or the connection closed). One callback, not a queue raced
 * against the signal: it runs twice per retried call.
 */
const nextStep = (call: Suspended, signal: AbortSignal): Effect.Effect<Step> =>
  Effect.callback<Step>((resume) => {
    const ready = call.step
    if (ready !== undefined) {
      call.step = undefined
      return resume(Effect.succeed(ready))
    }
    if (signal.aborted) return resume(Effect.interrupt)
    const stopWaiting = () => {
      call.waiter = undefined
      signal.removeEventListener("abort", onAbort)
    }
    const onAbort = () => {
      stopWaiting()
      resume(Effect.interrupt)
    }
    call.waiter = (step) => {
      stopWaiting()
      resume(Effect.succeed(step))
    }
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(stopWaiting)
  })

/** Hands `step` to the `tools/call` waiting for it, or keeps it for the next one. */
const takeStep = (call: Suspended, step: Step): void => {
  if (call.waiter === undefined) call.step = step
  else call.waiter(step)
}

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
   * (their states refused, their timers stopped) when the layer's scope
   * closes.
   */
  static readonly layer = (server: Server): Layer.Layer<McpToolCalls> =>
    Layer.effect(
      McpToolCalls,
      Effect.gen(function*() {
        const { handle, withdrawAll } = makeHandle(server, yield* Effect.scope)
        // Runs after the handlers' fibers (forked in the scope later) are interrupted: what is left
        // is results kept for a retry, whose states must be refused and whose timers must stop.
        yield* Effect.addFinalizer(() => Effect.sync(withdrawAll))
        return McpToolCalls.of({ handle })
      })
    )
}

const makeHandle = (server: Server, scope: Scope.Scope) => {
  const ttlMillis = Duration.toMillis(stateTtl)
  const codec = makeRequestStateCodec<RoundState>(ttlMillis)
  /**
   * The one state each suspended call's client holds, as issued. A retry is
   * looked up here by the exact text it brings; only a state not found is
   * opened, to tell one of ours that was used (or dropped) from one that is
   * not ours at all.
   */
  const outstanding = new Map<string, Suspended>()

  /** The call's round is over: its state is refused from now on, and its timer stops. */
  const withdraw = (call: Suspended): void => {
    if (call.state !== undefined) outstanding.delete(call.state)
    call.state = undefined
    call.pending = undefined
    if (call.expiry !== undefined) clearTimeout(call.expiry)
    call.expiry = undefined
  }

  const drop = (call: Suspended): Effect.Effect<void> =>
    Effect.suspend(() => {
      withdraw(call)
      return call.fiber === undefined ? Effect.void : Fiber.interrupt(call.fiber)
    })

  /** Waits for the handler's next step and answers the current `tools/call` with it. */
  const round = <E>(ctx: ServerContext, call: Suspended): Effect.Effect<CallToolResult | InputRequiredResult, E> =>
    Effect.flatMap(
      Effect.onInterrupt(nextStep(call, ctx.mcpReq.signal), () => drop(call)),
      (step): Effect.Effect<CallToolResult | InputRequiredResult, E> =>
        step._tag === "Need" ? Effect.succeed(ask(call, step)) : step.exit as Exit.Exit<CallToolResult, E>
    )

  /** Ends the current `tools/call` with `need`'s form and a fresh state for the retry. */
  const ask = (call: Suspended, need: Need): InputRequiredResult => {
    call.pending = need
    call.round += 1
    const requestState = codec.seal({ call: call.id, round: call.round })
    call.state = requestState
    outstanding.set(requestState, call)
    // A plain timer, not a fiber sleeping in `scope`: it is armed and cleared once per round, and
    // only ever drops the call. Unreferenced: it must not keep a server that is done alive.
    const expiry = setTimeout(() => {
      call.expiry = undefined
      Effect.runFork(drop(call))
    }, ttlMillis)
    // Node's timers can be unreferenced; a runtime whose timers are numbers has nothing to do.
    if (typeof expiry === "object") expiry.unref()
    call.expiry = expiry
    const input = need.form.mode === "url"
      ? inputRequired.elicitUrl({ message: need.form.message, url: need.form.url })
      : inputRequired.elicit(need.form)
    return inputRequired({ inputRequests: { [inputKey]: input }, requestState })
  }

  const start = <E, R>(
    ctx: ServerContext,
    handler: Effect.Effect<CallToolResult, E, R>,
    request: ToolCallRequest | undefined
  ): Effect.Effect<CallToolResult | InputRequiredResult, E, R> =>
    Effect.suspend(() => {
      const call: Suspended = {
        id: crypto.randomUUID(),
        request,
        fiber: undefined,
        round: 0,
        state: undefined,
        pending: undefined,
        step: undefined,
        waiter: undefined,
        expiry: undefined
      }
      const requestInput = (form: ElicitRequestFormParams | UrlInput) =>
        Effect.callback<ElicitReply, ProviderFailed>((resume) => {
          takeStep(call, { _tag: "Need", form, reply: (reply) => resume(Effect.fromResult(reply)) })
        })
      const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined
      const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined
      const clientInfo = envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined
      return handler.pipe(
        Effect.provideService(McpToolCall, { requestId: ctx.mcpReq.id, requestInput, capabilities, clientInfo }),
        Effect.onExit((exit) =>
          Effect.suspend(() => {
            // This fiber is the handler's, and it is ending anyway.
            if (call.pending !== undefined) call.fiber = undefined
            // Taken down while the client holds a form (the provider closing): its state is refused.
            if (call.pending !== undefined && Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return drop(call)
            // Ended on its own while the client holds a form (the seam's timeout, say): the state stays
            // good for one retry, which gets this result rather than an answer to the form.
            call.pending = undefined
            takeStep(call, { _tag: "Done", exit })
            return Effect.void
          })
        ),
        Effect.ignore,
        Effect.forkIn(scope),
        Effect.flatMap((fiber) => {
          call.fiber = fiber
          return round<E>(ctx, call)
        })
      )
    })

  const resume = (
    ctx: ServerContext,
    state: string,
    request: ToolCallRequest | undefined
  ): Effect.Effect<CallToolResult | InputRequiredResult, ProtocolError> =>
    Effect.suspend(() => {
      const call = outstanding.get(state)
      // A state is good for exactly one retry, of the round it was issued for: one we issued
      // and is no longer outstanding was used, or its call has ended.
      if (call === undefined) return Effect.fail(refused(codec.open(state) === undefined ? "invalid" : "used"))
      // The retry of another call would get an answer to questions it never asked; the client
      // keeps the state, and may still retry the call it belongs to.
      if (!repeats(call.request, request)) return Effect.fail(refused("otherCall"))
      const need = call.pending
      withdraw(call)
      // The handler ended while the client held the form: its result, whatever the reply says.
      if (need === undefined) return round<ProtocolError>(ctx, call)
      const responses = ctx.mcpReq.inputResponses
      // A retry without any reply: the client gets the same form again, under a new state.
      if (responses === undefined) return Effect.succeed(ask(call, need))
      // Replies, but none the SDK could read for the form (not an object, another key): as on 2025
      // eras, the ask fails rather than asking again, which a client with the bug would do for ever.
      const sent = responses[inputKey] as { readonly content?: unknown } | undefined
      const view = inputResponse(responses, inputKey)
      // The content as sent: the SDK's view drops content that is not an object, which would
      // read as a form left empty; the form's reader refuses it instead.
      need.reply(
        sent === undefined || view.kind !== "elicit"
          ? Result.fail(malformedReply)
          : Result.succeed(sent.content === undefined ? { action: view.action } : { action: view.action, content: sent.content })
      )
      return round<ProtocolError>(ctx, call)
    })

  const withdrawAll = () => {
    for (const call of Array.from(outstanding.values())) withdraw(call)
  }

  const handle = <E, R>(
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
      return typeof state === "string" ? resume(ctx, state, request) : start(ctx, handler, request)
    })

  return { handle, withdrawAll }
}
