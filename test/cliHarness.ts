/**
 * Runs the built `ask-user` program (dist/bin/ask-user.js) as a user would,
 * without a controlling terminal (its own session), so that it always takes
 * the line mode or the scripted path, whatever terminal runs the tests.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const program = join(import.meta.dirname, "..", "dist", "bin", "ask-user.js")

export interface Run {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the exit status (or 128 + signal number). */
  readonly exited: Promise<number>
  /** Resolves once stderr contains `text`; rejects when the program exits first. */
  readonly stderrContains: (text: string) => Promise<void>
}

/** The programs `start` ran that have not exited yet. */
const running = new Set<ChildProcess>()

/**
 * Kills (SIGKILL, with their process groups) the programs `start` ran that
 * are still running: a test that fails half-way leaves none behind.
 */
export const killStarted = (): void => {
  for (const child of running) {
    try {
      process.kill(-child.pid!, "SIGKILL")
    } catch {
      // Gone already.
    }
  }
  running.clear()
}

/**
 * Starts the program; `user` runs it as that OS account (`runuser`, which
 * needs root), as another person on the same machine would.
 */
export const start = (
  args: ReadonlyArray<string>,
  options: { readonly env?: NodeJS.ProcessEnv; readonly user?: string } = {}
): Run => {
  const argv = [process.execPath, program, ...args]
  const [command, ...rest] = options.user === undefined ? argv : ["runuser", "-u", options.user, "--", ...argv]
  const child = spawn(command!, rest, {
    detached: true, // a new session: no controlling terminal, so /dev/tty cannot be opened
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...options.env }
  })
  running.add(child)
  child.once("exit", () => running.delete(child))
  // A program that never reads its input (an answers file, a usage error) may have closed it before
  // the test writes: that write's EPIPE says nothing about the program.
  child.stdin!.on("error", () => undefined)
  let out = ""
  let err = ""
  const waiters = new Set<() => void>()
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
  child.stderr!.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8")
    for (const wake of waiters) wake()
  })
  const exited = new Promise<number>((resolve) =>
    child.once("close", (code, signal) => {
      for (const wake of waiters) wake()
      resolve(code ?? 128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 9))
    })
  )
  const stderrContains = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (err.includes(text)) {
          waiters.delete(check)
          resolve()
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check)
          reject(new Error(`exited before stderr showed ${JSON.stringify(text)}; stderr: ${err}`))
        }
      }
      waiters.add(check)
      check()
    })
  return { child, stdout: () => out, stderr: () => err, exited, stderrContains }
}

/** Runs to the end with `input` on stdin (closed afterwards). */
export const runWith = async (args: ReadonlyArray<string>, input = "") => {
  const run = start(args)
  run.child.stdin!.end(input)
  const code = await run.exited
  return { code, stdout: run.stdout(), stderr: run.stderr() }
}

/**
 * Runs to the end with stdout broken: `"full"` writes to /dev/full (ENOSPC),
 * `"closed"` to a pipe whose reader has gone (EPIPE). Resolves with the exit
 * status and stderr.
 */
export const runWithBrokenStdout = async (args: ReadonlyArray<string>, stdout: "full" | "closed") => {
  const full = stdout === "full" ? openSync("/dev/full", "w") : undefined
  const child = spawn(process.execPath, [program, ...args], {
    detached: true,
    stdio: ["ignore", full ?? "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" }
  })
  if (full !== undefined) closeSync(full)
  // The reader goes before the program writes anything.
  child.stdout?.destroy()
  let err = ""
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
  const code = await new Promise<number>((resolve) => child.once("close", (code) => resolve(code ?? -1)))
  return { code, stderr: err }
}

const made: Array<string> = []

/** A fresh temporary directory, removed by `removeTempDirs`. */
export const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "ask-user-"))
  made.push(dir)
  return dir
}

/** Removes every directory made by `tempDir` and `tempFiles`. */
export const removeTempDirs = (): void => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Writes `files` (name -> JSON value or text) into a fresh temporary directory. */
export const tempFiles = (files: Record<string, unknown>): Record<string, string> => {
  const dir = tempDir()
  return Object.fromEntries(Object.entries(files).map(([name, content]) => {
    const path = join(dir, name)
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
    return [name, path]
  }))
}
