/**
 * The demo agent behind `ask-user demo` (and `npm start`): it needs three
 * decisions before it can continue, so its (scripted) model calls the tool
 * `ask_user_question` with one batch, and the demo prints the answer JSON the
 * model receives on stdout, then a one-line summary on stderr.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { askThroughModelTurn } from "./toolScriptedTurn.js"
import { UserInteraction } from "../UserInteraction.js"
import type { UserInteractionError } from "../UserInteractionError.js"
import { inertJson, sanitizeLine } from "../internal/sanitize.js"
import { providerFor, type ProviderFlags } from "./providerFor.js"
import { type CannotWrite, writeStdout } from "./stdout.js"

/**
 * The batch the demo agent asks.
 *
 * @since 0.1.0
 */
export const demoRequest: AskUserQuestionRequest = {
  agent: { id: "demo", name: "Demo agent" },
  questions: [
    {
      id: "database",
      header: "Database",
      question: "Which database should the new service use?",
      options: [
        { label: "PostgreSQL (Recommended)", description: "Relational, already run by the platform team." },
        { label: "SQLite", description: "A single file; fine for one instance." },
        { label: "DynamoDB", description: "Managed key-value store; no joins." }
      ]
    },
    {
      id: "features",
      header: "Features",
      question: "Which features should the first release include?",
      multiSelect: true,
      options: [
        { label: "Authentication", description: "Sign-in with the company SSO." },
        { label: "Audit log", description: "Who changed what, and when." },
        { label: "CSV export" }
      ]
    },
    {
      id: "name",
      header: "Name",
      question: "What should the service be called?"
    }
  ]
}

/**
 * One line that tells the human what the agent will do with the answer
 * (made inert: free text may come from an answers file).
 *
 * @since 0.1.0
 */
export const summarize = (answer: AskUserQuestionAnswer): string =>
  "demo agent: " + sanitizeLine(answer.answers.map((item) => {
    const value = item.custom !== undefined
      ? JSON.stringify(item.custom)
      : item.selected.length === 0
      ? "(skipped)"
      : item.selected.join(" + ")
    return `${item.id} = ${value}`
  }).join("; "))

/**
 * Runs the demo.
 *
 * @since 0.1.0
 */
export const run = (
  config: ProviderFlags & { readonly timeout: Option.Option<Duration.Duration> }
): Effect.Effect<void, UserInteractionError | CannotWrite> =>
  askThroughModelTurn(demoRequest).pipe(
    Effect.tap((answer) => writeStdout("the answer", `${inertJson(answer)}\n`)),
    Effect.provide(
      UserInteraction.layerWith(
        providerFor(config, { requestOnStdin: false }),
        Option.match(config.timeout, { onNone: () => ({}), onSome: (timeout) => ({ timeout }) })
      )
    ),
    Effect.tap((answer) => Effect.sync(() => process.stderr.write(`${summarize(answer)}\n`)))
  )
