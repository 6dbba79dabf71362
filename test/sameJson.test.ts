/**
 * `sameJson`, which decides whether a retried 2026-07-28 tool call repeats
 * its arguments: the same JSON value whatever the key order, and nothing else.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Schema } from "effect"
import { canonicalJson } from "../src/internal/canonicalJson.js"
import { sameJson } from "../src/internal/sameJson.js"

const json = Arbitrary.schema(Schema.Json)

/** `value` with every object's keys in reverse order. */
const reversedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversedKeys)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]))
    : value

describe("sameJson", () => {
  it.prop("holds for a value and the same value with its keys in another order", [json], ([value]) => {
    expect(sameJson(value, reversedKeys(value))).toBe(true)
  })

  it.prop("agrees with comparing the values' canonical JSON", [json, json], ([a, b]) => {
    expect(sameJson(a, b)).toBe(canonicalJson(a) === canonicalJson(b))
  })

  it("tells apart what JSON tells apart", () => {
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false)
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false)
    expect(sameJson([], {})).toBe(false)
    expect(sameJson("1", 1)).toBe(false)
    expect(sameJson(null, {})).toBe(false)
  })
})
