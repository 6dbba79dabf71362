/** README's example request ("A request can carry more"): it uses every second-edition field, and it decodes. */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { decodeRequestJson } from "effect-user-interaction"

describe("README's example request", () => {
  it("uses every new field and decodes", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const block = /A request can carry more[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(readme)?.[1]
    expect(block).toBeDefined()
    for (const field of ["\"recommended\"", "\"preview\"", "\"secret\"", "\"timeout\"", "\"on_timeout\""]) {
      expect(block).toContain(field)
    }
    expect(Result.isSuccess(decodeRequestJson(JSON.parse(block!)))).toBe(true)
  })
})
