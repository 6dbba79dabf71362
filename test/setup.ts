/**
 * Runs before every test file: what a file makes in the temp directory
 * through `tempDir`/`tempFiles` is removed when the file ends, so no test
 * has to remember to, and none leaves files behind.
 */
import { afterAll } from "@effect/vitest"
import { removeTempDirs } from "./cliHarness.js"

afterAll(removeTempDirs)
