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

/** A pending request, as the stream and the list give it (`expiresAt` when it stops waiting at a known time). */
export interface PendingRequest {
  readonly id: string
  readonly request: { readonly questions: ReadonlyArray<PageQuestion>; readonly agent?: { readonly id: string; readonly name?: string } }
  readonly askedAt: string
  /** The ask's own id, when it has one (what `#ask=<id>` names). */
  readonly askId?: string
  readonly expiresAt?: string
}

/** The `resolved` event: `where`/`settled` when another surface of a fan-out settled it. */
export interface Resolved {
  readonly id: string
  readonly outcome: string
  readonly where?: string
  readonly settled?: string
}

/** The server's `closing` event: asks withdrawn unanswered, and asks a person cancelled or declined. */
export interface Closing {
  readonly unanswered: number
  readonly cancelled: number
}

/** One question's answer as the page posts it (a secret as its text: the server wraps it). */
export interface AnswerItem {
  readonly id: string
  readonly selected: ReadonlyArray<string>
  readonly custom?: string
  readonly secret?: string
}
