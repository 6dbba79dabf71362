/**
 * Failure messages fit for a model or a client's chat: one line, at most 300
 * characters. A message may quote a client's error (a stack trace, a
 * validator's dump) or a model's own long label; what the reader needs is the
 * cause, not kilobytes of it (SPEC "Protocol eras").
 *
 * @internal
 */
import type { HarnessError } from "../UserInteractionError.js"

/** The longest failure message a model is shown. */
export const maxMessageLength = 300

/** A message fit for a model: `text` on one line, white space collapsed, cut to `max` characters. */
export const brief = (text: string, max: number = maxMessageLength): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`
}

/** `error` as the `{ name, code, message }` a protocol surface sends, its message brief. */
export const briefFailure = (error: HarnessError): ReturnType<HarnessError["toJSON"]> => ({
  ...error.toJSON(),
  message: brief(error.message)
})
