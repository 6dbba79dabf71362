/**
 * An agent turn with the model-facing tool `ask_user_question`.
 *
 * The language model here is a stand-in (`LanguageModel.make`) that first
 * calls the tool and then reads the result; with a real model, provide its
 * layer instead (for example from `@effect/ai-openai`). The human is a
 * `ScriptedProvider`; swap in `TerminalProvider.layer()` to ask on the
 * terminal, or any other provider layer.
 *
 * Run: `npm run build && node examples/tool.ts`
 */
import { Effect, Layer, Stream } from "effect"
import { Chat, LanguageModel } from "effect/ai"
import {
  AskingAgent,
  AskUserQuestionHandlers,
  AskUserQuestionToolkit,
  ScriptedProvider,
  UserInteraction
} from "effect-user-interaction"

/** A stand-in model: asks once, then reports the tool result it received. */
const StandInModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) => {
      const toolMessage = options.prompt.content.find((message) => message.role === "tool")
      if (toolMessage === undefined) {
        return Effect.succeed([{
          type: "tool-call" as const,
          id: "call_1",
          name: "ask_user_question",
          params: {
            questions: [{
              id: "database",
              question: "Which database should the service use?",
              options: [{ label: "PostgreSQL (Recommended)" }, { label: "SQLite" }]
            }, {
              id: "features",
              question: "Which features ship first?",
              options: [{ label: "Auth" }, { label: "Audit log" }, { label: "CSV export" }],
              multi_select: true
            }]
          }
        }])
      }
      const results = toolMessage.content.flatMap((part) => part.type === "tool-result" ? [part.result] : [])
      return Effect.succeed([{ type: "text" as const, text: `Thanks, noted: ${JSON.stringify(results)}` }])
    },
    streamText: () => Stream.empty
  })
)

/** The human, scripted: the recommended database, two features. */
const Human = ScriptedProvider.layer(() =>
  Effect.succeed({
    answers: [
      { id: "database", selected: ["PostgreSQL (Recommended)"] },
      { id: "features", selected: ["Auth", "Audit log"] }
    ]
  })
)

const program = Effect.gen(function*() {
  const chat = yield* Chat.empty
  // First request: the model calls ask_user_question; the handler asks the human.
  const first = yield* chat.generateText({ prompt: "Set up the new service", toolkit: AskUserQuestionToolkit })
  for (const part of first.toolResults) console.log("tool result:", JSON.stringify(part.encodedResult))
  // Second request: the model reads the answer from the chat history.
  const second = yield* chat.generateText({ prompt: [], toolkit: AskUserQuestionToolkit })
  console.log("model:", second.text)
}).pipe(
  // Who asks: providers may show it, and multi-session providers (ACP) route by it.
  Effect.provideService(AskingAgent, { id: "example-session", name: "Example agent" }),
  Effect.provide(Layer.mergeAll(
    AskUserQuestionHandlers.pipe(Layer.provide(UserInteraction.layerWith(Human))),
    StandInModel
  ))
)

Effect.runPromise(program).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
