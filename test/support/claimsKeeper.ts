/**
 * A keeper of claims in memory for the web page's tests: the claims hook of
 * `WebProvider.layer` is store-agnostic, so its tests need no store.
 */
import { Duration, Effect } from "effect"
import { type Answerer, AskClaimed, AskNotPending, UnknownAsk } from "effect-user-interaction"
import type { WebClaim, WebClaims } from "effect-user-interaction/web"

/**
 * A keeper of claims in memory, as a store would keep them (no lapse of its
 * own: the test ends a claim with `drop`, as a lapse would); `gone` asks are
 * settled as far as it knows.
 */
export const makeKeeper = (ttl: Duration.Input = "90 seconds") => {
  const held = new Map<string, WebClaim>()
  const gone = new Set<string>()
  const calls: Array<string> = []
  let reads = 0
  const claims: WebClaims = {
    ttl,
    pollInterval: "50 millis",
    claim: (askId, by) =>
      Effect.suspend((): Effect.Effect<WebClaim, AskClaimed | AskNotPending> => {
        calls.push(`claim ${askId} ${by.id}`)
        if (gone.has(askId)) return Effect.fail(new AskNotPending({ message: `"${askId}" is settled.` }))
        const holder = held.get(askId)
        if (holder !== undefined && holder.by.id !== by.id) {
          return Effect.fail(new AskClaimed({ message: `"${askId}" is claimed by ${holder.by.name ?? holder.by.id}.` }))
        }
        const claim = { by, until: new Date(Date.now() + Duration.toMillis(Duration.fromInputUnsafe(ttl))) }
        held.set(askId, claim)
        return Effect.succeed(claim)
      }),
    release: (askId, by) =>
      Effect.suspend((): Effect.Effect<void, AskClaimed | UnknownAsk> => {
        calls.push(`release ${askId} ${by.id}`)
        if (gone.has(askId)) return Effect.fail(new UnknownAsk({ message: `No ask "${askId}".` }))
        const holder = held.get(askId)
        if (holder !== undefined && holder.by.id !== by.id) {
          return Effect.fail(new AskClaimed({ message: `"${askId}" is claimed by ${holder.by.name ?? holder.by.id}.` }))
        }
        held.delete(askId)
        return Effect.void
      }),
    held: Effect.sync(() => {
      reads++
      return Array.from(held, ([askId, claim]) => ({ askId, claim }))
    })
  }
  return {
    claims,
    calls,
    reads: () => reads,
    /** Someone claims elsewhere (another process, another inbox). */
    take: (askId: string, by: Answerer) => void held.set(askId, { by, until: new Date(Date.now() + Duration.toMillis(Duration.fromInputUnsafe(ttl))) }),
    /** A claim lapses, or is released elsewhere. */
    drop: (askId: string) => void held.delete(askId),
    settle: (askId: string) => void gone.add(askId)
  }
}

export type Keeper = ReturnType<typeof makeKeeper>
