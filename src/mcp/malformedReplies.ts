/**
 * The client's side of `ask-user mcp`'s stdio, passed on line by line to the
 * SDK's stdio transport with one repair: a line that answers one of the
 * server's requests but is not a JSON-RPC response the SDK can read
 * (`"result": null`, a string result) becomes an error response for that
 * request. The SDK's transport drops a line it cannot parse, with a dump on
 * stderr; the request it answered (an elicitation: a human's ask) then
 * waited forever. As an error response it fails that ask `PROVIDER_FAILED`.
 *
 * @internal
 */
import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import { type Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"

const newline = 0x0a

/** JSON-RPC's code for an error inside the party that answers: the client's, here. */
const internalError = -32603

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The error response to put in place of `line`, when `line` answers a
 * request (it has an `id` and no `method`) but is not a JSON-RPC message;
 * undefined for every other line, which passes unchanged.
 */
export const repairedReply = (line: string): string | undefined => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!isRecord(value) || "method" in value) return undefined
  const id = value["id"]
  if (typeof id !== "string" && typeof id !== "number") return undefined
  try {
    parseJSONRPCMessage(value)
    return undefined
  } catch {
    return JSON.stringify({
      jsonrpc: "2.0",
      id,
      error: { code: internalError, message: `The client's reply is not a JSON-RPC response: ${whatIsWrong(value)}.` }
    })
  }
}

/**
 * What is wrong with a reply the SDK refused, in words: its parser tries
 * every kind of message, and its first complaint is about a request's
 * missing `method`, which names the wrong problem.
 */
const whatIsWrong = (reply: Readonly<Record<string, unknown>>): string => {
  if ("result" in reply && "error" in reply) return "it has both a result and an error"
  if ("result" in reply) return isRecord(reply["result"]) ? "its result or envelope is malformed" : "its result is not an object"
  if ("error" in reply) return "its error is not an object with an integer code and a message"
  return "it has neither a result nor an error"
}

/**
 * `input` with malformed replies repaired (`repairedReply`) while
 * `awaitsReplies()` holds (a server that sends no requests has no reply to
 * wait for, and its lines pass as they are). Every line is read as JSON here
 * once more; a byte-level shortcut for requests would let a malformed reply
 * that merely contains the text `"method"` through.
 */
export const repairingReplies = (input: Readable, awaitsReplies: () => boolean = () => true): Readable => {
  let carry: Buffer | undefined
  const output = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (carry === undefined && !awaitsReplies()) return done(null, chunk)
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk])
      const parts: Array<Buffer> = []
      let passFrom = 0
      let lineStart = 0
      for (let end = data.indexOf(newline); end !== -1; end = data.indexOf(newline, lineStart)) {
        const line = data.subarray(lineStart, end)
        const repaired = repairedReply(line.toString("utf8"))
        if (repaired !== undefined) {
          parts.push(data.subarray(passFrom, lineStart), Buffer.from(`${repaired}\n`))
          passFrom = end + 1
        }
        lineStart = end + 1
      }
      parts.push(data.subarray(passFrom, lineStart))
      carry = lineStart < data.length ? data.subarray(lineStart) : undefined
      done(null, parts.length === 1 ? parts[0] : Buffer.concat(parts))
    },
    flush(done) {
      done(null, carry)
    }
  })
  // An error on `input` destroys `output` with it, which the transport sees as its input closing.
  pipeline(input, output).catch(() => undefined)
  return output
}
