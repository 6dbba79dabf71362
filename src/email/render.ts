/**
 * A request as a mail: the subject, a text part and an HTML part saying the
 * same thing (each question, its numbered options, how to reply, the link to
 * the inbox page when there is one), and the mails sent back about a reply.
 *
 * Every piece of model text is hostile: in the text part it is sanitised as
 * on the terminal (controls, BiDi overrides and invisible characters shown
 * as visible escapes), and in the HTML part it is that, escaped, so
 * `<script>`, `<a href>` or `<!channel>` read as the characters they are.
 *
 * @internal
 */
import type { AskUserQuestionItem, AskUserQuestionRequest } from "../AskUserQuestion.js"
import { sanitize, sanitizeLine } from "../internal/sanitize.js"

/** The parts of a mail. */
export interface MailParts {
  readonly subject: string
  readonly text: string
  readonly html: string
}

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** Text as HTML shows it: every character that could open markup escaped. */
const html = (text: string): string => text.replace(/[&<>"']/g, (char) => entities[char]!)

/** Model text as HTML shows it: sanitised, escaped, line breaks kept. */
const shown = (text: string): string => html(sanitize(text)).replace(/\r?\n/g, "<br>")

/** How long a subject's model text may be, in characters, before it is cut. */
const subjectText = 70

/** The tag in a subject that names the ask a reply belongs to. */
export const subjectTag = (token: string): string => `[ask ${token}]`

/** The subject of the mail asking `request`. */
export const askSubject = (request: AskUserQuestionRequest, token: string): string => {
  const first = request.questions[0]!
  const about = sanitizeLine(first.header ?? first.question).trim()
  const cut = [...about].length > subjectText ? `${[...about].slice(0, subjectText - 1).join("")}…` : about
  const more = request.questions.length > 1 ? ` (+${request.questions.length - 1} more)` : ""
  return `Question: ${cut}${more} ${subjectTag(token)}`
}

/** `subject` as a reply's: `Re: ` before it, once. */
export const reSubject = (subject: string): string => /^re:/i.test(subject.trim()) ? subject : `Re: ${subject}`

/** The ways to reply to `request`, one sentence each. */
const howToReply = (request: AskUserQuestionRequest): ReadonlyArray<string> => {
  const several = request.questions.length > 1
  const anyOptions = request.questions.some((q) => (q.options ?? []).length > 0)
  const anyMulti = request.questions.some((q) => q.multiSelect === true)
  return [
    several
      ? `Reply with one line for each question, in order (${request.questions.length} lines); only those lines are read.`
      : "Reply with one line; only the first line of your reply that is not quoted is read.",
    ...(anyOptions ? [`An option's number (2)${anyMulti ? ", several numbers where several may be chosen (1,3)" : ""}, or its label.`] : []),
    "Any other text is your own answer.",
    ...(several ? ["\"skip\" leaves a question unanswered."] : ["\"skip\" answers nothing."]),
    "\"cancel\" (as the first line) cancels the request; \"decline\" declines it."
  ]
}

/** A question's lines in the text part. */
const questionText = (question: AskUserQuestionItem, number: number | undefined): ReadonlyArray<string> => {
  const head = question.header === undefined ? "" : `[${sanitizeLine(question.header)}] `
  const lines = [`${number === undefined ? "" : `${number}. `}${head}${sanitize(question.question)}`]
  const options = question.options ?? []
  options.forEach((option, i) => {
    const description = option.description === undefined ? "" : ` - ${sanitizeLine(option.description)}`
    lines.push(`   ${i + 1}) ${sanitizeLine(option.label)}${option.recommended === true ? " (recommended)" : ""}${description}`)
  })
  if (question.multiSelect === true) lines.push("   (several may be chosen)")
  return lines
}

/** A question in the HTML part. */
const questionHtml = (question: AskUserQuestionItem): string => {
  const head = question.header === undefined ? "" : `<strong>${shown(question.header)}</strong><br>`
  const options = question.options ?? []
  const items = options.map((option) =>
    `<li>${shown(option.label)}${option.recommended === true ? " <em>(recommended)</em>" : ""}` +
    `${option.description === undefined ? "" : ` - ${shown(option.description)}`}</li>`
  ).join("")
  return `<p>${head}${shown(question.question)}</p>` +
    (options.length > 0 ? `<ol>${items}</ol>` : "") +
    (question.multiSelect === true ? "<p><em>(several may be chosen)</em></p>" : "")
}

/** Who asks, when the request names its agent. */
const asker = (request: AskUserQuestionRequest): string | undefined =>
  request.agent === undefined ? undefined : request.agent.name ?? request.agent.id

/**
 * The mail asking `request`, with a link to `link` (the inbox page) when
 * there is one. A request with a secret question is only the link: a secret
 * never travels by mail.
 */
export const askMail = (request: AskUserQuestionRequest, token: string, link: string | undefined): MailParts => {
  const who = asker(request)
  const intro = who === undefined ? "A question is waiting for you." : `${sanitizeLine(who)} asks:`
  const introHtml = who === undefined ? "A question is waiting for you." : `${shown(who)} asks:`
  const secret = request.questions.some((q) => q.secret === true)
  const several = request.questions.length > 1
  const text: Array<string> = [intro, ""]
  const htmlParts: Array<string> = [`<p>${introHtml}</p>`]
  if (secret) {
    text.push("This request holds a secret, which is never sent by mail: answer it in the inbox.", "", link ?? "")
    htmlParts.push(`<p>This request holds a secret, which is never sent by mail: answer it in the inbox.</p>`)
    htmlParts.push(`<p><a href="${html(link ?? "")}">Open the inbox</a></p>`)
  } else {
    request.questions.forEach((question, i) => text.push(...questionText(question, several ? i + 1 : undefined), ""))
    text.push("How to reply:", ...howToReply(request).map((line) => `- ${line}`))
    htmlParts.push(several ? `<ol>${request.questions.map((q) => `<li>${questionHtml(q)}</li>`).join("")}</ol>` : questionHtml(request.questions[0]!))
    htmlParts.push(`<p>How to reply:</p><ul>${howToReply(request).map((line) => `<li>${html(line)}</li>`).join("")}</ul>`)
    if (link !== undefined) {
      text.push("", `Or answer in the inbox: ${link}`)
      htmlParts.push(`<p>Or answer in the <a href="${html(link)}">inbox</a>.</p>`)
    }
  }
  return {
    subject: askSubject(request, token),
    text: `${text.join("\n")}\n`,
    html: `<!doctype html><html><body>${htmlParts.join("\n")}</body></html>\n`
  }
}

/** The mail back about a reply that could not be used: why, and how to reply. */
export const unusableMail = (request: AskUserQuestionRequest, token: string, reason: string): MailParts => {
  const why = `Your reply was not used: ${sanitize(reason)}`
  const lines = [why, "", "The question is still waiting. How to reply:", ...howToReply(request).map((line) => `- ${line}`)]
  return {
    subject: reSubject(askSubject(request, token)),
    text: `${lines.join("\n")}\n`,
    html: `<!doctype html><html><body><p>${shown(why)}</p><p>The question is still waiting. How to reply:</p><ul>${
      howToReply(request).map((line) => `<li>${html(line)}</li>`).join("")
    }</ul></body></html>\n`
  }
}

/** A mail saying `text` alone (a reply that names no waiting question, an ask settled elsewhere). */
export const noticeMail = (subject: string, text: string): MailParts => ({
  subject,
  text: `${sanitize(text)}\n`,
  html: `<!doctype html><html><body><p>${shown(text)}</p></body></html>\n`
})
