/**
 * The durable ask as an Effect workflow: wait for its settlement (a
 * `DurableDeferred`) or its expiry (a `DurableClock`), record an expiry. The
 * engine replays the body on resume, so the table write is an activity and
 * everything else is deterministic. The pending row is written by whoever
 * starts the workflow, before it starts (`DurableStore`): an idempotent
 * insert needs no activity, and an activity costs the engine a message, a
 * reply and a lock check (decision 155).
 *
 * The engine carries only how an ask ended, never the answer: the answer is
 * kept once, in the asks table, and read from there (decision 087). The
 * engine keeps every message, reply and activity result it passes, so an
 * answer given to it was stored four more times.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { ClusterSchema, Entity, Sharding } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { Activity, DurableClock, DurableDeferred, Workflow, type WorkflowEngine } from "effect/workflow"
import { AskUserQuestionAnswer } from "../AskUserQuestion.js"

/** How a durable ask ended. @since 0.2.0 */
export const SettledStatus = Schema.Literals(["answered", "cancelled", "declined", "expired", "aborted"])

/** @since 0.2.0 */
export type SettledStatus = typeof SettledStatus.Type

/** The recorded end of a durable ask: its status and, when answered, the answer. @since 0.2.0 */
export const Outcome = Schema.Struct({
  status: SettledStatus,
  answer: Schema.optionalKey(AskUserQuestionAnswer)
})

/** @since 0.2.0 */
export type Outcome = typeof Outcome.Type

/**
 * How an ask ended, as the engine carries it: the status alone. Messages an
 * earlier version stored with the answer in them still decode (the answer is
 * left out, and read from the asks table as for any ask).
 */
export const EngineOutcome = Schema.Struct({ status: SettledStatus })

/** @since 0.3.0 */
export type EngineOutcome = typeof EngineOutcome.Type

/** What the store writes to the asks table for the workflow: the pending row, and an expiry. */
export class AskActivities extends Context.Service<AskActivities, {
  readonly publish: (ask: {
    readonly id: string
    readonly executionId: string
    readonly request: string
    readonly askedAt: number
    readonly expiresInMillis: number | undefined
  }) => Effect.Effect<void>
  /** Records the status unless the ask was settled before; gives the status the ask has. */
  readonly record: (id: string, status: SettledStatus) => Effect.Effect<EngineOutcome>
}>()("effect-user-interaction/durable/AskActivities") {}

/**
 * One workflow per ask id: the engine keys the execution by the id, so the
 * same id asked again (here or in another process) joins it.
 */
export const AskWorkflow = Workflow.make("effect-user-interaction/DurableAsk", {
  payload: {
    id: Schema.String,
    /** The request as JSON, without its signal. */
    request: Schema.String,
    /** When the asker sent it (epoch millis): the expiry counts from here, not from the first run. */
    askedAt: Schema.Number,
    expiresInMillis: Schema.optionalKey(Schema.Number)
  },
  success: EngineOutcome,
  idempotencyKey: (payload) => payload.id,
  // A caller on a runner that does not own the ask's shard re-reads its reply
  // on this schedule; the owner's own callers are woken at once.
  suspendedRetrySchedule: Schedule.spaced("2 seconds")
})

/** Completed by an answerer (answer, cancel, decline) or by withdrawal. */
export const Settlement = DurableDeferred.make("settlement", { success: EngineOutcome })

/** The token an answerer completes `Settlement` with, from the execution id the publish activity stored. */
export const settlementToken = (executionId: string) =>
  DurableDeferred.tokenFromExecutionId(Settlement, { workflow: AskWorkflow, executionId })

/**
 * Completes the ask's settlement deferred (a persisted engine message; the
 * first one wins) with the outcome's status: the answer is in the asks table.
 */
export const completeSettlement = (executionId: string, outcome: { readonly status: SettledStatus }) =>
  DurableDeferred.done(Settlement, { token: settlementToken(executionId), exit: Exit.succeed({ status: outcome.status }) })

/** The workflow's body, registered with the engine by the store. */
export const AskWorkflowLayer = AskWorkflow.toLayer(Effect.fnUntraced(function*(payload) {
  const activities = yield* AskActivities
  const settled = payload.expiresInMillis === undefined
    ? yield* DurableDeferred.await(Settlement)
    : yield* DurableDeferred.raceAll({
      name: "settlement-or-expiry",
      success: EngineOutcome,
      error: Schema.Never,
      effects: [
        DurableDeferred.await(Settlement),
        // inMemoryThreshold 0: even a short expiry is a durable clock, so it
        // passes while no process runs.
        DurableClock.sleep({
          name: "expiry",
          // Replays compute a shorter duration, but the clock scheduled first stands.
          duration: Math.max(1, payload.askedAt + payload.expiresInMillis - Date.now()),
          inMemoryThreshold: 0
        }).pipe(
          Effect.as<EngineOutcome>({ status: "expired" })
        )
      ]
    })
  // A settlement through the deferred is already in the asks table (`settle` and the inbox's expiry
  // write the row before they complete it, in one transaction): only the engine's own clock has
  // an outcome to record. Skipping the activity is safe on replay: a workflow that ran it is done.
  if (settled.status !== "expired") return settled
  return yield* Activity.make({
    name: "record",
    success: EngineOutcome,
    execute: activities.record(payload.id, settled.status)
  })
}))

/**
 * Waiting for an ask on the runner that runs it. The engine wakes a caller
 * of a suspended workflow at once only on the runner that owns the
 * execution; a caller elsewhere re-reads its reply every 2 s. This entity
 * is keyed by the execution id, so it lives on the shard, and the runner,
 * of the ask's workflow: its `await` runs there, is woken there, and the
 * outcome comes back over the runners' transport (decision 156).
 */
export const AskWaiter = Entity.make("effect-user-interaction/AskWaiter", [
  Rpc.make("await", { payload: AskWorkflow.payloadSchema.fields, success: EngineOutcome }),
  // An answer's message to the workflow is written in the answering transaction, and the
  // engine tells the ask's runner of it before that commits: a runner that reads the store at
  // once finds nothing and would wait for its next poll. Sent after the commit, this has the
  // runner read its store again (decision 159).
  Rpc.make("storeChanged")
]).annotateRpcs(
  // A wait never finishes on its own: when its shard moves away, the caller is told at once
  // (an interrupt exit, and it asks the next runner) rather than after the engine's grace
  // period for entities to finish, or not at all (decision 158).
  ClusterSchema.InterruptOnTermination,
  true
)

/** The waiter's handler, registered with the engine by the store. */
export const AskWaiterLayer = AskWaiter.toLayer(
  Effect.gen(function*() {
    const engine = yield* Effect.context<WorkflowEngine.WorkflowEngine>()
    const sharding = yield* Sharding.Sharding
    return AskWaiter.of({
      await: ({ payload }) => AskWorkflow.execute(payload).pipe(Effect.provideContext(engine)),
      storeChanged: () => sharding.pollStorage
    })
  }),
  // An ask waits as long as it is pending: the waiter stays while its request does.
  { concurrency: "unbounded" }
)
