/**
 * A page that takes the answer to one secret question, outside the protocol
 * that asked it. A form field in an MCP or ACP client is no place for a
 * secret: the client shows, keeps and may log what is typed there. So for a
 * secret question `McpProvider` and `AcpProvider` open a secret page and send
 * the client a URL-mode elicitation pointing at it; the human types the
 * secret into the page, and the value goes from the page to the asker
 * without passing through the client or the model.
 *
 * `SecretPage` is the seam between those providers and whatever serves the
 * page: the web surface's `WebSecretPage` (a one-time page on loopback or
 * over TLS), or a test double. A provider is given one as its `secretPage`
 * option; without one, a request with a secret question fails
 * `PROVIDER_FAILED` before anything is sent.
 *
 * ```ts
 * const secretPage = yield* WebSecretPage.make()
 * const layer = UserInteraction.layerWith(McpProvider.layer(server, { secretPage }))
 * ```
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { AskUserQuestionItem, AskUserQuestionRequest } from "./AskUserQuestion.js"
import type { ProviderClosed, ProviderFailed } from "./UserInteractionError.js"

/**
 * One open secret page: where it is, and the secret once the human has given
 * it there.
 *
 * @since 0.3.0
 */
export interface OpenSecretPage {
  /**
   * The page's address: usable once, unguessable. It goes to the human's
   * client (a URL-mode elicitation), never to the model.
   */
  readonly url: string
  /**
   * Waits for the human to submit the page, which is dead from then on: the
   * secret as a `Redacted` (empty when the human skipped the question).
   * Fails `ProviderClosed` when whatever serves the page shuts down first.
   */
  readonly value: Effect.Effect<Redacted.Redacted<string>, ProviderClosed>
}

/**
 * Opens secret pages: `open(question, request)` opens a page for the
 * request's secret `question` that lives until the scope closes (the ask
 * ended, or was interrupted), after which its URL is dead. Fails
 * `ProviderFailed` when no page can be served (the server would not start).
 *
 * @since 0.3.0
 */
export class SecretPage extends Context.Service<SecretPage, {
  readonly open: (
    question: AskUserQuestionItem,
    request: AskUserQuestionRequest
  ) => Effect.Effect<OpenSecretPage, ProviderFailed, Scope.Scope>
}>()("effect-user-interaction/SecretPage") {}
