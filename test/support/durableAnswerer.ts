/**
 * A test answerer process: answers every pending durable ask on the store at
 * `url` with `label`, until every id in `ids` is settled, and prints
 * `{"recorded":[ids it recorded]}` (a lost race, ASK_NOT_PENDING, is not one).
 *
 *   node test/support/durableAnswerer.ts URL LABEL ID...
 */
import { Effect, Layer, References } from "effect"
import { DurableInbox, DurableStore } from "effect-user-interaction/durable"

const [url, label, ...ids] = process.argv.slice(2) as [string, string, ...Array<string>]

const program = Effect.gen(function*() {
  const inbox = yield* DurableInbox
  const recorded: Array<string> = []
  const waiting = new Set(ids)
  while (waiting.size > 0) {
    for (const ask of yield* inbox.pending) {
      yield* inbox.answer(ask.id, { answers: [{ id: "q", selected: [label] }] }).pipe(
        Effect.andThen(Effect.sync(() => recorded.push(ask.id))),
        Effect.catchTag("AskNotPending", () => Effect.void)
      )
    }
    for (const id of waiting) {
      const status = yield* Effect.result(inbox.status(id))
      if (status._tag === "Success" && status.success.status !== "pending") waiting.delete(id)
    }
    yield* Effect.sleep("100 millis")
  }
  process.stdout.write(`${JSON.stringify({ recorded })}\n`)
}).pipe(Effect.provide(DurableInbox.layer.pipe(Layer.provideMerge(DurableStore.layer(url, { runner: false })))))

// stdout carries only the lines above; the engine's housekeeping logs stay out of it.
await Effect.runPromise(program.pipe(Effect.provideService(References.MinimumLogLevel, "Error")))
