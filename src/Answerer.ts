/**
 * Who answered an ask, and who may: the `Answerer` every surface names
 * (`os:ana@build-01`, `device:3f2a…`, `slack:U024BE7LH`, …), the `AskReceipt`
 * kept for every settled ask, and the `answerableBy` patterns a request uses
 * to say who may settle it.
 *
 * One matcher serves every surface and the durable store, so a refused
 * answer is refused everywhere by the same rule.
 *
 * ```ts
 * isAnswerableBy(["os:ana@*", "slack:U024BE7LH"], { id: "os:ana@build-01" }) // true
 * isAnswerableBy(["os:ana@*"], undefined) // false: an unknown answerer matches no pattern
 * ```
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/**
 * Whoever settled an ask, as `kind:value` (`os:<user>@<host>`,
 * `device:<id>`, `web:token`, `slack:<user id>`, `email:<address>`,
 * `ntfy:<topic>`, `mcp:<client name>`, `acp:<client name>`,
 * `scripted:test`), with the name people know them by when the surface
 * has one.
 *
 * @since 0.3.0
 */
export const Answerer = Schema.Struct({
  id: Schema.String.check(
    Schema.isPattern(/^[^:*\s]+:./s, { message: "is not an answerer id of the form kind:value" })
  ),
  name: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Answerer" })

/** @since 0.3.0 */
export type Answerer = typeof Answerer.Type

/**
 * The record of how an ask was settled: on which surface (a provider's
 * `name`; a fan-out's member), by whom when the surface knows, when, after
 * how many milliseconds at a provider, and `defaulted` when nobody answered
 * and the recommended options were taken.
 *
 * @since 0.3.0
 */
export const AskReceipt = Schema.Struct({
  surface: Schema.optionalKey(Schema.String),
  by: Schema.optionalKey(Answerer),
  at: Schema.Date,
  millis: Schema.Number,
  defaulted: Schema.optionalKey(Schema.Literal(true))
}).annotate({ identifier: "AskReceipt" })

/** @since 0.3.0 */
export type AskReceipt = typeof AskReceipt.Type

/**
 * Why `pattern` is no `answerableBy` entry, as a phrase; undefined when it
 * is one. An entry is `kind:value`, exact or with one `*` standing for any
 * run of characters (`device:*`, `os:ana@*`, `email:*@example.com`); `*`
 * alone stands for anyone a surface can name.
 *
 * @since 0.3.0
 */
export const answerablePatternProblem = (pattern: string): string | undefined => {
  if (pattern.trim() === "") return "is empty"
  const stars = pattern.split("*").length - 1
  if (stars > 1) return "has more than one *"
  if (pattern === "*") return undefined
  const colon = pattern.indexOf(":")
  if (colon <= 0 || pattern.slice(0, colon).includes("*")) return "is not of the form kind:value"
  if (colon === pattern.length - 1) return "has no value after kind:"
  return undefined
}

/**
 * An `answerableBy` entry, checked: `INVALID_REQUEST` names its path when it
 * is empty, has a second `*` or no `kind:`.
 *
 * @since 0.3.0
 */
export const AnswerablePattern = Schema.String.check(
  Schema.makeFilter((pattern: string) => answerablePatternProblem(pattern) ?? true)
).annotate({ identifier: "AnswerablePattern" })

/** Whether `id` matches one checked pattern. */
const matches = (pattern: string, id: string): boolean => {
  const star = pattern.indexOf("*")
  if (star < 0) return pattern === id
  const head = pattern.slice(0, star)
  const tail = pattern.slice(star + 1)
  return id.length >= head.length + tail.length && id.startsWith(head) && id.endsWith(tail)
}

/**
 * Whether `by` may settle an ask whose request has `answerableBy`: always
 * when there are no patterns; otherwise only a known answerer whose id
 * matches one of them. A surface that cannot say who is answering (`by`
 * undefined) matches no pattern.
 *
 * @since 0.3.0
 */
export const isAnswerableBy = (
  answerableBy: ReadonlyArray<string> | undefined,
  by: Answerer | undefined
): boolean => {
  if (answerableBy === undefined) return true
  if (by === undefined) return false
  return answerableBy.some((pattern) => matches(pattern, by.id))
}

/**
 * How a person reads an answerer: their name, else their id.
 *
 * @since 0.3.0
 */
export const answererTitle = (by: Answerer): string => by.name ?? by.id

/** The kinds of answerer that are a person known by an account (not a token, a topic or a program). */
const personKinds: ReadonlySet<string> = new Set(["os", "device", "slack", "email"])

/**
 * Whether `by` names a person known by account (`os:`, `device:`,
 * `slack:`, `email:` ids), whom the model may be told about; a token
 * holder, a protocol client, a topic or a script is not.
 *
 * @since 0.3.0
 */
export const isPersonAnswerer = (by: Answerer): boolean => personKinds.has(by.id.slice(0, by.id.indexOf(":")))
