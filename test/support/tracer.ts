/** A tracer that keeps every span it makes, for tests that read spans back. */
import { Tracer } from "effect"

export const memoryTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}
