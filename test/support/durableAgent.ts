/**
 * A test agent process: asks `count` durable questions at once (ids
 * `<prefix>-0` …) on the store at `url` and prints one line
 * `{"id","answer"}` per answer. Run by Node directly against the built package.
 *
 *   node test/support/durableAgent.ts URL PREFIX COUNT
 */
import { Effect, Layer, Logger, References } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { DurableProvider, DurableStore } from "effect-user-interaction/durable"

const [url, prefix, count] = process.argv.slice(2) as [string, string, string]
const question = { id: "q", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] }

const program = Effect.forEach(
  Array.from({ length: Number(count) }, (_, i) => `${prefix}-${i}`),
  (id) =>
    Effect.tap(UserInteraction.ask({ id, questions: [question] }), (answer) =>
      Effect.sync(() => process.stdout.write(`${JSON.stringify({ id, answer })}\n`))),
  { concurrency: "unbounded", discard: true }
).pipe(
  Effect.provide(UserInteraction.layerWith(DurableProvider.layer()).pipe(Layer.provide(DurableStore.layer(url))))
)

// stdout carries only the lines above; the engine's housekeeping logs stay out of it, errors go to stderr.
await Effect.runPromise(program.pipe(
  Effect.provide(Logger.layer([Logger.withConsoleError(Logger.formatSimple)])),
  Effect.provideService(References.MinimumLogLevel, "Error")
))
