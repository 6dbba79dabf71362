/**
 * The review before submit (opt-in, decision 118): once every question of a
 * request of two or more has an answer, the page lists them all before
 * anything is sent. Each row is a button named by its question, its answer
 * as its description ("Skipped", "Other: …", a secret only as "(secret
 * received)"); choosing one goes back to that question. "Submit" sends,
 * "Cancel" cancels. Browser code: see `page.ts`.
 */
import { type Child, h, model, modelIn, shown } from "./dom.js"
import type { AnswerItem, PageQuestion } from "./wire.js"

/** What the review's controls do. */
export interface ReviewActions {
  /** Goes back to question `index`. */
  readonly edit: (index: number) => void
  readonly submit: () => void
  readonly cancel: () => void
}

/** The review's parts, for the page to place, and its "Submit" button (where the focus goes). */
export interface Review {
  readonly parts: ReadonlyArray<Node>
  readonly submit: HTMLButtonElement
}

/**
 * How an answer reads in the review: the labels chosen, the text written
 * ("Other: …" where there were options to choose from), "Skipped"; a secret
 * is never shown, only that one came.
 */
const answerSummary = (question: PageQuestion, item: AnswerItem | undefined): Array<Child> => {
  if (item?.secret !== undefined && item.secret.trim() !== "") return ["(secret received)"]
  if (item?.custom !== undefined && item.custom.trim() !== "") {
    return (question.options ?? []).length === 0 ? [model(item.custom)] : ["Other: ", model(item.custom)]
  }
  if (item === undefined || item.selected.length === 0) return ["Skipped"]
  return item.selected.flatMap((label, i) => i === 0 ? [model(label)] : [", ", model(label)])
}

/** The review of `questions` answered with `answers` (by question id). */
export const review = (
  questions: ReadonlyArray<PageQuestion>,
  answers: ReadonlyMap<string, AnswerItem>,
  actions: ReviewActions
): Review => {
  const rows = questions.map((question, i) => {
    const answerId = `review-${i}-answer`
    const row = h(
      "button",
      { type: "button", class: "review-row", "aria-label": shown(question.question), "aria-describedby": answerId },
      modelIn("span", { class: "review-question" }, question.question),
      h("span", { class: "review-answer", id: answerId }, ...answerSummary(question, answers.get(question.id)))
    )
    row.addEventListener("click", () => actions.edit(i))
    return h("li", {}, row)
  })
  const submit = h("button", { type: "button", class: "primary" }, "Submit")
  // Enter held down on the last question would repeat into this button: only a fresh press sends.
  submit.addEventListener("keydown", (event) => {
    if (event.repeat && (event.key === "Enter" || event.key === " ")) event.preventDefault()
  })
  submit.addEventListener("click", actions.submit)
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel")
  cancel.addEventListener("click", actions.cancel)
  const parts = [
    h("h2", { id: "question-text", tabindex: "-1" }, "Review your answers"),
    h("p", { class: "note review-note" }, "Nothing is sent until you submit. Choose an answer to change it."),
    h("ul", { class: "review", "aria-labelledby": "question-text" }, ...rows),
    h("div", { class: "row actions" }, submit, cancel)
  ]
  return { parts, submit }
}
