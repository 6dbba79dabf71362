/**
 * The largest answer a durable store records: 64 KiB of JSON. A human's
 * answer is a few labels and some text; a 50 MB one was accepted before
 * and grew the store by 262 MB. Every way an answer reaches the store
 * (`DurableInbox.answer`, `ask-user answer`, an inbox's surface) is held to
 * it, and the store itself checks it last (decision 087).
 *
 * @since 0.3.0
 */
import { InvalidAnswer } from "../UserInteractionError.js"

/**
 * The largest answer a durable ask takes, in bytes of its JSON (UTF-8):
 * 64 KiB, the web page's body limit too.
 *
 * @since 0.3.0
 */
export const maxAnswerBytes = 64 * 1024

/** The size of `answer` as JSON in UTF-8, or undefined when it is not JSON (the answer rules refuse it). */
const jsonBytes = (answer: unknown): number | undefined => {
  try {
    const json = JSON.stringify(answer)
    return json === undefined ? undefined : Buffer.byteLength(json, "utf8")
  } catch {
    return undefined
  }
}

/**
 * `InvalidAnswer` naming the limit when `answer`'s JSON is over 64 KiB;
 * undefined otherwise.
 *
 * @since 0.3.0
 */
export const answerTooLarge = (answer: unknown): InvalidAnswer | undefined => {
  const bytes = jsonBytes(answer)
  return bytes === undefined || bytes <= maxAnswerBytes ? undefined : new InvalidAnswer({
    message: `The answer breaks the answer rules: it is ${bytes} bytes of JSON, over the limit of 64 KiB ` +
      `(${maxAnswerBytes} bytes) a durable ask takes.`
  })
}
