/**
 * Helpers for the durable end-to-end tests: a store (SQLite file or a given
 * URL) with a request file, the built `ask-user` run to its end, a durable
 * asker, polling a status, kill -9.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type Run, start, tempDir } from "../cliHarness.js"

export const request = {
  questions: [{ id: "q", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] }]
}

export interface Store {
  readonly dir: string
  readonly url: string
  readonly requestFile: string
  readonly file: (name: string, json: unknown) => string
}

export const makeStore = (url?: string): Store => {
  const dir = tempDir()
  const file = (name: string, json: unknown) => {
    const path = join(dir, name)
    writeFileSync(path, JSON.stringify(json))
    return path
  }
  return { dir, url: url ?? `sqlite:${join(dir, "asks.db")}`, requestFile: file("request.json", request), file }
}

/** Runs `ask-user` to its end (stdin closed). */
export const run = async (args: ReadonlyArray<string>) => {
  const child = start(args)
  child.child.stdin!.end()
  const code = await child.exited
  return { code, stdout: child.stdout(), stderr: child.stderr() }
}

export const ask = (store: Store, id: string, ...more: Array<string>): Run => {
  const child = start(["--durable", "--store", store.url, "--ask-id", id, ...more, store.requestFile])
  child.child.stdin!.end()
  return child
}

/** Polls `ask-user status` until the ask's status satisfies `ok` (no timing assertion: the test's own timeout bounds it). */
export const untilStatus = async (store: Store, id: string, ok: (status: string) => boolean) => {
  for (;;) {
    const result = await run(["status", "--store", store.url, id])
    if (result.code === 0 && ok(JSON.parse(result.stdout).status)) return JSON.parse(result.stdout)
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
}

export const killHard = async (child: Run) => {
  child.child.kill("SIGKILL")
  await child.exited
}

