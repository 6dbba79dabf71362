/**
 * Helpers for durable tests that run in one process over a real engine: an
 * asker and an inbox on one store (in memory unless told), and a wait until
 * an ask is listed as pending.
 */
import { Effect, Layer } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { DurableInbox, DurableProvider, type DurableProviderOptions, DurableStore } from "effect-user-interaction/durable"

/** The seam over the durable provider, and the inbox, on one store at `url`. */
export const storeWith = (options?: DurableProviderOptions, url = "sqlite::memory:") =>
  Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer(options)), DurableInbox.layer).pipe(
    Layer.provideMerge(DurableStore.layer(url))
  )

/** Waits (polling, no timing assertion) until the ask `id` is listed as pending. */
export const untilPending = (id: string) =>
  Effect.gen(function*() {
    const inbox = yield* DurableInbox
    while (!(yield* inbox.pending).some((ask) => ask.id === id)) yield* Effect.sleep("20 millis")
  })
