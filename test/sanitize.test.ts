import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Schema } from "effect"
import { hasUnsafe, inertJson, sanitize, sanitizeLine } from "../src/internal/sanitize.js"
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

  it("shows every format character and invisible filler as an escape: ye\\u2060s never reads as yes", () => {
    expect(sanitize("ye\u2060s")).toBe("ye\\u2060s")
    expect(sanitize("soft\u00adhyphen")).toBe("soft\\xadhyphen")
    expect(sanitize("a\u{e0041}b")).toBe("a\\u{e0041}b")
    expect(sanitize("\u115f\u1160\u3164\uffa0\u034f")).toBe("\\u115f\\u1160\\u3164\\uffa0\\u034f")
  })

  it("escapes exactly the characters a terminal must not get raw, checked over every code point", () => {
    const wrong: Array<string> = []
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue
      const char = String.fromCodePoint(code)
      if (hasUnsafe(char) !== unsafeChars.test(char)) wrong.push(code.toString(16))
      if (unsafeChars.test(sanitize(char))) wrong.push(`raw ${code.toString(16)}`)
    }
    expect(wrong).toEqual([])
  })

  it("keeps variation selectors where emoji and ideographs need them, not after letters where they only hide", () => {
    for (const text of ["\u2764\ufe0f", "1\ufe0f\u20e3", "#\ufe0f\u20e3", "\u263a\ufe0e", "\u845b\u{e0100}", "\u{1f44d}\u{1f3fd}"]) {
      expect(sanitize(text)).toBe(text)
    }
    expect(sanitize("ye\ufe0fs")).toBe("ye\\ufe0fs")
    expect(sanitize("no\u{e0100}")).toBe("no\\u{e0100}")
    expect(sanitize("\ufe0fstart")).toBe("\\ufe0fstart")
    expect(sanitize("a \ufe0f")).toBe("a \\ufe0f")
    // After an escaped character (whose escape ends in a letter) too, so a second pass changes nothing.
    expect(sanitize("\u200b\ufe0f")).toBe("\\u200b\\ufe0f")
  })

  it("shows a lone surrogate as its escape, so \"A\\ud800\" and \"A\\udc00\" do not both read \"A\ufffd\"", () => {
    expect(sanitize("A\ud800")).toBe("A\\ud800")
    expect(sanitize("A\udc00 \ud83d")).toBe("A\\udc00 \\ud83d")
    expect(sanitize("\u{1f680} ship")).toBe("\u{1f680} ship")
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

  // Code points drawn from the invisible ranges (format characters, fillers, tags, variation
  // selectors) mixed with letters, emoji and ideographs, which variation selectors may follow.
  const invisibleRanges: ReadonlyArray<readonly [number, number]> = [
    [0x61, 0x7a], [0x20, 0x20], [0x0a, 0x0a], [0x4e00, 0x4e10], [0x1f600, 0x1f60f], [0x2764, 0x2764],
    [0x00ad, 0x00ad], [0x034f, 0x034f], [0x0600, 0x0605], [0x061c, 0x061c], [0x06dd, 0x06dd], [0x070f, 0x070f],
    [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f], [0x200b, 0x200f], [0x2028, 0x202e], [0x2060, 0x206f],
    [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb], [0x110bd, 0x110bd],
    [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe007f], [0xe0100, 0xe01ef]
  ]
  const invisibleText = Arbitrary.schema(
    Schema.Array(Schema.Tuple([Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: invisibleRanges.length - 1 })), Schema.Int]))
  ).pipe(Arbitrary.map((picks) =>
    picks.map(([range, n]) => {
      const [first, last] = invisibleRanges[range]!
      return String.fromCodePoint(first + Math.abs(n) % (last - first + 1))
    }).join("")
  ))

  it.prop("never lets an invisible or format character through, and stays idempotent", [invisibleText], ([text]) => {
    const out = sanitize(text)
    return !unsafeChars.test(out) && !unsafeChars.test(sanitizeLine(text)) && sanitize(out) === out
  })

  it.prop("neutralises text built mostly of control characters", [hostileText], ([chars]) => {
    const text = chars.join("")
    const out = sanitize(text)
    return !unsafeChars.test(out) && !unsafeChars.test(sanitizeLine(text)) && sanitize(out) === out
  })

  it("inertJson: JSON that reads back the same, with C1 controls and BiDi overrides as escapes", () => {
    const value = { answers: [{ id: "q", selected: [], custom: "\x9b2J\u202edesrever\u200b\x7f\u{e0041}ok" }] }
    const json = inertJson(value)
    expect(json).toBe(String.raw`{"answers":[{"id":"q","selected":[],"custom":"\u009b2J\u202edesrever\u200b\u007f\udb40\udc41ok"}]}`)
    expect(JSON.parse(json)).toEqual(value)
  })

  it.prop("inertJson reads back as the value and holds no unsafe character", [Schema.Array(Schema.String), hostileText], ([texts, chars]) => {
    const value = { texts, hostile: chars.join("") }
    const json = inertJson(value)
    return !unsafeChars.test(json) && JSON.stringify(JSON.parse(json)) === JSON.stringify(value)
  })
})
