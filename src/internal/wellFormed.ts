/**
 * Requests and answers this package has just checked itself and hands
 * straight on: a request decoded from a model's tool arguments or an ACP
 * prompt, on its way into the seam; an answer read back from a protocol
 * form, on its way out of a provider. The seam's own check of such a value
 * would only repeat the work, once per ask. Only code that passes the value
 * on at once marks it; callers of the public decoders and checkers could
 * change what they get before passing it on, so those never mark.
 *
 * @internal
 */

const wellFormed = new WeakSet<object>()
const checkedAnswers = new WeakMap<object, object>()

/** Marks `request`, which has just passed the seam's request checks, and returns it. */
export const markWellFormed = <A extends object>(request: A): A => {
  wellFormed.add(request)
  return request
}

/** Whether `request` was marked by `markWellFormed`. */
export const isWellFormed = (request: unknown): boolean =>
  typeof request === "object" && request !== null && wellFormed.has(request)

/** Marks `answer`, which `checkAnswer` has just returned for `request`, and returns it. */
export const markChecked = <A extends object>(answer: A, request: object): A => {
  checkedAnswers.set(answer, request)
  return answer
}

/** Whether `answer` was marked by `markChecked` for this very `request` object. */
export const isCheckedFor = (answer: unknown, request: object): boolean =>
  typeof answer === "object" && answer !== null && checkedAnswers.get(answer) === request
