/**
 * Waiting until a durable ask is pending, for tests and benchmarks: they
 * import the inbox from the sources or from the build, so the caller hands
 * in its `status`.
 */
import * as Effect from "effect/Effect"

/** Polls `status(id)` every `pause` until the ask is pending (an unknown id is polled again). */
export const untilPending = <E, R>(
  status: (id: string) => Effect.Effect<{ readonly status: string }, E, R>,
  id: string,
  pause = "2 millis" as const satisfies `${number} millis`
): Effect.Effect<void, never, R> =>
  Effect.gen(function*() {
    for (;;) {
      const result = yield* Effect.result(status(id))
      if (result._tag === "Success" && result.success.status === "pending") return
      yield* Effect.sleep(pause)
    }
  })
