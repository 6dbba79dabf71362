/** The batched stdout of `ask-user acp`: every byte, in order, one write per event-loop turn. */
import { describe, expect, it } from "@effect/vitest"
import { closeSync, openSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { batchedStdout } from "../src/cli/batchedStdout.js"
import { tempDir } from "./cliHarness.js"

const encode = (text: string) => new TextEncoder().encode(text)

describe("batchedStdout", () => {
  it("writes what one turn of the event loop produced after that turn, in order, and the rest on close", async () => {
    const file = join(tempDir(), "out")
    const fd = openSync(file, "w")
    try {
      const writer = batchedStdout(fd).getWriter()
      await writer.write(encode("a\n"))
      await writer.write(encode("b\n"))
      // Still buffered: nothing is written during the turn that produced it.
      expect(readFileSync(file, "utf8")).toBe("")
      await new Promise((resolve) => setImmediate(resolve))
      expect(readFileSync(file, "utf8")).toBe("a\nb\n")
      await writer.write(encode("c\n"))
      await writer.close()
      expect(readFileSync(file, "utf8")).toBe("a\nb\nc\n")
    } finally {
      closeSync(fd)
    }
  })

  it("errors the stream when the descriptor cannot be written", async () => {
    const file = join(tempDir(), "out")
    const fd = openSync(file, "w")
    closeSync(fd)
    const writer = batchedStdout(fd).getWriter()
    await writer.write(encode("lost\n"))
    await new Promise((resolve) => setImmediate(resolve))
    await expect(writer.write(encode("more\n"))).rejects.toMatchObject({ code: "EBADF" })
  })
})
