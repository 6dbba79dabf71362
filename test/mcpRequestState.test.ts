/**
 * The sealed `requestState` of 2026-07-28 rounds: what this codec sealed
 * opens to the same payload; anything altered, foreign or expired opens to
 * nothing. (The refusal on the wire is in `mcpStdio.test.ts`.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Schema } from "effect"
import { makeRequestStateCodec } from "../src/mcp/requestState.js"

// Rounds count up from 1 (JSON has no -0).
const payloads = Arbitrary.schema(Schema.Struct({ call: Schema.String, round: Schema.Int })).pipe(
  Arbitrary.map(({ call, round }) => ({ call, round: Math.abs(round) + 1 }))
)
const day = 24 * 60 * 60 * 1000

describe("requestState codec", () => {
  it.prop("opens what it sealed to an equal payload", [payloads], ([payload]) => {
    const codec = makeRequestStateCodec<typeof payload>(day)
    expect(codec.open(codec.seal(payload))).toEqual(payload)
  })

  it.prop(
    "opens nothing once any one character of the state is changed",
    [payloads, Arbitrary.schema(Schema.Int), Arbitrary.schema(Schema.String)],
    ([payload, at, insert]) => {
      const codec = makeRequestStateCodec<typeof payload>(day)
      const state = codec.seal(payload)
      const i = Math.abs(at) % state.length
      const replaced = `${state.slice(0, i)}${state[i] === "A" ? "B" : "A"}${state.slice(i + 1)}`
      expect(codec.open(replaced)).toBeUndefined()
      const inserted = `${state.slice(0, i)}${insert}${state.slice(i)}`
      if (inserted !== state) expect(codec.open(inserted)).toBeUndefined()
    }
  )

  it("opens nothing sealed under another key, expired, or not a state at all", () => {
    const codec = makeRequestStateCodec<{ round: number }>(day)
    const other = makeRequestStateCodec<{ round: number }>(day)
    expect(codec.open(other.seal({ round: 1 }))).toBeUndefined()
    const expired = makeRequestStateCodec<{ round: number }>(-1)
    expect(expired.open(expired.seal({ round: 1 }))).toBeUndefined()
    for (const junk of ["", "v1.", "v1..", "not a state", "v1.e30.", `${codec.seal({ round: 1 })}.`]) {
      expect(codec.open(junk)).toBeUndefined()
    }
  })

  it("compares the tag as written: characters that base64url decoding would skip are refused", () => {
    const codec = makeRequestStateCodec<{ round: number }>(day)
    const state = codec.seal({ round: 1 })
    const dot = state.lastIndexOf(".")
    expect(codec.open(`${state.slice(0, dot + 3)}!${state.slice(dot + 3)}`)).toBeUndefined()
    expect(codec.open(`${state}=`)).toBeUndefined()
  })
})
