import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  // Tests import the package by its name, as users do, but run against the sources.
  resolve: { alias: { "effect-user-interaction": fileURLToPath(new URL("src/index.ts", import.meta.url)) } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["test/globalSetup.ts"]
  }
})
