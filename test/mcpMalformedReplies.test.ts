/**
 * The repair of malformed replies on `ask-user mcp`'s stdin: only lines that
 * answer a request and that the SDK cannot read become error responses;
 * every other byte passes unchanged, however the input is cut into chunks.
 */
import { describe, expect, it } from "@effect/vitest"
import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import { Readable } from "node:stream"
import { Effect, Schema } from "effect"
import { repairedReply, repairingReplies } from "../src/mcp/malformedReplies.js"

const through = async (chunks: ReadonlyArray<string>): Promise<string> => {
  let out = ""
  for await (const chunk of repairingReplies(Readable.from(chunks.map((c) => Buffer.from(c))))) out += chunk.toString()
  return out
}

const valid = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { result: null } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: "a", result: { action: "accept", content: { question_1: "yes" } } },
  { jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found" } },
  { jsonrpc: "2.0", id: 0, result: {} }
]

describe("malformed replies", () => {
  it("a reply with a result that is not an object becomes an error response for its id", () => {
    for (const result of [null, "x", 3, []]) {
      const repaired = JSON.parse(repairedReply(JSON.stringify({ jsonrpc: "2.0", id: 4, result }))!)
      expect(repaired).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32603 } })
      expect(repaired.error.message).toMatch(/^The client's reply is not a JSON-RPC response: /)
      expect(repaired.error.message).not.toMatch(/[[{]\s*[{"]/)
    }
    expect(JSON.parse(repairedReply(`{"id":"s","error":"nope"}`)!).id).toBe("s")
    // The text "method" inside a malformed reply does not make it a request.
    for (const line of [
      `{"jsonrpc":"2.0","id":1,"result":"method"}`,
      `{"jsonrpc":"2.0","id":1,"result":[{"method":"x"}]}`,
      `{"jsonrpc":"2.0","id":1,"result":null,"_meta":{"method":"x"}}`
    ]) expect(JSON.parse(repairedReply(line)!).error.message).toMatch(/not a JSON-RPC response: its result/)
    // Exactly the replies the SDK's own parser refuses, whatever its reason.
    const edges = [
      { jsonrpc: "2.0", id: 5, error: { code: 1.5, message: "m" } },
      { jsonrpc: "2.0", id: 6, result: {}, error: { code: 1, message: "m" } },
      { jsonrpc: "2.0", id: 7, result: {}, extra: 1 },
      { jsonrpc: "2.0", id: 8, result: { _meta: 5 } },
      { id: 9, result: {} },
      { jsonrpc: "2.0", id: 10, error: { code: 1, message: "m", data: null } },
      { jsonrpc: "2.0", id: "", result: { _meta: { x: 1 }, a: [1] } }
    ]
    for (const edge of edges) {
      const refused = (() => {
        try {
          parseJSONRPCMessage(edge)
          return false
        } catch {
          return true
        }
      })()
      expect(repairedReply(JSON.stringify(edge)) !== undefined).toBe(refused)
    }
  })

  it("leaves valid messages, requests, lines without an id and lines that are not JSON alone", () => {
    for (const message of valid) expect(repairedReply(JSON.stringify(message))).toBeUndefined()
    for (const line of ["not json", "[1,2]", `{"result":null}`, `{"id":null,"result":null}`, `{"id":1,"method":"x"}`]) {
      expect(repairedReply(line)).toBeUndefined()
    }
  })

  it.effect.prop(
    "the stream passes valid traffic through byte for byte, however it is chunked",
    { picks: Schema.Array(Schema.Literals([0, 1, 2, 3, 4])), cuts: Schema.Array(Schema.Int) },
    ({ cuts, picks }) =>
      Effect.gen(function*() {
        const text = picks.map((i) => `${JSON.stringify(valid[i])}\n`).join("")
        const points = [...new Set(cuts.map((c) => Math.abs(c) % (text.length + 1)))].sort((a, b) => a - b)
        const ends = [...points, text.length]
        const chunks = [0, ...points].map((from, i) => text.slice(from, ends[i]))
        expect(yield* Effect.promise(() => through(chunks))).toBe(text)
      })
  )

  it("repairs a malformed reply in the middle of a chunk, and keeps a partial last line for the next", async () => {
    const before = JSON.stringify(valid[0])
    const after = JSON.stringify(valid[1])
    const out = await through([`${before}\n{"jsonrpc":"2.0","id":9,"res`, `ult":null}\n${after}\n`])
    const lines = out.split("\n").filter(Boolean).map((line) => JSON.parse(line))
    expect(lines).toEqual([valid[0], expect.objectContaining({ id: 9, error: expect.any(Object) }), valid[1]])
  })
})
