/**
 * One HTTP POST of a notice with Node's `fetch`: interrupting it (the
 * delivery's timeout) aborts the request; a refused connection or a status
 * outside 2xx is `NotifyFailed`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { NotifyFailed } from "./NotifyTarget.js"

/** POSTs `body` to `url` with `headers`; succeeds on a 2xx status. */
export const post = (url: string, headers: Record<string, string>, body: string): Effect.Effect<void, NotifyFailed> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, { method: "POST", headers, body, signal, redirect: "error" })
      // Read the body to the end, so the connection is free again.
      await response.arrayBuffer()
      return response.status
    },
    catch: (error) => {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
      return new NotifyFailed({ message: `${error instanceof Error ? error.message : String(error)}${cause}` })
    }
  }).pipe(
    Effect.flatMap((status) =>
      status >= 200 && status < 300 ? Effect.void : Effect.fail(new NotifyFailed({ message: `HTTP status ${status}` }))
    )
  )
