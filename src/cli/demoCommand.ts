/**
 * `ask-user demo`: the command line of the scripted demo agent (what
 * `npm start` runs). The demo itself is loaded only when it runs.
 *
 * @since 0.1.0
 */
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Options from "./options.js"

/**
 * The `demo` subcommand.
 *
 * @since 0.1.0
 */
export const demoCommand = Command.make("demo", {
  timeout: Options.timeout,
  answers: Options.answers,
  bell: Options.bell,
  notify: Options.notify
}, (config) => Effect.flatMap(Effect.promise(() => import("./demo.js")), (demo) => demo.run(config))).pipe(
  Command.withDescription(
    "A scripted agent asks one batch of three questions (single-select, multi-select, free text) on this terminal " +
      "and prints the answer JSON the model would receive."
  )
)
