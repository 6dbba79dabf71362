/**
 * The secret page `ask-user mcp` and `ask-user acp` give their provider:
 * the web surface's `WebSecretPage` on loopback, for the lifetime of the
 * command. The web surface is loaded with the first secret question, not at
 * start-up, so a server that never meets one pays nothing for it (and its
 * server only starts then too).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { SecretPage } from "../SecretPage.js"

/** A `SecretPage` that loads and makes `WebSecretPage` (on 127.0.0.1, any free port) when first opened. */
export const loopbackSecretPage: Effect.Effect<SecretPage["Service"], never, Scope.Scope> = Effect.gen(function*() {
  const scope = yield* Effect.scope
  const page = yield* Effect.cached(
    Effect.promise(() => import("../web/WebSecretPage.js")).pipe(
      Effect.flatMap(({ WebSecretPage }) => WebSecretPage.make()),
      Scope.provide(scope)
    )
  )
  return SecretPage.of({ open: (question, request) => Effect.flatMap(page, (made) => made.open(question, request)) })
})
