/**
 * How long a durable store is waited for before a command gives up on it:
 * a statement waits up to 10 s for another process's lock, a store that
 * cannot serve the engine (locked, unreachable) is given 30 s in all, and a
 * store that is closing waits 1 s in all for locks (its shutdown then skips
 * what it cannot do; the engine's locks expire on their own), so every
 * command ends within a minute (SPEC "Durable store hardening").
 *
 * Tests shorten both through a global (`Symbol.for(storeTimingsKey)`), set
 * in-process or by a module preloaded into the program (`node --import`):
 * deliberately not an option of the library or a flag or variable of the
 * program, since no user should tune them.
 *
 * @internal
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** The store's timings, in milliseconds. */
export interface StoreTimings {
  /** How long one statement waits for a lock held by another process. */
  readonly busyMillis: number
  /** How long a store may keep failing (locked, unreachable) before the command gives up. */
  readonly giveUpMillis: number
}

/** The global a test sets to a `Partial<StoreTimings>`. */
export const storeTimingsKey = "effect-user-interaction/durable/storeTimings"

const defaults: StoreTimings = { busyMillis: 10_000, giveUpMillis: 30_000 }

/** The timings in force: the defaults, unless a test has set others. */
export const storeTimings = (): StoreTimings => {
  const set = (globalThis as Record<symbol, unknown>)[Symbol.for(storeTimingsKey)] as Partial<StoreTimings> | undefined
  return { ...defaults, ...set }
}

/** How long, in all, a closing store's statements wait for locks. */
export const closingWaitMillis = 1_000

/**
 * Tells the store's SQL client that the store is closing: from then on its
 * statements wait at most `closingWaitMillis` in all for locks. A store given
 * up on as locked spent 10 s more on each statement of the engine's shutdown.
 */
export class LockWaits extends Context.Service<LockWaits, {
  readonly closing: Effect.Effect<void>
}>()("effect-user-interaction/durable/LockWaits") {}
