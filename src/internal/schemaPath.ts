/**
 * Renders Schema issues as `questions[1].options[0].label: message`, the path
 * form the contract promises in `InvalidRequest` messages.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { InvalidRequest } from "../UserInteractionError.js"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Joins a Schema path the way a JavaScript reader writes it. */
export const formatPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string => {
  let out = ""
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment
    if (typeof key === "number") out += `[${key}]`
    else out += out === "" ? String(key) : `.${String(key)}`
  }
  return out === "" ? "(root)" : out
}

/** One line per issue, each naming its path. */
export const formatIssue = (issue: SchemaIssue.Issue): string =>
  formatter(issue).issues.map((i) => `${formatPath(i.path ?? [])}: ${i.message}`).join("; ")

/** The first typed failure of an exit, if any. */
export const firstError = <E>(exit: Exit.Exit<unknown, E>): E | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error as E | undefined : undefined

/** The `InvalidRequest` for a request that did not decode, naming each path. */
export const invalidRequestFrom = (exit: Exit.Exit<unknown, Schema.SchemaError>): InvalidRequest => {
  const error = firstError(exit)
  return new InvalidRequest({
    message: `Invalid request: ${error ? formatIssue(error.issue) : "could not decode"}`,
    cause: error
  })
}
