/**
 * `DurableInbox.notify`: tells the human that a question waits. Each ask
 * seen pending is announced once to every target (`ask.pending`), again
 * `remind` before it expires (`ask.reminder`), and its end is reported
 * (`ask.settled`, to the targets that take it: webhooks). Every delivery
 * runs forked in the caller's scope (`notify/NotifyTarget.ts`'s `deliver`:
 * timeout, retries, one warning), so no target delays or fails an ask
 * (decision 130).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { InvalidRequest } from "../UserInteractionError.js"
import { deliver, type DeliveryPolicy, type Notice, type NotifyTarget } from "../notify/NotifyTarget.js"
import type { InboxChange, PendingAsk } from "./DurableInbox.js"

/**
 * Options of `DurableInbox.notify`: `remind`, how long before an ask
 * expires to remind of it (asks that never expire get no reminder);
 * `link`, the address that opens an ask (the inbox page a phone can reach;
 * none by default); `delivery`, how hard to try each target (default 10 s a
 * try, 3 tries, backoff from 500 ms).
 *
 * @since 0.3.0
 */
export interface NotifyOptions {
  readonly remind?: Duration.Input | undefined
  readonly link?: ((ask: PendingAsk) => string | undefined) | undefined
  readonly delivery?: DeliveryPolicy | undefined
}

/** `remind` in millis, or why it is none. */
const remindMillis = (remind: Duration.Input | undefined): Effect.Effect<number | undefined, InvalidRequest> => {
  if (remind === undefined) return Effect.succeed(undefined)
  const millis = Option.match(Duration.fromInput(remind), { onNone: () => NaN, onSome: Duration.toMillis })
  return millis > 0 && Number.isFinite(millis)
    ? Effect.succeed(millis)
    : Effect.fail(new InvalidRequest({ message: "notify's remind must be a finite duration longer than zero." }))
}

/** Announces what `changes` reports to `targets` until the scope closes. */
export const notifyChanges = (
  changes: Stream.Stream<InboxChange>,
  targets: ReadonlyArray<NotifyTarget>,
  options?: NotifyOptions
): Effect.Effect<void, InvalidRequest, Scope.Scope> =>
  Effect.gen(function*() {
    const remind = yield* remindMillis(options?.remind)
    const sending = yield* FiberSet.make()
    const reminders = yield* FiberMap.make<string>()
    // The asks announced by this process: each once, and its end only when its start was told.
    const announced = new Map<string, PendingAsk>()
    const notice = (type: Notice["type"], ask: PendingAsk, outcome?: Notice["outcome"]): Notice => {
      const link = options?.link?.(ask)
      return { type, ask, ...(link === undefined ? {} : { link }), ...(outcome === undefined ? {} : { outcome }) }
    }
    const send = (told: Notice) =>
      Effect.forEach(targets, (target) => FiberSet.run(sending, deliver(target, told, options?.delivery)), { discard: true })
    const onChange = (change: InboxChange): Effect.Effect<void> => {
      if (change._tag === "Asked") {
        const { ask } = change
        if (announced.has(ask.id)) return Effect.void
        announced.set(ask.id, ask)
        // Less than `remind` left already: the announcement is the reminder.
        const wait = remind === undefined || ask.expiresAt === undefined
          ? undefined
          : ask.expiresAt.getTime() - remind - Date.now()
        return Effect.andThen(
          send(notice("ask.pending", ask)),
          wait === undefined || wait <= 0
            ? Effect.void
            : FiberMap.run(reminders, ask.id, Effect.andThen(Effect.sleep(wait), send(notice("ask.reminder", ask))))
        )
      }
      const ask = announced.get(change.id)
      if (ask === undefined) return Effect.void
      announced.delete(change.id)
      return Effect.andThen(FiberMap.remove(reminders, change.id), send(notice("ask.settled", ask, change.outcome)))
    }
    yield* Effect.forkScoped(Stream.runForEach(changes, onChange))
  })
