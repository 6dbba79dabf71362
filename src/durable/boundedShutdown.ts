/**
 * A layer whose release may take only so long. After a runner's shards
 * moved (it was stopped, or starved), effect/cluster's shutdown has been
 * seen to wait for ever with nothing left to wake it: the agent had printed
 * its answer and then never ended, or Node ended it with code 13 for an
 * await that could not settle (decisions 157, 167). The store's layers are
 * released in a fiber of their own and waited for at most `limit`; one that
 * takes longer is left behind and the process goes on to end; that is said
 * at Debug, because under load a plain answerer's release was seen to take
 * that long too, and a cut-short release loses nothing. Its shard locks lapse and its runner is dropped by the others'
 * health checks, as for a runner that was killed.
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"

/** `layer`, its release waited for at most `limit`. */
export const boundedShutdown = <A, E, R>(layer: Layer.Layer<A, E, R>, limit: Duration.Input): Layer.Layer<A, E, R> =>
  Layer.effectContext(Effect.gen(function*() {
    const inner = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, inner).pipe(
      Effect.onError((cause) => Scope.close(inner, Exit.failCause(cause)))
    )
    yield* Effect.addFinalizer((exit) =>
      Effect.forkDetach(Scope.close(inner, exit)).pipe(
        Effect.flatMap((release) =>
          Fiber.await(release).pipe(
            Effect.timeoutOrElse({
              duration: limit,
              orElse: () =>
                Effect.logDebug("The durable store's engine did not shut down in time; the process ends without it.").pipe(
                  Effect.annotateLogs({ module: "effect-user-interaction/durable" })
                )
            })
          )
        ),
        Effect.asVoid
      )
    )
    return context
  }))
