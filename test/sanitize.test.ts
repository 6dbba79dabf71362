import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { hasUnsafe, sanitize, sanitizeLine } from "../src/internal/sanitize.js"
import { hostile } from "./terminalCorpus.js"
import { unsafeChars } from "./terminalHarness.js"

describe("sanitize", () => {
  it("shows escape sequences as visible text instead of sending them", () => {
    expect(sanitize("\x1b[2J\x1b[Hcleared")).toBe("\\x1b[2J\\x1b[Hcleared")
    expect(sanitize("\x1b]52;c;ZWNobw==\x07")).toBe("\\x1b]52;c;ZWNobw==\\x07")
    expect(sanitize("\x9b31m")).toBe("\\x9b31m")
    expect(sanitize("a\u202eb")).toBe("a\\u202eb")
    expect(sanitize("nul\x00")).toBe("nul\\x00")
  })

  it("shows invisible format characters as visible escapes: ye\\u200bs never reads as yes", () => {
    expect(sanitize("ye\u200bs")).toBe("ye\\u200bs")
    expect(sanitize("\u200c\u200d\u200e\u200f\u061c\u2028\u2029\ufeff")).toBe(
      "\\u200c\\u200d\\u200e\\u200f\\u061c\\u2028\\u2029\\ufeff"
    )
    expect(hasUnsafe("ye\u200bs")).toBe(true)
  })

  it("keeps newlines and tabs, and sanitizeLine flattens them for one menu row", () => {
    expect(sanitize("one\ntwo\tthree")).toBe("one\ntwo\tthree")
    expect(sanitizeLine("one\ntwo\tthree\x1b")).toBe("one two three\\x1b")
  })

  it("leaves ordinary text, including non-Latin scripts and emoji, untouched", () => {
    for (const text of ["Postgres (Recommended)", "Données – über – 数据库", "שלום", "🚀 ship it", "a\\x1b literal"]) {
      expect(sanitize(text)).toBe(text)
      expect(hasUnsafe(text)).toBe(false)
    }
  })

  it("neutralises every string of the hostile corpus", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30)
    for (const text of hostile) {
      expect(hasUnsafe(text)).toBe(true)
      expect(sanitize(text)).not.toMatch(unsafeChars)
    }
  })

  it.prop("never lets an unsafe character through", [Schema.String], ([text]) => !unsafeChars.test(sanitize(text)))

  it.prop(
    "is the identity on safe text and idempotent on any text",
    [Schema.String],
    ([text]) => sanitize(sanitize(text)) === sanitize(text) && (hasUnsafe(text) || sanitize(text) === text)
  )

  // Schema.String rarely produces control characters; this alphabet is mostly made of them.
  const hostileText = Schema.Array(Schema.Literals([
    "a", " ", "\n", "\t", "\\", "x", "1", "[", "]", ";", "é", "数", "🚀",
    "\x00", "\x07", "\x1b", "\x7f", "\x84", "\x85", "\x90", "\x9b", "\x9c", "\x9d", "\x9f",
    "\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u200f", "\u061c", "\u2028", "\ufeff"
  ]))

  it.prop("neutralises text built mostly of control characters", [hostileText], ([chars]) => {
    const text = chars.join("")
    const out = sanitize(text)
    return !unsafeChars.test(out) && !unsafeChars.test(sanitizeLine(text)) && sanitize(out) === out
  })
})
