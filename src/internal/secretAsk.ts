/**
 * Asking a request that holds secret questions through a protocol client
 * (MCP, ACP): the questions that are not secret in one form, as always, then
 * each secret question on a secret page of its own, through a URL-mode
 * elicitation pointing at it. The client's reply to that elicitation only
 * says whether the human went to the page (accept) or refused (decline,
 * cancel); the value comes from the page alone, never from the client.
 *
 * What is protocol-specific (how a form or a URL elicitation goes on the
 * wire, how the client is told the page is done with) comes in as `steps`;
 * the order, the page's lifetime and the answer's shape are here, once.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import type { SecretPage } from "../SecretPage.js"
import type { ProviderClosed, ProviderFailed } from "../UserInteractionError.js"

/** A URL-mode elicitation as both protocols send it. */
export interface UrlElicitation {
  /** Unique per elicitation; the client treats it as opaque (MCP 2025-11-25, ACP). */
  readonly elicitationId: string
  /** The secret page's address. */
  readonly url: string
  /** What the client shows beside the link: who asks, and what. */
  readonly message: string
}

/** How one protocol puts the two kinds of elicitation on the wire. */
export interface SecretAskSteps<E> {
  /** Asks `request` (its questions that are not secret) through the protocol's form. */
  readonly form: (request: AskUserQuestionRequest) => Effect.Effect<AskUserQuestionAnswer, E>
  /**
   * Sends the URL-mode elicitation and succeeds when the client accepts it;
   * fails as a form would on decline, cancel or a broken connection.
   * Interrupted when the ask ends first (the page's value failing, say).
   */
  readonly url: (elicitation: UrlElicitation) => Effect.Effect<void, E>
  /** Tells the client the page has its answer (MCP `notifications/elicitation/complete`, ACP `elicitation/complete`). */
  readonly completed: (elicitation: UrlElicitation) => Effect.Effect<void>
  /**
   * How the wait for the page's value is held, when the protocol must see
   * it (ACP: as a pending entry of the session, which `session/cancel`
   * ends); as it is when absent.
   */
  readonly awaitValue?: (
    value: Effect.Effect<Redacted.Redacted<string>, ProviderClosed>
  ) => Effect.Effect<Redacted.Redacted<string>, E | ProviderClosed>
}

/** Whether a request holds a secret question. */
export const hasSecrets = (request: AskUserQuestionRequest): boolean => request.questions.some(isSecret)

const isSecret = (question: AskUserQuestionItem): boolean => question.secret === true

const nonBlank = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/**
 * What the client shows beside the link: who asks for which secret, and
 * that the answer goes on the page, not in the client.
 */
export const secretMessage = (question: AskUserQuestionItem, request: AskUserQuestionRequest): string => {
  const who = nonBlank(request.agent?.name) ? request.agent.name : "The agent"
  const header = nonBlank(question.header) ? `[${question.header}] ` : ""
  return `${who} asks for a secret: ${header}${question.question}\n` +
    "Type it on the one-time page at this link, not here: the model is only told that it was received."
}

/**
 * Asks `request` on `page` and through `steps`: the questions that are not
 * secret first, in one form (none when every question is secret), then the
 * secret questions one after another, each on its own page, open from just
 * before its elicitation until its value arrives or the ask ends. A decline
 * or cancel of any step ends the ask. The answer lists every question, a
 * secret's item holding the page's value; it is left for the seam to check.
 */
export const askWithSecretPages = <E>(
  request: AskUserQuestionRequest,
  page: SecretPage["Service"],
  steps: SecretAskSteps<E>
): Effect.Effect<AskUserQuestionAnswer, E | ProviderFailed | ProviderClosed> =>
  Effect.gen(function*() {
    const open = request.questions.filter((question) => !isSecret(question))
    const formAnswer = open.length === 0 ? undefined : yield* steps.form({ ...request, questions: open })
    const secrets = new Map<string, Redacted.Redacted<string>>()
    for (const question of request.questions) {
      if (isSecret(question)) secrets.set(question.id, yield* askSecret(request, question, page, steps))
    }
    const formItems = new Map(formAnswer?.answers.map((item) => [item.id, item]))
    return {
      answers: request.questions.map((question) => {
        const secret = secrets.get(question.id)
        return secret === undefined ? formItems.get(question.id) ?? { id: question.id, selected: [] } : { id: question.id, selected: [], secret }
      })
    }
  })

/**
 * One secret question: its page opened, the elicitation sent, and the value
 * taken once the client has accepted and the page was submitted, in either
 * order. The page is told done to the client as soon as it has the value.
 */
const askSecret = <E>(
  request: AskUserQuestionRequest,
  question: AskUserQuestionItem,
  page: SecretPage["Service"],
  steps: SecretAskSteps<E>
): Effect.Effect<Redacted.Redacted<string>, E | ProviderFailed | ProviderClosed> =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* page.open(question, request)
    const elicitation: UrlElicitation = {
      elicitationId: crypto.randomUUID(),
      url: opened.url,
      message: secretMessage(question, request)
    }
    const [, value] = yield* Effect.all([
      steps.url(elicitation),
      Effect.tap(steps.awaitValue?.(opened.value) ?? opened.value, () => steps.completed(elicitation))
    ], { concurrency: 2 })
    return value
  }))
