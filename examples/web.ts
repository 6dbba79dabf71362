/**
 * Ask in a browser: the web provider serves a page on loopback, prints its
 * address (token included) on stderr, and the answer arrives on stdout. Add
 * `FanoutProvider.layer(TerminalProvider.layer(), WebProvider.layer())` to
 * ask on the terminal and the page at once.
 *
 * Run: npm run build && node examples/web.ts   (then open the printed URL)
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { WebProvider } from "effect-user-interaction/web"

const program = Effect.gen(function*() {
  const web = yield* WebProvider
  yield* Console.error(`Answer at ${web.url}`)
  const answer = yield* UserInteraction.ask({
    agent: { id: "example", name: "Example agent" },
    questions: [
      {
        id: "db",
        header: "Storage",
        question: "Which database should the service use?",
        options: [
          { label: "Postgres (Recommended)", description: "Relational, runs everywhere" },
          { label: "SQLite", description: "One file, no server" }
        ]
      },
      { id: "name", question: "What should the project be called?" }
    ]
  })
  yield* Console.log(JSON.stringify(answer))
})

NodeRuntime.runMain(
  program.pipe(
    Effect.provide(UserInteraction.layerWith(WebProvider.layer({ port: 0 }))),
    // One line, as ask-user prints it (`example: ASK_CANCELLED: …`), instead of a stack trace; exit status 1.
    Effect.tapError((error) => Console.error(`example: ${"code" in error ? `${error.code}: ` : ""}${error.message}`))
  ),
  { disableErrorReporting: true }
)
