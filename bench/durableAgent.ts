/**
 * The waiting agent of `durable.bench.ts`, in its own process: asks
 * `<prefix>-0`, `<prefix>-1`, … one after another on the store at URL and
 * prints `<index> <epoch ms>` the moment each answer arrives.
 *
 *   node bench/durableAgent.ts URL PREFIX COUNT
 */
import { Effect, Layer, Logger, References } from "effect"
import { UserInteraction } from "../dist/index.js"
import { DurableProvider, DurableStore } from "../dist/durable/index.js"

const [url, prefix, count] = process.argv.slice(2) as [string, string, string]
const question = { id: "q", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }

const program = Effect.forEach(
  Array.from({ length: Number(count) }, (_, i) => i),
  (i) =>
    Effect.tap(UserInteraction.ask({ id: `${prefix}-${i}`, questions: [question] }), () =>
      Effect.sync(() => process.stdout.write(`${i} ${Date.now()}\n`))),
  { discard: true }
).pipe(
  Effect.provide(UserInteraction.layerWith(DurableProvider.layer()).pipe(Layer.provide(DurableStore.layer(url)))),
  Effect.provideService(References.MinimumLogLevel, "Error"),
  // stdout carries only the lines above (the benches read them); the engine's errors go to stderr.
  Effect.provide(Logger.layer([Logger.withConsoleError(Logger.formatSimple)]))
)

await Effect.runPromise(program)
