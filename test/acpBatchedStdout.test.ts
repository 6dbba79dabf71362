/** The batched stdout of `ask-user acp`: every byte, in order, one write per event-loop turn. */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { closeSync, constants, openSync, readFileSync, readSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
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

  /** A FIFO opened for reading and writing without blocking: a pipe whose reader reads only when told. */
  const pipe = () => {
    const path = join(tempDir(), "fifo")
    execFileSync("mkfifo", [path])
    return { path, fd: openSync(path, constants.O_RDWR | constants.O_NONBLOCK) }
  }

  it("a full pipe is waited for, not spun on, and every byte arrives in order once the reader reads", async () => {
    const { fd } = pipe()
    try {
      const writer = batchedStdout(fd).getWriter()
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
      const writer = batchedStdout(openSync(${JSON.stringify(path)}, constants.O_RDWR | constants.O_NONBLOCK)).getWriter()
      for (let i = 0; i < 4000; i++) void writer.write(new TextEncoder().encode("x".repeat(63) + "\\n"))
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
