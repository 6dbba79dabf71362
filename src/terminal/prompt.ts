/**
 * The terminal question as an `effect/cli` prompt: each question is a
 * `Prompt.Custom` render loop over the `Terminal` service, and a request is
 * its questions chained with `Prompt.flatMap`, so one request holds one key
 * queue (keys typed early are kept) and one raw-mode session.
 *
 * The stock `Select`/`MultiSelect` could not be used: they end on the same
 * `QuitError` for Esc, Ctrl+C and Ctrl+D, and MultiSelect puts "Select All"
 * rows before the choices. Here the question itself sees those keys and ends
 * with a distinct outcome; `QuitError` is left to mean "input closed".
 *
 * With `review`, a request of two or more questions ends with the review
 * screen (`review.ts`): the questions leave no ✔ line while they are
 * answered, since an answer can still change; once the answers are sent,
 * every ✔ line is drawn at once.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Terminal from "effect/Terminal"
import { Prompt } from "effect/cli"
import type { AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { AskAborted, AskCancelled, ProviderClosed, type UserInteractionError } from "../UserInteractionError.js"
import {
  type CancelKey,
  initialState,
  type KeyPress,
  type QuestionContext,
  type QuestionOutcome,
  type QuestionState,
  type RequestEnd,
  step,
  type Step
} from "./question.js"
import {
  bell,
  doneFrame,
  eraseRows,
  hideCursor,
  notUsedFrame,
  questionFrame,
  rowCount,
  showCursor,
  type Size,
  type Style
} from "./render.js"
import {
  initialReview,
  reviewEndFrame,
  reviewFrame,
  type ReviewOutcome,
  type ReviewState,
  stepReview
} from "./review.js"

/** How the prompts look and sound, and whether a batch ends with a review. */
export interface PromptOptions extends Style {
  /** Ring the bell when a question appears (and on a refused key). */
  readonly bell: boolean
  /** End a request of two or more questions with the review screen. */
  readonly review?: boolean | undefined
}

/** What is on screen now, so an interrupted prompt can be taken down. */
interface Screen {
  rows: number
  /** Questions of this request answered on screen (their ✔ lines stay above the prompt). */
  answered: number
}

type RequestOutcome =
  | { readonly _tag: "Answered"; readonly answers: ReadonlyArray<AskUserQuestionAnswerItem> }
  | RequestEnd

// The prompt module does not export its action constructors; this builds the same tagged values.
const Action = Data.taggedEnum<Prompt.ActionDefinition>()

const terminalSize = Effect.flatMap(
  Terminal.Terminal,
  (terminal) => Effect.all({ columns: terminal.columns, rows: terminal.rows })
)

/**
 * An event each time the terminal is resized after this call (the size it has
 * now is the one the first frame is drawn for), until the scope closes: the
 * prompts redraw on it, so a frame is laid out for the new size at once, not
 * at the next key.
 */
const resizes = (terminal: Terminal.Terminal): Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const sizes = yield* terminal.size
    // The queue starts with the size at subscription: not a resize.
    yield* Queue.poll(sizes)
    const resized = yield* Queue.sliding<void>(1)
    yield* Queue.take(sizes).pipe(
      Effect.flatMap(() => Queue.offer(resized, undefined)),
      Effect.forever,
      Effect.ignore,
      Effect.forkScoped
    )
    return resized
  })

/** One screen of a request: how it opens, is drawn, takes keys, and what it leaves once done. */
interface View<State, Outcome> {
  readonly initial: State
  readonly frame: (state: State, size: Size) => string
  readonly step: (state: State, key: KeyPress) => Step<State, Outcome>
  /** The text left in its place when it ends (counting the ✔ lines it leaves in `screen`). */
  readonly done: (outcome: Outcome) => string
  /** Ring the bell when it opens (if the options ring at all). */
  readonly ring: boolean
}

/** A screen as a prompt: drawn again on each key and each resize, erased as counted when drawn. */
const viewPrompt = <State, Outcome>(
  view: View<State, Outcome>,
  options: PromptOptions,
  screen: Screen,
  resized: Queue.Dequeue<void>
): Prompt.Prompt<Outcome> =>
  Prompt.Custom<State, Outcome, void>(
    Effect.gen(function*() {
      if (options.bell && view.ring) yield* Effect.ignore((yield* Terminal.Terminal).display(bell))
      return view.initial
    }),
    resized,
    {
      render: (state, action) =>
        Effect.map(terminalSize, (size) => {
          switch (action._tag) {
            case "Beep":
              return options.bell ? bell : ""
            case "Submit":
              screen.rows = 0
              return view.done(action.value)
            case "NextFrame": {
              const frame = view.frame(state, size)
              screen.rows = rowCount(frame, size.columns)
              return hideCursor + frame
            }
          }
        }),
      process: (event, state) =>
        Effect.sync(() => {
          // Resized: the same state, drawn again for the new size.
          if (event._tag === "Event") return Action.NextFrame({ state })
          const input = event.input
          const outcome = view.step(state, {
            name: input.key.name,
            ctrl: input.key.ctrl,
            meta: input.key.meta,
            shift: input.key.shift,
            input: input.input._tag === "Some" ? input.input.value : undefined
          })
          switch (outcome._tag) {
            case "Beep":
              return Action.Beep()
            case "Next":
              return Action.NextFrame({ state: outcome.state })
            case "Done":
              return Action.Submit({ value: outcome.outcome })
          }
        }),
      // Erase what was drawn, as counted when it was drawn.
      clear: () => Effect.sync(() => eraseRows(screen.rows))
    }
  )

const requestPrompt = (
  request: AskUserQuestionRequest,
  options: PromptOptions,
  screen: Screen,
  resized: Queue.Dequeue<void>
): Prompt.Prompt<RequestOutcome> => {
  const total = request.questions.length
  // With a review to come an answer can still change: a question leaves no ✔ line until the end.
  const review = options.review === true && total > 1
  const contextOf = (index: number): QuestionContext => ({
    question: request.questions[index]!,
    index,
    total,
    agentName: request.agent?.name
  })
  const leave = (context: QuestionContext, outcome: QuestionOutcome) => {
    if (outcome._tag !== "Answered") return doneFrame(context, outcome, options)
    if (review) return ""
    screen.answered += 1
    return doneFrame(context, outcome, options)
  }
  /** Question `index`, opened on its `previous` answer when going back to it from the review. */
  const question = (index: number, previous?: AskUserQuestionAnswerItem) => {
    const context = contextOf(index)
    return viewPrompt<QuestionState, QuestionOutcome>({
      initial: initialState(context, previous),
      frame: (state, size) => questionFrame(context, state, options, size),
      step: (state, key) => step(context, state, key),
      done: (outcome) => leave(context, outcome),
      ring: previous === undefined
    }, options, screen, resized)
  }
  const reviewed = (answers: ReadonlyArray<AskUserQuestionAnswerItem>): Prompt.Prompt<RequestOutcome> => {
    const context = { request, answers }
    return Prompt.flatMap(
      viewPrompt<ReviewState, ReviewOutcome>({
        initial: initialReview,
        frame: (state, size) => reviewFrame(context, state, options, size),
        step: (state, key) => stepReview(context, state, key),
        // Sent: every answer's ✔ line, as a request without review leaves them.
        done: (outcome) => {
          if (outcome._tag === "Change") return ""
          if (outcome._tag !== "Submit") return reviewEndFrame(outcome, options)
          screen.answered = answers.length
          return answers.map((item, i) => doneFrame(contextOf(i), { _tag: "Answered", item }, options)).join("")
        },
        ring: false
      }, options, screen, resized),
      (outcome): Prompt.Prompt<RequestOutcome> => {
        switch (outcome._tag) {
          case "Submit":
            return Prompt.succeed({ _tag: "Answered", answers })
          case "Change":
            return Prompt.flatMap(question(outcome.index, answers[outcome.index]), (changed) =>
              changed._tag === "Answered"
                ? reviewed(answers.map((item, i) => i === outcome.index ? changed.item : item))
                : Prompt.succeed(changed))
          default:
            return Prompt.succeed(outcome)
        }
      }
    )
  }
  const from = (index: number, answers: ReadonlyArray<AskUserQuestionAnswerItem>): Prompt.Prompt<RequestOutcome> => {
    if (index === total) return review ? reviewed(answers) : Prompt.succeed({ _tag: "Answered", answers })
    return Prompt.flatMap(
      question(index),
      (outcome): Prompt.Prompt<RequestOutcome> =>
        outcome._tag === "Answered" ? from(index + 1, [...answers, outcome.item]) : Prompt.succeed(outcome)
    )
  }
  return from(0, [])
}

const cancelMessages: Record<CancelKey, string> = {
  "Esc": "The human pressed Esc and cancelled the request.",
  "Ctrl+D": "The human pressed Ctrl+D (end of input) and cancelled the request."
}

// Prompts need FileSystem and Path in their environment; questions touch neither.
const promptEnvironment = Layer.mergeAll(FileSystem.layerNoop({}), Path.layer)

/**
 * Asks a whole request on the `Terminal`: Esc or Ctrl+D fails `AskCancelled`, Ctrl+C
 * `AskAborted`, closed input `ProviderClosed`. When interrupted, the prompt
 * is erased and the cursor shown again.
 */
export const askOnTerminal = (
  request: AskUserQuestionRequest,
  options: PromptOptions
): Effect.Effect<AskUserQuestionAnswer, UserInteractionError, Terminal.Terminal> =>
  Effect.gen(function*() {
    const terminal = yield* Terminal.Terminal
    const screen: Screen = { rows: 0, answered: 0 }
    const resized = yield* resizes(terminal)
    const outcome = yield* Prompt.run(requestPrompt(request, options, screen, resized)).pipe(
      Effect.provide(promptEnvironment),
      // Ended without its answers (Esc, Ctrl+C, taken down because another surface answered or the
      // timeout passed, input closed): the prompt comes down, and the ✔ lines above must not read as
      // answers that were recorded.
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) && exit.value._tag === "Answered"
          ? Effect.void
          : Effect.ignore(terminal.display(eraseRows(screen.rows) + notUsedFrame(screen.answered, options) + showCursor))
      ),
      Effect.catchTag("QuitError", () =>
        Effect.fail(new ProviderClosed({ message: "The terminal's input closed before an answer." })))
    )
    switch (outcome._tag) {
      case "Answered":
        return { answers: outcome.answers }
      case "Cancelled":
        return yield* new AskCancelled({ message: cancelMessages[outcome.key] })
      case "Aborted":
        return yield* new AskAborted({ message: "The human pressed Ctrl+C." })
    }
  }).pipe(Effect.scoped)
