/**
 * JSON text as `ask-user` reads it from a request or answers file: a UTF-8
 * byte-order mark at the start (which some Windows editors write) is not
 * part of the JSON, and text that is not JSON is a bad request (exit 2).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { InvalidRequest } from "../UserInteractionError.js"

/**
 * Parses JSON text, ignoring a leading byte-order mark; `InvalidRequest`
 * starting with `what` when it is not JSON. The parser's message may echo
 * input bytes: it is made inert where it is printed (`describeFailure`).
 *
 * @since 0.2.0
 */
export const parseJsonText = (text: string, what: string): Effect.Effect<unknown, InvalidRequest> =>
  Effect.try({
    try: () => JSON.parse(text.startsWith("\ufeff") ? text.slice(1) : text) as unknown,
    catch: (cause) => new InvalidRequest({ message: `${what}: not JSON (${(cause as Error).message})`, cause })
  })
