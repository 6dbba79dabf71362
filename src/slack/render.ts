/**
 * A request as Slack Block Kit: the one message an ask is posted as (buttons
 * for a single single-select question, checkboxes and Submit for a single
 * multi-select, one "Answer" button for anything else), the modals its
 * "Other…" and "Answer" buttons open, and the message it becomes once
 * settled. Every control names its ask by a random reference, never by
 * anything the model wrote.
 *
 * Model text is hostile (SPEC, "Chat and mail as answer surfaces"): it goes
 * in `plain_text` objects, where Slack applies no formatting, with `&`, `<`
 * and `>` escaped as Slack asks of all text, so no mention, link or
 * `<!channel>` can be forged. The one `mrkdwn` field, a preview, is a code
 * block whose backticks are replaced, so it cannot be closed early.
 *
 * @internal
 */
import { answererTitle, type Answerer } from "../Answerer.js"
import {
  type AskUserQuestionAnswer,
  type AskUserQuestionItem,
  type AskUserQuestionRequest,
  isRecommended
} from "../AskUserQuestion.js"

/** One Block Kit object, as sent to the Web API (`blocks`, `view`). */
export type Block = Readonly<Record<string, unknown>>

/** Slack's own escaping for its three control characters, the one it decodes in every text object. */
export const escapeText = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/**
 * Text for a `mrkdwn` field, or a message's fallback `text` (which Slack
 * reads as markup): escaped, and `*`, `_`, `~` and backticks replaced by
 * their full-width forms, which Slack does not read as formatting.
 */
export const inertMrkdwn = (text: string): string =>
  escapeText(text).replace(/[*_~`]/g, (mark) => String.fromCharCode(mark.charCodeAt(0) + 0xfee0))

/**
 * `text` escaped and cut to `max` characters (Slack refuses longer fields),
 * ending "…" when cut and never inside an entity.
 */
const fit = (text: string, max: number): string => {
  const escaped = escapeText(text)
  if (escaped.length <= max) return escaped
  return escaped.slice(0, max - 1).replace(/&[a-z]{0,3}$/, "") + "…"
}

/** A `plain_text` object holding model text. */
const plain = (text: string, max: number): Block => ({ type: "plain_text", text: fit(text, max), emoji: false })

/** Block Kit's limits on the fields used here. */
const limits = {
  section: 3000,
  context: 3000,
  button: 75,
  option: 75,
  description: 75,
  label: 2000,
  buttons: 25
} as const

/** How many options a single question may have to be shown as buttons or checkboxes in the message itself. */
const maxInline = 10

/** The `action_id` of a control of the ask `ref`: `eui:<ref>:<control>[:<n>]`. */
export const actionId = (ref: string, control: Control, index?: number): string =>
  index === undefined ? `eui:${ref}:${control}` : `eui:${ref}:${control}:${index}`

/** The controls a message or modal carries. */
export type Control = "option" | "other" | "checks" | "submit" | "answer" | "inbox" | "modal"

/** How the ask's message takes its answer. */
export type Shape = "buttons" | "checks" | "modal" | "inbox"

/** Whether a question is asked with options (else it is answered with text). */
const hasOptions = (question: AskUserQuestionItem): question is AskUserQuestionItem & {
  readonly options: NonNullable<AskUserQuestionItem["options"]>
} => question.options !== undefined && question.options.length > 0

/** The shape of the message for `request`: secrets go to the web inbox, one small question inline, the rest in a modal. */
export const shapeOf = (request: AskUserQuestionRequest): Shape => {
  if (request.questions.some((question) => question.secret === true)) return "inbox"
  const [only, ...rest] = request.questions
  if (only === undefined || rest.length > 0 || !hasOptions(only) || only.options.length > maxInline) return "modal"
  return only.multiSelect === true ? "checks" : "buttons"
}

const questionTitle = (question: AskUserQuestionItem): string =>
  question.header !== undefined && question.header.trim() !== "" ? `[${question.header}] ${question.question}` : question.question

/** The blocks that show the request: who asks, each question, its options' descriptions and previews. */
const requestBlocks = (request: AskUserQuestionRequest): Array<Block> => {
  const blocks: Array<Block> = []
  const who = request.agent?.name !== undefined && request.agent.name.trim() !== "" ? request.agent.name : "The agent"
  blocks.push({ type: "context", elements: [plain(`${who} asks:`, limits.context)] })
  const numbered = request.questions.length > 1
  request.questions.forEach((question, index) => {
    blocks.push({ type: "section", text: plain(`${numbered ? `${index + 1}. ` : ""}${questionTitle(question)}`, limits.section) })
    if (!hasOptions(question)) return
    const lines = question.options.map((option) =>
      `• ${option.label}${isRecommended(option) ? " (recommended)" : ""}${
        option.description !== undefined && option.description !== "" ? ` — ${option.description}` : ""
      }`
    )
    blocks.push({ type: "context", elements: [plain(lines.join("\n"), limits.context)] })
    for (const option of question.options) {
      if (option.preview === undefined || option.preview === "") continue
      blocks.push({ type: "context", elements: [plain(`Preview of ${option.label}:`, limits.context)] })
      blocks.push({ type: "section", text: { type: "mrkdwn", text: codeBlock(option.preview), verbatim: true } })
    }
  })
  return blocks
}

/**
 * A preview as a code block: escaped, each backtick replaced by the
 * full-width one (no fence can close early), cut to fit the section.
 */
export const codeBlock = (text: string): string => {
  const inner = escapeText(text).replace(/`/g, "\uff40")
  const room = limits.section - 8
  return "```" + (inner.length <= room ? inner : inner.slice(0, room - 1).replace(/&[a-z]{0,3}$/, "") + "…") + "```"
}

const button = (text: string, id: string, extra: Record<string, unknown> = {}): Block => ({
  type: "button",
  text: plain(text, limits.button),
  action_id: id,
  ...extra
})

/** The controls of the message: buttons, checkboxes and Submit, one "Answer" button, or a link to the web inbox. */
const controlBlocks = (request: AskUserQuestionRequest, ref: string, shape: Shape, inboxUrl: string | undefined): Array<Block> => {
  const question = request.questions[0]!
  switch (shape) {
    case "buttons": {
      const buttons = (question.options ?? []).map((option, index) =>
        button(option.label, actionId(ref, "option", index), {
          value: String(index),
          ...(isRecommended(option) ? { style: "primary" } : {})
        })
      )
      buttons.push(button("Other…", actionId(ref, "other")))
      return [{ type: "actions", block_id: `eui:${ref}:controls`, elements: buttons }]
    }
    case "checks": {
      const options = (question.options ?? []).map((option, index) => checkOption(option.label, option.description, index))
      const initial = (question.options ?? []).flatMap((option, index) =>
        isRecommended(option) ? [checkOption(option.label, option.description, index)] : []
      )
      return [
        {
          type: "actions",
          block_id: `eui:${ref}:checks`,
          elements: [{
            type: "checkboxes",
            action_id: actionId(ref, "checks"),
            options,
            ...(initial.length > 0 ? { initial_options: initial } : {})
          }]
        },
        {
          type: "actions",
          block_id: `eui:${ref}:controls`,
          elements: [button("Submit", actionId(ref, "submit"), { style: "primary" }), button("Other…", actionId(ref, "other"))]
        }
      ]
    }
    case "modal":
      return [{
        type: "actions",
        block_id: `eui:${ref}:controls`,
        elements: [button("Answer", actionId(ref, "answer"), { style: "primary" })]
      }]
    case "inbox":
      return [
        {
          type: "context",
          elements: [plain("A secret is asked: answer it in the web inbox, never in Slack.", limits.context)]
        },
        {
          type: "actions",
          block_id: `eui:${ref}:controls`,
          elements: [button("Answer in the web inbox", actionId(ref, "inbox"), { url: inboxUrl })]
        }
      ]
  }
}

const checkOption = (label: string, description: string | undefined, index: number): Block => ({
  text: plain(label, limits.option),
  value: String(index),
  ...(description !== undefined && description !== "" ? { description: plain(description, limits.description) } : {})
})

const withoutDescription = ({ description: _, ...option }: Block): Block => option

/** The fallback `text` of every message of an ask (notifications show it): fixed, so nothing of the model's is read as markup there. */
export const fallbackText = "A question waits for an answer."

/** The message an ask is posted as: the request, then its controls. */
export const askMessage = (
  request: AskUserQuestionRequest,
  ref: string,
  inboxUrl: string | undefined
): { readonly text: string; readonly blocks: ReadonlyArray<Block> } => ({
  text: fallbackText,
  blocks: [...requestBlocks(request), ...controlBlocks(request, ref, shapeOf(request), inboxUrl)]
})

/** The message once settled: the request without its controls, and how it ended. */
export const settledMessage = (
  request: AskUserQuestionRequest,
  outcome: string,
  answer?: AskUserQuestionAnswer
): { readonly text: string; readonly blocks: ReadonlyArray<Block> } => ({
  text: inertMrkdwn(outcome),
  blocks: [
    ...requestBlocks(request),
    { type: "divider" },
    { type: "section", text: plain(outcome, limits.section) },
    ...(answer === undefined ? [] : [{ type: "context", elements: [plain(answerSummary(request, answer), limits.context)] }])
  ]
})

/** What was answered, one line a question. */
const answerSummary = (request: AskUserQuestionRequest, answer: AskUserQuestionAnswer): string =>
  request.questions.map((question, index) => {
    const item = answer.answers.find((candidate) => candidate.id === question.id)
    const value = item === undefined
      ? "skipped"
      : item.custom !== undefined
      ? `"${item.custom}"`
      : item.selected.length > 0
      ? item.selected.join(", ")
      : "skipped"
    return `${request.questions.length > 1 ? `${index + 1}. ` : ""}${value}`
  }).join("\n")

/** "Answered by Ana in Slack." and the like: how an ask ended, as the message and late presses say it. */
export const outcomeLine = (verb: "Answered" | "Cancelled" | "Declined", where: string, by?: Answerer): string =>
  `${verb}${by === undefined ? "" : ` by ${answererTitle(by)}`} in ${where}.`

/** The block id of a question's choice in the modal, and of its own-answer field. */
export const choiceBlock = (index: number): string => `q${index}`
export const otherBlock = (index: number): string => `q${index}-other`

/** The one `action_id` of every input in a modal. */
export const inputAction = "v"

const modalBase = (ref: string, control: "modal" | "other", blocks: ReadonlyArray<Block>): Block => ({
  type: "modal",
  callback_id: actionId(ref, control),
  title: { type: "plain_text", text: "Answer" },
  submit: { type: "plain_text", text: "Submit" },
  close: { type: "plain_text", text: "Close" },
  blocks
})

/** The modal of "Other…": one text field for the only question. */
export const otherModal = (request: AskUserQuestionRequest, ref: string): Block => {
  const question = request.questions[0]!
  return modalBase(ref, "other", [
    {
      type: "input",
      block_id: otherBlock(0),
      label: plain(questionTitle(question), limits.label),
      element: { type: "plain_text_input", action_id: inputAction, multiline: true }
    }
  ])
}

/**
 * The modal of "Answer": every question, each optional (left empty, it is
 * skipped): options as radio buttons or checkboxes (a menu beyond ten), with
 * a field for an answer of one's own; a question without options as a
 * text field. Recommended options come chosen.
 */
export const answerModal = (request: AskUserQuestionRequest, ref: string): Block => {
  const blocks: Array<Block> = []
  request.questions.forEach((question, index) => {
    const label = plain(questionTitle(question), limits.label)
    if (!hasOptions(question)) {
      blocks.push({
        type: "input",
        block_id: otherBlock(index),
        optional: true,
        label,
        element: { type: "plain_text_input", action_id: inputAction, multiline: true }
      })
      return
    }
    const multi = question.multiSelect === true
    const options = question.options.map((option, n) => checkOption(option.label, option.description, n))
    const recommended = question.options.flatMap((option, n) => isRecommended(option) ? [options[n]!] : [])
    const many = question.options.length > maxInline
    // Menus take no descriptions.
    const shown = (option: Block): Block => many ? withoutDescription(option) : option
    const element = multi
      ? {
        type: many ? "multi_static_select" : "checkboxes",
        options: options.map(shown),
        ...(recommended.length > 0 ? { initial_options: recommended.map(shown) } : {})
      }
      : {
        type: many ? "static_select" : "radio_buttons",
        options: options.map(shown),
        ...(recommended[0] !== undefined ? { initial_option: shown(recommended[0]) } : {})
      }
    blocks.push({ type: "input", block_id: choiceBlock(index), optional: true, label, element: { ...element, action_id: inputAction } })
    blocks.push({
      type: "input",
      block_id: otherBlock(index),
      optional: true,
      label: { type: "plain_text", text: "Or your own answer" },
      element: { type: "plain_text_input", action_id: inputAction }
    })
  })
  return modalBase(ref, "modal", blocks)
}
