/** The program's logger: one inert line on stderr per entry, the cause in words, never a stack trace. */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import { oneLineStderr } from "../src/cli/stderrLog.js"

/** What `effect` writes on stderr. */
const stderrOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const lines: Array<string> = []
      const write = process.stderr.write
      process.stderr.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stderr.write
      return { lines, restore: () => void (process.stderr.write = write) }
    }),
    ({ lines }) => Effect.as(Effect.provide(effect, oneLineStderr), lines),
    ({ restore }) => Effect.sync(restore)
  )

describe("oneLineStderr", () => {
  it.effect("an entry with a cause is one line: level, message, the cause's words, no stack trace", () =>
    Effect.gen(function*() {
      const failure = new Error("Operation timed out after '3s'")
      const lines = yield* stderrOf(Effect.logError("Shard lock storage is unhealthy", Cause.fail(failure)))
      expect(lines).toEqual(["ask-user: ERROR: Shard lock storage is unhealthy: Operation timed out after '3s'\n"])
    }))

  it.effect("several parts are joined; escape sequences and newlines in them are shown inert", () =>
    Effect.gen(function*() {
      const lines = yield* stderrOf(Effect.logWarning("runner", "\x1b]0;pwned\x07 left\nnext"))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^ask-user: WARN: runner /)
      expect(lines[0]!.slice(0, -1)).not.toMatch(/[\x00-\x1f\x7f]/)
    }))
})
