/**
 * Who is answering at this machine's terminal or command line: the account
 * running the process, as the `os:<user>@<host>` answerer id (SPEC,
 * "Answerers"). The terminal and `ask-user --answers` answer as it.
 *
 * @internal
 */
import { hostname, userInfo } from "node:os"
import type { Answerer } from "../Answerer.js"

/**
 * The account's login name: the password database's, else `$USER` or
 * `$LOGNAME` (a container may run as a uid with no entry, where
 * `userInfo()` throws), else `uid<N>`.
 */
const userName = (): string => {
  try {
    const name = userInfo().username
    if (name !== "") return name
  } catch {
    // No entry for this uid: the environment may still name the account.
  }
  const fromEnv = process.env["USER"] || process.env["LOGNAME"]
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : `uid${process.getuid?.() ?? "unknown"}`
}

/**
 * `os:<user>@<host>` for the account running this process, read at each call
 * (cheap, and a test may change the environment between asks).
 */
export const osAnswerer = (): Answerer => ({ id: `os:${userName()}@${hostname() || "localhost"}` })
