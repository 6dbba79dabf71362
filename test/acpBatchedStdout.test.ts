/** The batched stdout of `ask-user acp`: every message, in order; notifications wait for a request, a response or the end of the macrotask. */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { closeSync, constants, openSync, readFileSync, readSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { batchedStdout } from "../src/cli/batchedStdout.js"
import { tempDir } from "./cliHarness.js"

const encode = (text: string) => new TextEncoder().encode(text)

describe("batchedStdout", () => {
  const notification = (n: number) => ({ jsonrpc: "2.0", method: "session/update", params: { n } })
  const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))

  it("holds notifications until the end of the macrotask, and writes them then, in order, one JSON line each", async () => {
    const file = join(tempDir(), "out")
    const fd = openSync(file, "w")
    try {
      const writer = batchedStdout(fd).messages.getWriter()
      await writer.write(notification(1))
      await writer.write(notification(2))
      // Still buffered: nothing is written during the macrotask that produced it.
      expect(readFileSync(file, "utf8")).toBe("")
      await new Promise((resolve) => setImmediate(resolve))
      expect(lines(file)).toEqual([notification(1), notification(2)])
      await writer.write(notification(3))
      await writer.close()
      expect(lines(file)).toEqual([notification(1), notification(2), notification(3)])
    } finally {
      closeSync(fd)
    }
  })

  it("writes a request or a response at once, with the notifications queued before it, in order", async () => {
    const file = join(tempDir(), "out")
    const fd = openSync(file, "w")
    try {
      const stdout = batchedStdout(fd)
      const writer = stdout.messages.getWriter()
      const request = { jsonrpc: "2.0", id: 7, method: "elicitation/create", params: {} }
      const response = { jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } }
      void writer.write(notification(1))
      void writer.write(request)
      await writer.ready
      // No macrotask has passed: the request went out with the notification before it.
      expect(lines(file)).toEqual([notification(1), request])
      void writer.write(notification(2))
      void writer.write(response)
      await writer.ready
      expect(lines(file)).toEqual([notification(1), request, notification(2), response])
      // The SDK line reader's error replies (already encoded) go out at once too, after what came before.
      void writer.write(notification(3))
      await writer.ready
      const refusal = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }
      await stdout.bytes.getWriter().write(encode(`${JSON.stringify(refusal)}\n`))
      expect(lines(file)).toEqual([notification(1), request, notification(2), response, notification(3), refusal])
    } finally {
      closeSync(fd)
    }
  })

  it("errors both writers when the descriptor cannot be written", async () => {
    const file = join(tempDir(), "out")
    const fd = openSync(file, "w")
    closeSync(fd)
    const stdout = batchedStdout(fd)
    const messages = stdout.messages.getWriter()
    await messages.write(notification(1))
    await new Promise((resolve) => setImmediate(resolve))
    await expect(messages.write(notification(2))).rejects.toMatchObject({ code: "EBADF" })
    await expect(stdout.bytes.getWriter().write(encode("more\n"))).rejects.toMatchObject({ code: "EBADF" })
  })

  it("a request the descriptor refuses fails its own write", async () => {
    const file = join(tempDir(), "out")
    const fd = openSync(file, "w")
    closeSync(fd)
    const messages = batchedStdout(fd).messages.getWriter()
    await expect(messages.write({ jsonrpc: "2.0", id: 1, result: {} })).rejects.toMatchObject({ code: "EBADF" })
  })

  /** A FIFO opened for reading and writing without blocking: a pipe whose reader reads only when told. */
  const pipe = () => {
    const path = join(tempDir(), "fifo")
    execFileSync("mkfifo", [path])
    return { path, fd: openSync(path, constants.O_RDWR | constants.O_NONBLOCK) }
  }

  it("a full pipe is waited for, not spun on, and every byte arrives in order once the reader reads", async () => {
    const { fd } = pipe()
    try {
      const writer = batchedStdout(fd).bytes.getWriter()
      // Four times what a Linux pipe holds, one line per write.
      const lines = Array.from({ length: 4_000 }, (_, i) => `${String(i).padStart(6, "0")} ${"x".repeat(57)}\n`)
      const writes = lines.map((line) => writer.write(encode(line)))
      await new Promise((resolve) => setImmediate(resolve))
      const cpuBefore = process.cpuUsage()
      await new Promise((resolve) => setTimeout(resolve, 500))
      const cpu = process.cpuUsage(cpuBefore)
      // Spinning on the full pipe would use the whole half second.
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(250)
      let read = ""
      const buffer = Buffer.alloc(65_536)
      while (read.length < lines.length * 64) {
        try {
          read += buffer.toString("utf8", 0, readSync(fd, buffer))
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      }
      await Promise.all(writes)
      expect(read).toBe(lines.join(""))
    } finally {
      closeSync(fd)
    }
  })

  it("at exit, a pipe nobody reads holds the process for about a second at most", async () => {
    const { path } = pipe()
    const script = join(tempDir(), "exit.mjs")
    const module = fileURLToPath(new URL("../src/cli/batchedStdout.ts", import.meta.url))
    writeFileSync(script, `
      import { constants, openSync } from "node:fs"
      import { batchedStdout } from ${JSON.stringify(module)}
      const writer = batchedStdout(openSync(${JSON.stringify(path)}, constants.O_RDWR | constants.O_NONBLOCK)).messages.getWriter()
      for (let i = 0; i < 4000; i++) void writer.write({ jsonrpc: "2.0", method: "x".repeat(40) })
      setTimeout(() => process.exit(0), 50)
    `)
    const child = spawn(process.execPath, [script], { stdio: "ignore" })
    const exited = await new Promise<number | null>((resolve) => {
      const bound = setTimeout(() => {
        child.kill("SIGKILL")
        resolve(null)
      }, 20_000)
      child.once("exit", (code) => {
        clearTimeout(bound)
        resolve(code)
      })
    })
    expect(exited).toBe(0)
  })
})
