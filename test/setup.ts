/**
 * Runs before every test file: what a file makes in the temp directory
 * through `tempDir`/`tempFiles` is removed when the file ends, and the
 * programs it started and left running (a test that failed half-way) are
 * killed, so no test has to remember to, and none leaves anything behind.
 */
import { afterAll } from "@effect/vitest"
import { killStarted, removeTempDirs } from "./cliHarness.js"

afterAll(() => {
  killStarted()
  removeTempDirs()
})
