/**
 * Preloaded into the `ask-user` program (`NODE_OPTIONS=--import=…`, see
 * `shortStoreTimingsEnv` in `durableCli.ts`) by tests that make a store
 * fail: a statement waits 300 ms for a lock instead of 10 s, and a store is
 * given up on after 2 s instead of 30 s, so such a test takes seconds. The
 * key is `storeTimingsKey` of `src/durable/storeTimings.ts`
 * (`test/durableHardening.test.ts` checks that they match). Never imported by
 * a test itself: the test process's own stores would take these timings.
 */
Object.assign(globalThis, {
  [Symbol.for("effect-user-interaction/durable/storeTimings")]: { busyMillis: 300, giveUpMillis: 2_000 }
})
