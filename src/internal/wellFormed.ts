/**
 * Requests this package decoded itself and hands straight to the seam (a
 * model's tool arguments, an ACP prompt): the seam's own decode of such a
 * request would only repeat the work, once per ask. Only code that asks
 * with the decoded object at once marks it; a caller of the public decoders
 * could change what they return before asking, so those never mark.
 *
 * @internal
 */

const wellFormed = new WeakSet<object>()

/** Marks `request`, which has just passed the seam's request checks, and returns it. */
export const markWellFormed = <A extends object>(request: A): A => {
  wellFormed.add(request)
  return request
}

/** Whether `request` was marked by `markWellFormed`. */
export const isWellFormed = (request: unknown): boolean =>
  typeof request === "object" && request !== null && wellFormed.has(request)
