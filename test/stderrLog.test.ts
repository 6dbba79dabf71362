/**
 * The program's logger: one inert line on stderr per entry, the cause in
 * words (read down its chain), never a stack trace, the same cause at most
 * once a minute; the durable commands' logger shows the store's own warnings
 * and the engine's errors only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import { durableStderr, oneLineStderr } from "../src/cli/stderrLog.js"

/** What `effect` writes on stderr. */
const stderrOf = <A, E>(effect: Effect.Effect<A, E>, logger: Layer.Layer<never> = oneLineStderr) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const lines: Array<string> = []
      const write = process.stderr.write
      process.stderr.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stderr.write
      return { lines, restore: () => void (process.stderr.write = write) }
    }),
    ({ lines }) => Effect.as(Effect.provide(effect, logger), lines),
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

  it.effect("the cause's words are read down its chain: an engine error that says nothing itself, the SQL error, the driver's", () =>
    Effect.gen(function*() {
      const driver = new Error("connect ECONNREFUSED 127.0.0.1:5432")
      const sql = new Error("PgConnection: Failed to connect", { cause: driver })
      // The engine's PersistenceError: an empty message of its own.
      const persistence = Object.assign(new Error(""), { cause: sql })
      const lines = yield* stderrOf(Effect.logError("Shard lock storage is unhealthy", Cause.fail(persistence)))
      expect(lines).toEqual([
        "ask-user: ERROR: Shard lock storage is unhealthy: PgConnection: Failed to connect: connect ECONNREFUSED 127.0.0.1:5432\n"
      ])
    }))

  it.effect("the same cause is written at most once a minute; another cause, or an entry without one, at once", () =>
    Effect.gen(function*() {
      const refused = Cause.fail(new Error("connect ECONNREFUSED 127.0.0.1:5432"))
      const lines = yield* stderrOf(Effect.gen(function*() {
        yield* Effect.logError("Shard lock storage is unhealthy", refused)
        yield* TestClock.adjust("30 seconds")
        yield* Effect.logError("Could not acquire shards", refused)
        yield* Effect.logError("Shard lock storage is unhealthy", Cause.fail(new Error("timeout exceeded when trying to connect")))
        yield* Effect.logWarning("no cause, never held back")
        yield* Effect.logWarning("no cause, never held back")
        yield* TestClock.adjust("31 seconds")
        yield* Effect.logError("Shard lock storage is unhealthy", refused)
      }))
      expect(lines).toEqual([
        "ask-user: ERROR: Shard lock storage is unhealthy: connect ECONNREFUSED 127.0.0.1:5432\n",
        "ask-user: ERROR: Shard lock storage is unhealthy: timeout exceeded when trying to connect\n",
        "ask-user: WARN: no cause, never held back\n",
        "ask-user: WARN: no cause, never held back\n",
        "ask-user: ERROR: Shard lock storage is unhealthy: connect ECONNREFUSED 127.0.0.1:5432\n"
      ])
    }))

  it.effect("the durable commands' logger: the store's own warnings and the engine's errors, not the engine's warnings", () =>
    Effect.gen(function*() {
      const lines = yield* stderrOf(
        Effect.gen(function*() {
          yield* Effect.logWarning("No healthy runners available")
          yield* Effect.logWarning("the durable store /s/asks.db can be read by other users").pipe(
            Effect.annotateLogs({ module: "effect-user-interaction/durable" })
          )
          yield* Effect.logError("Shard lock storage is unhealthy")
        }),
        durableStderr
      )
      expect(lines).toEqual([
        "ask-user: WARN: the durable store /s/asks.db can be read by other users\n",
        "ask-user: ERROR: Shard lock storage is unhealthy\n"
      ])
    }))
})
