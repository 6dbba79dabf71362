/**
 * What `ask-user` prints on stdout once an ask is answered, in every mode
 * that asks (terminal, `--answers`, `--web`, `--durable`): the answer JSON on
 * one line, and with `--receipt` the answer's receipt beside its `answers`
 * (`{"answers":[…],"receipt":{"surface","by"?,"at","millis","defaulted"?}}`,
 * times in ISO 8601).
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { inertJson } from "../internal/sanitize.js"
import { callerJson } from "../internal/secrets.js"
import { UserInteraction } from "../UserInteraction.js"
import type { UserInteractionError } from "../UserInteractionError.js"
import { type CannotWrite, writeStdout } from "./stdout.js"

/**
 * Asks `request` and prints the answer JSON, with its receipt when `receipt`
 * (`--receipt`); returns the answer. A secret is printed here, as its text
 * (it is the caller's answer), and nowhere else.
 *
 * @since 0.3.0
 */
export const askAndPrintAnswer = (
  request: AskUserQuestionRequest,
  receipt: boolean
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError | CannotWrite, UserInteraction> =>
  receipt
    ? Effect.flatMap(UserInteraction.askWithReceipt(request), ({ answer, receipt }) =>
      // The receipt's Date becomes ISO 8601 through its toJSON.
      Effect.as(writeStdout("the answer", `${inertJson({ ...callerJson(answer), receipt })}\n`), answer))
    : Effect.tap(UserInteraction.ask(request), (answer) => writeStdout("the answer", `${inertJson(callerJson(answer))}\n`))
