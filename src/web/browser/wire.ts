/**
 * The shapes the answer page reads from the server's JSON (`asked` events,
 * `GET /api/questions`) and posts back as an answer: the page's own view of
 * the vocabulary, as plain types (the page loads no schema). Types only:
 * nothing of this module runs.
 */

/** An option as the page shows it. */
export interface PageOption {
  readonly label: string
  readonly description?: string
  readonly recommended?: boolean
  readonly preview?: string
}

/** A question as the page shows it. */
export interface PageQuestion {
  readonly id: string
  readonly question: string
  readonly header?: string
  readonly options?: ReadonlyArray<PageOption>
  readonly multiSelect?: boolean
  readonly secret?: boolean
}

/** A pending request, as the stream and the list give it. */
export interface PendingRequest {
  readonly id: string
  readonly request: { readonly questions: ReadonlyArray<PageQuestion>; readonly agent?: { readonly id: string; readonly name?: string } }
  readonly askedAt: string
}

/** One question's answer as the page posts it (a secret as its text: the server wraps it). */
export interface AnswerItem {
  readonly id: string
  readonly selected: ReadonlyArray<string>
  readonly custom?: string
  readonly secret?: string
}
