import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import SlowFirstSequencer from "./test/sequencer.js"

const src = (path: string) => fileURLToPath(new URL(`src/${path}`, import.meta.url))

export default defineConfig({
  // Tests import the package by its names, as users do, but run against the sources.
  resolve: {
    alias: [
      { find: /^effect-user-interaction\/(terminal|web|acp|mcp|durable|slack)$/, replacement: src("$1/index.ts") },
      { find: /^effect-user-interaction$/, replacement: src("index.ts") }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["test/globalSetup.ts"],
    setupFiles: ["test/setup.ts"],
    // Most files wait on other processes (the program, tmux, Chromium, npm), so run more of
    // them at once than the default of one fewer than the cores (one, on a 2-core machine).
    maxWorkers: 4,
    // One module graph per worker, not per file: the suite is CPU-bound on small machines and
    // re-importing effect and the SDKs for each of ~40 files cost a fifth of its time. No test
    // mocks modules or changes globals, and each one disposes what it starts (decision 005).
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer }
  }
})
