/**
 * The web provider's side of claims, when it was given a `WebClaims` hook:
 * claiming and releasing for the page's answerers, the claim every answer
 * and cancel takes first (so an answer the keeper would refuse is refused
 * here, with 409, while the ask stays pending, instead of being taken from
 * the page and dropped further on), and a poll of the hook's `held` that
 * keeps the pending table's claims, and so the pages, up to date with
 * claims taken, released or lapsed elsewhere.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { Answerer } from "../Answerer.js"
import type { Entry, PendingTable } from "./pending.js"
import type { WebClaim, WebClaims } from "./WebClaims.js"

/** How often the claims are read when the hook does not say. */
const defaultPollInterval = "1 second"

/** How a claim, a release, or the claim before an answer went. */
export type ClaimOutcome =
  /** `by` holds the claim now (a release: `by` holds none). */
  | { readonly _tag: "Held"; readonly claim?: WebClaim }
  /** Someone else holds it: the message names them, `claim` says who when the table knows. */
  | { readonly _tag: "Claimed"; readonly message: string; readonly claim?: WebClaim }
  | { readonly _tag: "NotAuthorized"; readonly message: string }
  | { readonly _tag: "NotPending" }

/** The claims of one web provider. */
export interface ClaimKeeper {
  /** A claim's length, which the page renews at a third of. */
  readonly ttlMillis: number
  /** Claims `entry`'s ask for `by`, or renews their claim. */
  readonly claim: (entry: Entry, by: Answerer | undefined) => Effect.Effect<ClaimOutcome>
  /** Ends `by`'s claim on `entry`'s ask. */
  readonly release: (entry: Entry, by: Answerer | undefined) => Effect.Effect<ClaimOutcome>
  /**
   * Before an answer or cancel from `by`: their claim, taken or renewed, so
   * that nobody else's can refuse what they send; someone nobody can name
   * goes on only while nobody holds one.
   */
  readonly admit: (entry: Entry, by: Answerer | undefined) => Effect.Effect<ClaimOutcome>
}

const nobodyKnown: ClaimOutcome = {
  _tag: "NotAuthorized",
  message: "A claim needs someone to hold it, and nobody can say who this request is from."
}

/** The hook's `ttl` in milliseconds; a `ttl` that is no positive duration is the program's mistake. */
const ttlOf = (claims: WebClaims): number => {
  const millis = Option.match(Duration.fromInput(claims.ttl), { onNone: () => NaN, onSome: Duration.toMillis })
  if (!(millis > 0 && Number.isFinite(millis))) {
    throw new Error("WebProvider.layer: claims.ttl must be a finite duration longer than zero.")
  }
  return millis
}

/**
 * The keeper of `table`'s claims through `claims`, polling `held` in the
 * scope's lifetime while anything is pending.
 */
export const makeClaimKeeper = (table: PendingTable, claims: WebClaims): Effect.Effect<ClaimKeeper, never, Scope.Scope> =>
  Effect.gen(function*() {
    const ttlMillis = yield* Effect.sync(() => ttlOf(claims))
    /** The ask's own id, which the hook knows it by. */
    const askIdOf = (entry: Entry) => entry.request.id ?? entry.view.id
    /**
     * Bumped by every claim and release made here: a poll that began before
     * one read the claims as they were, and is not applied over it.
     */
    let changes = 0

    const refresh = Effect.suspend(() => {
      if (table.entries().length === 0) return Effect.void
      const at = changes
      return Effect.map(claims.held, (held) => {
        if (at !== changes) return
        const byAsk = new Map(held.map(({ askId, claim }) => [askId, claim]))
        for (const entry of table.entries()) table.setClaim(entry, byAsk.get(askIdOf(entry)))
      })
    }).pipe(
      // A keeper that cannot be read now (a store that is down) leaves the claims as last seen;
      // its answers and claims fail on their own, and say so there.
      Effect.catchCause(() => Effect.void)
    )

    const interval = claims.pollInterval ?? defaultPollInterval
    yield* Effect.forkScoped(Effect.repeat(refresh, Schedule.spaced(interval)))

    /** Someone else's claim refused `by`: the table read again, so the answer names them. */
    const claimedBy = (entry: Entry, by: Answerer | undefined, message: string): Effect.Effect<ClaimOutcome> =>
      Effect.map(refresh, () => {
        const holder = table.claimOf(entry)
        return holder === undefined || holder.by.id === by?.id
          ? { _tag: "Claimed", message }
          : { _tag: "Claimed", message, claim: holder }
      })

    const claim = (entry: Entry, by: Answerer | undefined): Effect.Effect<ClaimOutcome> => {
      if (by === undefined) return Effect.succeed(nobodyKnown)
      return Effect.flatMap(Effect.result(claims.claim(askIdOf(entry), by)), (result): Effect.Effect<ClaimOutcome> => {
        if (Result.isSuccess(result)) {
          changes++
          table.setClaim(entry, result.success)
          return Effect.succeed({ _tag: "Held", claim: result.success })
        }
        const error = result.failure
        switch (error._tag) {
          case "AskClaimed":
            return claimedBy(entry, by, error.message)
          case "NotAuthorized":
            return Effect.succeed({ _tag: "NotAuthorized", message: error.message })
          default:
            return Effect.succeed({ _tag: "NotPending" })
        }
      })
    }

    const release = (entry: Entry, by: Answerer | undefined): Effect.Effect<ClaimOutcome> => {
      if (by === undefined) return Effect.succeed(nobodyKnown)
      return Effect.flatMap(Effect.result(claims.release(askIdOf(entry), by)), (result): Effect.Effect<ClaimOutcome> => {
        if (Result.isSuccess(result)) {
          changes++
          if (table.claimOf(entry)?.by.id === by.id) table.setClaim(entry, undefined)
          return Effect.succeed({ _tag: "Held" })
        }
        const error = result.failure
        return error._tag === "AskClaimed" ? claimedBy(entry, by, error.message) : Effect.succeed({ _tag: "NotPending" })
      })
    }

    const admit = (entry: Entry, by: Answerer | undefined): Effect.Effect<ClaimOutcome> => {
      if (by !== undefined) return claim(entry, by)
      const holder = table.claimOf(entry)
      return Effect.succeed(
        holder === undefined
          ? { _tag: "Held" }
          : { _tag: "Claimed", message: `${holder.by.name ?? holder.by.id} is answering this ask.`, claim: holder }
      )
    }

    return { ttlMillis, claim, release, admit }
  })
