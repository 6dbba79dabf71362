/**
 * The seam's own cost: asks per second with an instant provider, against the
 * provider called directly and against a plain-Promise seam of the seed's
 * shape; what watching costs (an event subscriber and Effect's tracer on,
 * against both off, in paired rounds of alternating order); then memory per
 * pending ask and the time to settle 100k of them when the provider's scope
 * closes.
 */
import { Effect, Exit, Fiber, Layer, Result, Scope, Stream, Tracer } from "effect"
import {
  type AskUserQuestionAnswer,
  type AskUserQuestionRequest,
  checkAnswer,
  decodeRequest,
  NoProvider,
  AskAborted,
  UserInteraction,
  UserInteractionProvider
} from "../dist/index.js"
import { printTable, type Timing, time } from "./support.ts"

const request: AskUserQuestionRequest = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "Postgres (Recommended)" }, { label: "SQLite" }] },
    { id: "name", question: "Project name?" }
  ],
  signal: new AbortController().signal
}
const answer: AskUserQuestionAnswer = {
  answers: [{ id: "db", selected: ["Postgres (Recommended)"] }, { id: "name", selected: [], custom: "atlas" }]
}
const instant = UserInteractionProvider.of({ ask: () => Effect.succeed(answer) })

/** The baseline: the seed's shape, one slot, the same checks, a signal listener, Promises. */
class PlainSeam {
  provider: { ask(req: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> } | undefined
  ask(req: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    if (req.signal?.aborted) return Promise.reject(new AskAborted())
    const decoded = decodeRequest(req)
    if (Result.isFailure(decoded)) return Promise.reject(decoded.failure)
    const provider = this.provider
    if (provider === undefined) return Promise.reject(new NoProvider())
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new AskAborted())
      req.signal?.addEventListener("abort", onAbort, { once: true })
      provider.ask(req).then(
        (a) => {
          req.signal?.removeEventListener("abort", onAbort)
          const checked = checkAnswer(req, a)
          if (Result.isSuccess(checked)) resolve(checked.success)
          else reject(checked.failure)
        },
        (e) => {
          req.signal?.removeEventListener("abort", onAbort)
          reject(e)
        }
      )
    })
  }
}

const N = 100_000
const rows: Array<Array<string>> = []

const plain = new PlainSeam()
plain.provider = { ask: async () => answer }
const baseline = await time(N, async () => {
  for (let i = 0; i < N; i++) await plain.ask(request)
})

const direct = await time(N, () =>
  Effect.runPromise(Effect.gen(function*() {
    for (let i = 0; i < N; i++) yield* instant.ask(request)
  })))

const seam = await time(N, () =>
  Effect.runPromise(Effect.gen(function*() {
    const ui = yield* UserInteraction
    for (let i = 0; i < N; i++) yield* ui.ask(request)
  }).pipe(Effect.provide(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, instant))))))

// The same asks, each with its receipt (who answered, where, when): what the receipt adds.
const receipted = await time(N, () =>
  Effect.runPromise(Effect.gen(function*() {
    for (let i = 0; i < N; i++) yield* UserInteraction.askWithReceipt(request)
  }).pipe(Effect.provide(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, instant))))))

// Watching off: Effect's tracer disabled and nobody subscribed to the events.
const unwatchedRun = () =>
  Effect.runPromise(Effect.gen(function*() {
    const ui = yield* UserInteraction
    for (let i = 0; i < N; i++) yield* ui.ask(request)
  }).pipe(
    Effect.withTracerEnabled(false),
    Effect.provide(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, instant)))
  ))

// Watching on: a tracer that makes and ends every span (Effect's default tracer exports
// nothing, so the seam makes no span for it) and a subscriber draining every event.
let seen = 0
let spans = 0
const recording = Tracer.make({
  span: (options) => {
    spans++
    return new Tracer.NativeSpan(options)
  }
})
const watchedRun = () =>
  Effect.runPromise(Effect.gen(function*() {
    const ui = yield* UserInteraction
    yield* Effect.forkChild(Stream.runForEach(UserInteraction.events, () => Effect.sync(() => void seen++)), { startImmediately: true })
    for (let i = 0; i < N; i++) yield* ui.ask(request)
  }).pipe(
    Effect.withTracer(recording),
    Effect.provide(UserInteraction.layerWith(Layer.succeed(UserInteractionProvider, instant)))
  ))

// Paired rounds in alternating order, as in the ACP bench: whichever runs second in a pair meets a
// JIT warmed by the first, and a busy moment of the machine falls on both sides of a ratio.
const rounds = 7
const watchRounds: Array<{ readonly unwatched: Timing; readonly watched: Timing }> = []
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 0) {
    const unwatched = await time(N, unwatchedRun)
    watchRounds.push({ unwatched, watched: await time(N, watchedRun) })
  } else {
    const watched = await time(N, watchedRun)
    watchRounds.push({ unwatched: await time(N, unwatchedRun), watched })
  }
}
if (seen === 0 || spans === 0) throw new Error("the subscriber saw no events, or the tracer no spans")
const medianOf = <A>(items: ReadonlyArray<A>, value: (item: A) => number): A =>
  [...items].sort((a, b) => value(a) - value(b))[Math.floor(items.length / 2)]!
const unwatched = medianOf(watchRounds, (r) => r.unwatched.seconds).unwatched
const watched = medianOf(watchRounds, (r) => r.watched.seconds).watched
const watchRatio = medianOf(watchRounds.map((r) => r.watched.seconds / r.unwatched.seconds), (x) => x)

rows.push(["plain-Promise seam (baseline)", baseline.perSecond, baseline.micros, "1.00×"])
rows.push(["provider.ask called directly", direct.perSecond, direct.micros, `${(direct.seconds / baseline.seconds).toFixed(2)}×`])
rows.push(["UserInteraction.ask", seam.perSecond, seam.micros, `${(seam.seconds / baseline.seconds).toFixed(2)}×`])
rows.push([
  "UserInteraction.askWithReceipt",
  receipted.perSecond,
  receipted.micros,
  `${(receipted.seconds / baseline.seconds).toFixed(2)}×`
])
printTable([`${N.toLocaleString("en")} sequential asks, instant provider`, "asks/s", "µs/ask", "time vs baseline"], rows)

printTable([`watching the asks (medians of ${rounds} paired rounds)`, "asks/s", "µs/ask", "time vs unwatched", "target"], [
  ["tracer off, no event subscriber", unwatched.perSecond, unwatched.micros, "1.00×", ""],
  ["tracer on, one event subscriber", watched.perSecond, watched.micros, `${watchRatio.toFixed(2)}×`, "≤ 1.30×"]
])

// 100k pending asks: memory per pending ask, and how long closing the provider takes to settle them.
const P = 100_000
const pendingResult = await Effect.runPromise(Effect.gen(function*() {
  const seamContext = yield* Layer.build(UserInteraction.layer)
  const ui = yield* UserInteraction.pipe(Effect.provideContext(seamContext))
  const providerScope = yield* Scope.make()
  yield* ui.register(UserInteractionProvider.of({ ask: () => Effect.never })).pipe(Scope.provide(providerScope))
  const requests = Array.from({ length: P }, () => ({ questions: request.questions }))
  globalThis.gc?.()
  const before = process.memoryUsage().heapUsed
  const fibers = requests.map((r) => Effect.runFork(ui.ask(r)))
  yield* Effect.sleep("50 millis")
  globalThis.gc?.()
  const after = process.memoryUsage().heapUsed
  const start = performance.now()
  yield* Scope.close(providerScope, Exit.void)
  yield* Fiber.awaitAll(fibers)
  const settleMs = performance.now() - start
  const closed = fibers.filter((f) => {
    const exit = f.pollUnsafe()
    return exit !== undefined && Exit.isFailure(exit)
  }).length
  return { bytesPerAsk: (after - before) / P, settleMs, closed }
}).pipe(Effect.scoped))

printTable(["100,000 pending asks", "value", "target"], [
  ["heap per pending ask", `${Math.round(pendingResult.bytesPerAsk)} B`, "≤ 2,048 B"],
  ["closing the provider settles all", `${pendingResult.settleMs.toFixed(0)} ms`, "≤ 250 ms"],
  ["asks settled PROVIDER_CLOSED", pendingResult.closed.toLocaleString("en"), P.toLocaleString("en")]
])
