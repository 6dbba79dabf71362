/**
 * Watching asks with OpenTelemetry: `@effect/opentelemetry` installs an OTel
 * tracer (and, given a metric reader, the metrics) for Effect, and every ask
 * then shows up as a `UserInteraction.ask` span under the caller's span. Here
 * the spans go to an in-memory exporter and are printed; in an app, pass an
 * OTLP exporter (`@opentelemetry/exporter-trace-otlp-http`) instead.
 *
 * Run: npm run build && node examples/otel.ts
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect } from "effect"
import { ScriptedProvider, UserInteraction } from "effect-user-interaction"

const exporter = new InMemorySpanExporter()
const Telemetry = NodeSdk.layer(() => ({
  resource: { serviceName: "deploy-agent" },
  spanProcessor: new SimpleSpanProcessor(exporter)
}))

const deployTool = UserInteraction.ask({
  id: "deploy-42",
  agent: { id: "deployer" },
  questions: [{ id: "target", question: "Deploy where?", options: [{ label: "staging" }, { label: "production" }] }]
}).pipe(Effect.withSpan("deploy tool"))

const scripted = ScriptedProvider.layer(() => Effect.succeed({ answers: [{ id: "target", selected: ["staging"] }] }))

/** The spans exported so far, each with its parent (the exporter forgets them when the SDK shuts down). */
const printSpans = Effect.sync(() => {
  const spans = exporter.getFinishedSpans()
  for (const span of spans) {
    const parent = spans.find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId)
    console.log(`${span.name}${parent ? ` (in ${parent.name})` : ""} ${JSON.stringify(span.attributes)}`)
  }
})

await Effect.runPromise(
  deployTool.pipe(
    Effect.andThen(printSpans),
    Effect.provide(UserInteraction.layerWith(scripted)),
    Effect.provide(Telemetry)
  )
)
