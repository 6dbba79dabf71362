#!/usr/bin/env node
/**
 * `ask-user`: put an agent's questions in front of a human and print the
 * answer JSON on stdout (see `main.ts` for the commands).
 *
 * This entry only turns on Node's on-disk compile cache before loading the
 * program: `effect/cli` alone is about 200 modules, and compiling them is
 * most of a cold start. Static imports would be loaded before the cache is on,
 * hence the dynamic import.
 *
 * @since 0.1.0
 */
import * as Module from "node:module"

Module.enableCompileCache?.()
await import("./main.js")
