/**
 * The model-facing tool `ask_user_question`: an `effect/ai` tool whose call
 * pauses until the human answers through the active provider. The answer
 * comes back as an ordinary tool result; every failure comes back as
 * `{ "name": "UserInteractionError", "code", "message" }`, which the model
 * can read and act on.
 *
 * ```ts
 * const chat = yield* Chat.empty
 * yield* chat.generateText({ prompt: "Set up the project", toolkit: AskUserQuestionToolkit })
 * // provide AskUserQuestionHandlers and UserInteraction.layerWith(TerminalProvider.layer())
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { Tool, Toolkit } from "effect/ai"
import { type AskReceipt, answererTitle, isPersonAnswerer } from "./Answerer.js"
import { type Agent, AskUserQuestionAnswer, type AskUserQuestionAnswerItem } from "./AskUserQuestion.js"
import { AskUserQuestionArgs } from "./AskUserQuestionArgs.js"
import { brief } from "./internal/brief.js"
import { type ModelAnswerJson, modelJson, secretReceived } from "./internal/secrets.js"
import { errorFromCode, requestFromToolArgs } from "./internal/toolCall.js"
import { UserInteraction } from "./UserInteraction.js"
import { errorCodes, isUserInteractionError } from "./UserInteractionError.js"

/**
 * A failure as the model reads it: exactly `{ name, code, message }`, the
 * message on one line of at most 300 characters. It decodes to the error
 * class of `code`, and every error class encodes to it (the `cause` stays on
 * the harness's side).
 *
 * @since 0.1.0
 */
export const UserInteractionErrorJson = Schema.Struct({
  name: Schema.Literal("UserInteractionError"),
  code: Schema.Literals(errorCodes),
  message: Schema.String
}).pipe(
  Schema.decodeTo(
    Schema.declare(isUserInteractionError, { identifier: "UserInteractionError" }),
    SchemaTransformation.transform({
      decode: ({ code, message }) => errorFromCode(code, message),
      // What the model reads is one line of at most 300 characters, as on the protocol surfaces: a
      // message may quote the model's own text back, and a 5 MB label must not come back whole.
      encode: (error) => ({ name: "UserInteractionError" as const, code: error.code, message: brief(error.message) })
    })
  )
)

const ModelAnswerItemJson = Schema.Union([
  Schema.Struct({ id: Schema.String, selected: Schema.Array(Schema.String), custom: Schema.optionalKey(Schema.String) }),
  Schema.Struct({ id: Schema.String, secret: Schema.Literal(secretReceived) })
])

/**
 * What the tool's handler returns: the answer and, when a person known by
 * account answered, `answeredBy` (`"Ana Lima (terminal)"`).
 *
 * @since 0.3.0
 */
export const AskUserQuestionToolResult = Schema.Struct({
  ...AskUserQuestionAnswer.fields,
  answeredBy: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AskUserQuestionToolResult" })

/** @since 0.3.0 */
export type AskUserQuestionToolResult = typeof AskUserQuestionToolResult.Type

/**
 * The answer as the model reads it: the `AskUserQuestionAnswer` JSON, except
 * that a secret question's item is `{ "id", "secret": "received" }` (the
 * value never reaches the model), a defaulted answer carries, beside
 * `"defaulted": true`, a `note` saying the human did not answer and the
 * recommended options were taken, and `answeredBy` names a person known by
 * account who answered. Decoding what a model was shown gives the answer
 * back with each secret as `Redacted("received")`: the value itself never
 * left.
 *
 * @since 0.3.0
 */
export const AskUserQuestionResultJson = Schema.Struct({
  answers: Schema.Array(ModelAnswerItemJson),
  defaulted: Schema.optionalKey(Schema.Literal(true)),
  note: Schema.optionalKey(Schema.String),
  answeredBy: Schema.optionalKey(Schema.String)
}).pipe(
  Schema.decodeTo(
    AskUserQuestionToolResult,
    SchemaTransformation.transform<AskUserQuestionToolResult, ModelAnswerJson & { readonly answeredBy?: string }>({
      decode: ({ answeredBy, answers, defaulted }) => {
        const items = answers.map((item): AskUserQuestionAnswerItem =>
          "secret" in item ? { id: item.id, selected: [], secret: Redacted.make<string>(item.secret) } : item
        )
        return {
          answers: items,
          ...(defaulted === true ? { defaulted } : {}),
          ...(answeredBy === undefined ? {} : { answeredBy })
        }
      },
      encode: (result) => result.answeredBy === undefined ? modelJson(result) : { ...modelJson(result), answeredBy: result.answeredBy }
    })
  )
)

const description = [
  "Ask the human user one or more questions and wait for the answers.",
  "Ask only when you cannot proceed safely without them (a decision that is theirs to make, a preference,",
  "information you cannot find yourself); otherwise carry on.",
  "Keep each question short and self-contained, batch related questions in one call,",
  "and give each question a stable snake_case id.",
  "Prefer options to free text. Put the option you recommend first and mark it with recommended: true",
  "(or append \" (Recommended)\" to its label); a preview (plain text or markdown) may show what an option means.",
  "Never add an \"Other\" option: the user can always type their own answer instead.",
  "Set multi_select when several options may be chosen. Set secret on a question without options to ask for a",
  "password or token you must not see: you get \"received\", never the text.",
  "The result is {\"answers\":[{\"id\",\"selected\",\"custom\"?}]}, one item per question in question order:",
  "selected holds the chosen labels, custom the user's own text, and selected [] without custom means the",
  "user skipped that question. When a person known by account answered, the result also has answeredBy",
  "(their name and where they answered).",
  "With timeout (\"5m\") and on_timeout \"recommended\", a user who does not answer in time gets the recommended",
  "options taken for them: the result then has \"defaulted\": true and a note; that is not their consent.",
  "A failure is {\"name\":\"UserInteractionError\",\"code\",\"message\"}; after ASK_CANCELLED or ASK_DECLINED",
  "do not ask the same thing again; ASK_TIMEOUT means nobody answered and nothing was agreed to."
].join(" ")

/**
 * The tool `ask_user_question`. Its JSON Schema is generated from
 * `AskUserQuestionArgs`; the arguments are decoded by the handler, so
 * arguments that do not decode reach the model as `INVALID_REQUEST` (or
 * `EMPTY_QUESTIONS`) in the same `{ name, code, message }` shape as every
 * other failure (`failureMode: "return"`).
 *
 * @since 0.1.0
 */
export const AskUserQuestionTool = Tool.dynamic("ask_user_question", {
  description,
  parameters: Tool.getJsonSchemaFromSchema(AskUserQuestionArgs),
  success: AskUserQuestionResultJson,
  failure: UserInteractionErrorJson,
  failureMode: "return"
}).annotateMerge(
  Context.make(Tool.Title, "Ask the user").pipe(
    // Optional keys and open objects are not strict-mode JSON Schema; effect/ai's MCP tools opt out the same way.
    Context.add(Tool.Strict, false),
    Context.add(Tool.Readonly, true),
    Context.add(Tool.Destructive, false)
  )
)

/**
 * The toolkit holding `AskUserQuestionTool`; merge it with the harness's
 * other tools with `Toolkit.merge`.
 *
 * @since 0.1.0
 */
export const AskUserQuestionToolkit = Toolkit.make(AskUserQuestionTool)

/**
 * Who asks, for tool calls made in the current fiber: set it around a model
 * turn (`Effect.provideService(AskingAgent, { id: sessionId })`) so providers
 * can show it and multi-session providers can route by it. The model cannot
 * set it.
 *
 * @since 0.1.0
 */
export const AskingAgent = Context.Reference<Agent | undefined>("effect-user-interaction/AskingAgent", {
  defaultValue: () => undefined
})

/**
 * What the model reads of a receipt: `"Ana Lima (terminal)"` when a person
 * known by account answered; nothing for a token holder, a protocol client,
 * a topic or a script, whose answers read as they always did.
 */
const answeredBy = ({ by, surface }: AskReceipt): string | undefined =>
  by === undefined || !isPersonAnswerer(by)
    ? undefined
    : surface === undefined
    ? answererTitle(by)
    : `${answererTitle(by)} (${surface})`

/**
 * Options of `askUserQuestionHandlers`: `answerableBy` is put on every ask
 * the tool makes (who may answer is the harness's choice; the model cannot
 * set it).
 *
 * @since 0.3.0
 */
export interface AskUserQuestionHandlersOptions {
  readonly answerableBy?: ReadonlyArray<string> | undefined
}

/**
 * The handler of `ask_user_question`, with options: asks through
 * `UserInteraction`. Interrupting the model turn interrupts the ask, so the
 * provider's prompt comes down. The result is the answer, with
 * `answeredBy` (`"Ana Lima (terminal)"`) when a person known by account
 * answered.
 *
 * @since 0.3.0
 */
export const askUserQuestionHandlers = (
  options: AskUserQuestionHandlersOptions = {}
): Layer.Layer<Tool.HandlersFor<typeof AskUserQuestionToolkit.tools>, never, UserInteraction> =>
  AskUserQuestionToolkit.toLayer(
    Effect.gen(function*() {
      const seam = yield* UserInteraction
      return AskUserQuestionToolkit.of({
        ask_user_question: (args) =>
          Effect.gen(function*() {
            const request = requestFromToolArgs(args, { agent: yield* AskingAgent, answerableBy: options.answerableBy })
            if (Result.isFailure(request)) return yield* request.failure
            const { answer, receipt } = yield* UserInteraction.askWithReceipt(request.success).pipe(
              Effect.provideService(UserInteraction, seam)
            )
            const by = answeredBy(receipt)
            return by === undefined ? answer : { ...answer, answeredBy: by }
          })
      })
    })
  )

/**
 * The handler of `ask_user_question` (`askUserQuestionHandlers()`: no
 * options).
 *
 * @since 0.1.0
 */
export const AskUserQuestionHandlers: Layer.Layer<Tool.HandlersFor<typeof AskUserQuestionToolkit.tools>, never, UserInteraction> =
  askUserQuestionHandlers()
