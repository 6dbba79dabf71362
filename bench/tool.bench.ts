/**
 * What the model-facing tool costs on top of the seam: one ask answered by a
 * scripted provider, asked (1) directly with `UserInteraction.ask` (the
 * baseline), (2) from the model's JSON arguments (decode, then ask: the
 * handler's own work), (3) through the toolkit's `handle`, (4) as a whole
 * `LanguageModel.generateText` turn with a stand-in model, and (5) through
 * the Promise client, `ask` against `executeAskUserQuestion`. Figures are per-ask times relative to the
 * baseline, measured in this process.
 *
 * Run: `npm run build && node --expose-gc bench/tool.bench.ts`
 */
import { Effect, Layer, ManagedRuntime, Result, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import {
  type AskUserQuestionAnswer,
  AskUserQuestionHandlers,
  type AskUserQuestionRequest,
  AskUserQuestionToolkit,
  makeUserInteractionClient,
  ScriptedProvider,
  UserInteraction
} from "../dist/index.js"
import { requestFromToolArgs } from "../dist/internal/toolCall.js"

const args = {
  questions: [
    { id: "db", question: "Which database?", options: [{ label: "PostgreSQL (Recommended)" }, { label: "SQLite" }] },
    { id: "features", question: "Which features?", options: [{ label: "Auth" }, { label: "Audit" }], multi_select: true },
    { id: "name", question: "Name?" }
  ]
}
const request: AskUserQuestionRequest = {
  questions: args.questions.map(({ multi_select, ...q }) => multi_select === undefined ? q : { ...q, multiSelect: multi_select })
}
const answerFor = (req: AskUserQuestionRequest): AskUserQuestionAnswer => ({
  answers: req.questions.map((q) => ({ id: q.id, selected: q.options?.[0] ? [q.options[0].label] : [] }))
})

const StandInModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: () => Effect.succeed([{ type: "tool-call" as const, id: "c", name: "ask_user_question", params: args }]),
    streamText: () => Stream.empty
  })
)
const layer = Layer.mergeAll(
  AskUserQuestionHandlers.pipe(Layer.provideMerge(UserInteraction.layerWith(ScriptedProvider.layer((r) => Effect.succeed(answerFor(r)))))),
  StandInModel
)

const runtime = ManagedRuntime.make(layer)
const run = <A, E>(effect: Effect.Effect<A, E, ManagedRuntime.ManagedRuntime.Services<typeof runtime>>) => runtime.runPromise(effect)

const direct = () => run(UserInteraction.ask(request))
const decodeThenAsk = () =>
  run(Effect.suspend(() => {
    const decoded = requestFromToolArgs(args)
    return Result.isSuccess(decoded) ? UserInteraction.ask(decoded.success) : Effect.fail(decoded.failure)
  }))
const viaHandler = () =>
  run(Effect.gen(function*() {
    const toolkit = yield* AskUserQuestionToolkit
    return yield* Stream.runLast(yield* toolkit.handle("ask_user_question", args))
  }))
const viaTurn = () => run(LanguageModel.generateText({ prompt: "hi", toolkit: AskUserQuestionToolkit }))

const client = makeUserInteractionClient()
client.registerProvider({ ask: async (req) => answerFor(req) })
const clientAsk = () => client.ask(request)
const clientExecute = () => client.executeAskUserQuestion(args)

const gc = (globalThis as { gc?: () => void }).gc
const paths: ReadonlyArray<readonly [string, () => Promise<unknown>, number]> = [
  ["`UserInteraction.ask` (baseline)", direct, 1],
  ["decode model JSON, then `ask` (the handler's own work)", decodeThenAsk, 1],
  ["toolkit `handle`, from model JSON", viaHandler, 1],
  ["whole `generateText` turn, stand-in model", viaTurn, 4],
  ["client `ask`", clientAsk, 1],
  ["client `executeAskUserQuestion`", clientExecute, 1]
]
const iterations = 600
for (const [, fn] of paths) for (let i = 0; i < 200; i++) await fn()
// Rounds interleave the paths, so load from other processes hits them alike; each keeps its best round.
const best = paths.map(() => Infinity)
for (let round = 0; round < 5; round++) {
  for (const [index, [, fn, divisor]] of paths.entries()) {
    gc?.()
    const n = iterations / divisor
    const start = performance.now()
    for (let i = 0; i < n; i++) await fn()
    best[index] = Math.min(best[index]!, (performance.now() - start) / n)
  }
}
await client.dispose()
await runtime.dispose()
const baseline = best[0]!
const rows = paths.map(([name], index) => [name, best[index]!] as const)

console.log("| path (one ask, scripted answer) | time per ask vs baseline |")
console.log("|---|---|")
for (const [name, time] of rows) console.log(`| ${name} | ${(time / baseline).toFixed(2)}x |`)
