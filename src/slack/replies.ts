/**
 * What comes back from Slack over Socket Mode, as answers: an `interactive`
 * envelope's payload (`block_actions` for a press, `view_submission` for a
 * modal) decoded with Schema into a press or a submission of one ask's
 * controls, and the answer a press or a submission gives. Only the fields
 * used are read; a payload that is neither, or names no control of this
 * surface, is nothing.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { Answerer } from "../Answerer.js"
import type { AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { choiceBlock, type Control, inputAction, otherBlock } from "./render.js"

const Selected = Schema.Struct({ value: Schema.String })

const User = Schema.Struct({
  id: Schema.String,
  username: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String)
})

/** One input's state, as `state.values[block][action]` carries it. */
const InputState = Schema.Struct({
  type: Schema.String,
  value: Schema.optionalKey(Schema.NullOr(Schema.String)),
  selected_option: Schema.optionalKey(Schema.NullOr(Selected)),
  selected_options: Schema.optionalKey(Schema.Array(Selected))
})
type InputState = typeof InputState.Type

const StateValues = Schema.Record(Schema.String, Schema.Record(Schema.String, InputState))
type StateValues = typeof StateValues.Type

const BlockActions = Schema.Struct({
  type: Schema.Literal("block_actions"),
  user: User,
  trigger_id: Schema.optionalKey(Schema.String),
  channel: Schema.optionalKey(Schema.Struct({ id: Schema.String })),
  state: Schema.optionalKey(Schema.Struct({ values: StateValues })),
  actions: Schema.Array(Schema.Struct({ action_id: Schema.String, value: Schema.optionalKey(Schema.String) }))
})

const ViewSubmission = Schema.Struct({
  type: Schema.Literal("view_submission"),
  user: User,
  view: Schema.Struct({
    callback_id: Schema.String,
    state: Schema.Struct({ values: StateValues })
  })
})

const Interactive = Schema.Union([BlockActions, ViewSubmission])
const decodeInteractive = Schema.decodeUnknownOption(Interactive)

/** Who pressed or submitted, as Slack's payload names them. */
export interface SlackUser {
  readonly id: string
  readonly name?: string | undefined
}

/** A press of one of an ask's controls in its message. */
export interface Press {
  readonly _tag: "Press"
  readonly ref: string
  readonly control: Control
  /** The option of a button. */
  readonly index?: number | undefined
  /** The options checked in the message when it was pressed (for Submit). */
  readonly checked: ReadonlyArray<number>
  readonly user: SlackUser
  readonly triggerId?: string | undefined
  readonly channel?: string | undefined
}

/** A submission of an ask's modal. */
export interface Submission {
  readonly _tag: "Submission"
  readonly ref: string
  readonly control: "modal" | "other"
  readonly values: StateValues
  readonly user: SlackUser
}

const actionPattern = /^eui:([0-9a-f]{32}):(option|other|checks|submit|answer|inbox|modal)(?::(\d{1,4}))?$/

const userOf = (user: typeof User.Type): SlackUser => {
  const name = user.username ?? user.name
  return name === undefined || name === "" ? { id: user.id } : { id: user.id, name }
}

/** The options chosen in one input's state, as indices. */
const chosen = (state: InputState | undefined): Array<number> => {
  if (state === undefined) return []
  const options = state.selected_options ?? (state.selected_option == null ? [] : [state.selected_option])
  return options.map((option) => Number(option.value)).filter(Number.isInteger)
}

/** The interaction an `interactive` envelope's payload is, when it is one of this surface's controls. */
export const interactionOf = (payload: unknown): Press | Submission | undefined => {
  const decoded = decodeInteractive(payload)
  if (Option.isNone(decoded)) return undefined
  const interactive = decoded.value
  if (interactive.type === "view_submission") {
    const match = actionPattern.exec(interactive.view.callback_id)
    if (match === null || (match[2] !== "modal" && match[2] !== "other")) return undefined
    return {
      _tag: "Submission",
      ref: match[1]!,
      control: match[2],
      values: interactive.view.state.values,
      user: userOf(interactive.user)
    }
  }
  const action = interactive.actions[0]
  const match = action === undefined ? null : actionPattern.exec(action.action_id)
  if (match === null) return undefined
  const ref = match[1]!
  const checks = interactive.state?.values[`eui:${ref}:checks`]?.[`eui:${ref}:checks`]
  return {
    _tag: "Press",
    ref,
    control: match[2] as Control,
    index: match[3] === undefined ? undefined : Number(match[3]),
    checked: chosen(checks),
    user: userOf(interactive.user),
    triggerId: interactive.trigger_id,
    channel: interactive.channel?.id
  }
}

/** The answerer a Slack user is: `slack:<user id>`, with the name people know them by when there is one. */
export const slackAnswerer = (user: SlackUser, name?: string): Answerer => {
  const known = name ?? user.name
  return known === undefined || known === "" ? { id: `slack:${user.id}` } : { id: `slack:${user.id}`, name: known }
}

/** The answer of a press on the only question's option `index`, or of Submit with `checked`; undefined when it names none. */
export const pressAnswer = (request: AskUserQuestionRequest, press: Press): AskUserQuestionAnswer | undefined => {
  const question = request.questions[0]
  const options = question?.options ?? []
  const indices = press.control === "option" ? (press.index === undefined ? [] : [press.index]) : press.checked
  if (question === undefined || indices.length === 0 || indices.some((index) => options[index] === undefined)) return undefined
  return { answers: [{ id: question.id, selected: Array.from(new Set(indices)).sort((a, b) => a - b).map((i) => options[i]!.label) }] }
}

/** Why a modal cannot be taken, by block id (Slack shows each under its field); undefined when it can. */
export type FieldErrors = Record<string, string>

const textOf = (values: StateValues, block: string): string | undefined => {
  const text = values[block]?.[inputAction]?.value
  return text == null || text.trim() === "" ? undefined : text
}

/**
 * The answer a submitted modal gives: per question, the options chosen or
 * the text written (not both), nothing being a skip; or the fields to fix.
 */
export const submissionAnswer = (
  request: AskUserQuestionRequest,
  submission: Submission
): Result.Result<AskUserQuestionAnswer, FieldErrors> => {
  const errors: FieldErrors = {}
  const answers = request.questions.map((question, index): AskUserQuestionAnswerItem => {
    const custom = textOf(submission.values, otherBlock(index))
    if (submission.control === "other") {
      if (index > 0) return { id: question.id, selected: [] }
      if (custom === undefined) errors[otherBlock(0)] = "Write your answer, or close this and choose an option."
      return custom === undefined ? { id: question.id, selected: [] } : { id: question.id, selected: [], custom }
    }
    const options = question.options ?? []
    const picked = chosen(submission.values[choiceBlock(index)]?.[inputAction]).filter((n) => options[n] !== undefined)
    if (picked.length > 0 && custom !== undefined) {
      errors[otherBlock(index)] = "Choose an option or write your own answer, not both."
    }
    if (question.multiSelect !== true && picked.length > 1) errors[choiceBlock(index)] = "Choose one option."
    if (custom !== undefined) return { id: question.id, selected: [], custom }
    return { id: question.id, selected: Array.from(new Set(picked)).sort((a, b) => a - b).map((n) => options[n]!.label) }
  })
  return Object.keys(errors).length > 0 ? Result.fail(errors) : Result.succeed({ answers })
}
