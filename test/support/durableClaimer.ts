/**
 * A test answerer process for claims: opens the store's inbox, prints
 * `ready`, waits for a line on stdin (so that several processes act in the
 * same breath), then claims the ask, or answers it "Yes", as `ANSWERER`,
 * and prints `{"ok":true,"until"?}` or `{"ok":false,"code","message"}`.
 * With `SKEW_MS` its own clock runs that far off (`Date.now`, which Effect's
 * clock reads too), as a machine whose clock jumped would.
 *
 *   node test/support/durableClaimer.ts URL ID ANSWERER claim|answer [SKEW_MS]
 */
import type * as EffectTypes from "effect/Effect"

const [url, id, answerer, action, skew] = process.argv.slice(2) as [string, string, string, "claim" | "answer", string?]

if (skew !== undefined) {
  const realNow = Date.now.bind(Date)
  Date.now = () => realNow() + Number(skew)
}

const { Effect, Layer, References } = await import("effect")
const { DurableInbox, DurableStore } = await import("effect-user-interaction/durable")

const go = new Promise<void>((resolve) => process.stdin.once("data", () => resolve()))

const program = Effect.gen(function*() {
  const inbox = yield* DurableInbox
  process.stdout.write("ready\n")
  yield* Effect.promise(() => go)
  const by = { id: answerer }
  const acting: EffectTypes.Effect<{ readonly ok: true; readonly until?: string }, { readonly code: string; readonly message: string }> =
    action === "claim"
      ? Effect.map(inbox.claim(id, by), (claim) => ({ ok: true, until: claim.until.toISOString() }))
      : Effect.as(inbox.answer(id, { answers: [{ id: "q", selected: ["Yes"] }] }, { by }), { ok: true })
  const result = yield* Effect.result(acting)
  const line = result._tag === "Success"
    ? result.success
    : { ok: false, code: result.failure.code, message: result.failure.message }
  process.stdout.write(`${JSON.stringify(line)}\n`)
}).pipe(Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))))

// stdout carries only the lines above; the engine's housekeeping logs stay out of it.
await Effect.runPromise(program.pipe(Effect.provideService(References.MinimumLogLevel, "Error")))
process.stdin.destroy()
