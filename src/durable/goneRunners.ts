/**
 * Runners of a SQLite store's cluster that are gone, told to the store at
 * once (decision 168). Runners of a SQLite store listen on Unix sockets on
 * this machine, so a runner's socket that refuses a connection (nothing
 * listens at the path any more, or the file is gone) is a runner whose
 * process has ended: a stopped or busy one still accepts. Its shard locks
 * would otherwise hold its asks for 2–3 s more (the engine's lock expiry on
 * SQLite's whole seconds); unregistered and its locks released, the other
 * runners take its shards at their next read of the assignments (500 ms).
 *
 * Not for TCP runners: a refusal there may come from a firewall, or from a
 * runner on another machine that registered an address this one cannot
 * reach, and a live runner's locks must never be taken.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import { type RunnerAddress, RunnerStorage } from "effect/cluster"

/** How long a closing process waits for the store to be told of runners found gone. */
const closingWait = 1_000

/** How long after a runner was reported gone a second report of it is ignored. */
const reportedFor = 10_000

/**
 * A report that the runner at an address is gone: it is unregistered and
 * its shard locks released, in the background (a send that found it gone
 * does not wait for the store, but a closing process waits up to a second
 * for it), once per address however many connections found it so.
 */
export const goneRunners = Effect.gen(function*() {
  const storage = yield* RunnerStorage.RunnerStorage
  const running = yield* FiberSet.make()
  // A process that found a runner gone as it ends (an answerer) still tells the store, within reason.
  yield* Effect.addFinalizer(() => Effect.ignore(Effect.timeout(FiberSet.awaitEmpty(running), closingWait)))
  const reported = new Map<string, number>()
  return (address: RunnerAddress.RunnerAddress) =>
    Effect.suspend(() => {
      const now = Date.now()
      const key = `${address.host}:${address.port}`
      if (now - (reported.get(key) ?? -Infinity) < reportedFor) return Effect.void
      reported.set(key, now)
      for (const [other, at] of reported) if (now - at >= reportedFor) reported.delete(other)
      // Unregistered first: released before, its shards could be assigned to it again and locked for nobody.
      const drop = storage.unregister(address).pipe(
        Effect.andThen(storage.releaseAll(address)),
        Effect.andThen(Effect.logDebug("A runner of the store's cluster is gone: its shards are free", address.host)),
        Effect.catchCause((cause) => Effect.logDebug("Could not drop a runner that is gone", cause)),
        Effect.annotateLogs({ module: "effect-user-interaction/durable" })
      )
      return Effect.asVoid(FiberSet.run(running, drop))
    })
})
