/**
 * Helpers for the durable end-to-end tests: a store (SQLite file or a given
 * URL) with a request file, the built `ask-user` run to its end, a durable
 * asker, polling a status, kill -9.
 */
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type Run, start, tempDir } from "../cliHarness.js"

/**
 * The environment that runs `ask-user` with short store timings (a lock
 * waited for 300 ms, a failing store given up on after 2 s): see
 * `shortStoreTimings.ts`.
 */
export const shortStoreTimingsEnv = {
  NODE_OPTIONS: `--import=${join(import.meta.dirname, "shortStoreTimings.ts")}`
}

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

/** Runs `ask-user` to its end (stdin closed), as `user` when given (see `start`). */
export const run = async (args: ReadonlyArray<string>, options: { readonly user?: string } = {}) => {
  const child = start(args, options)
  child.child.stdin!.end()
  const code = await child.exited
  return { code, stdout: child.stdout(), stderr: child.stderr() }
}

export const ask = (store: Store, id: string, ...more: Array<string>): Run => askFile(store, id, store.requestFile, ...more)

/** A durable asker of the request in `requestFile`. */
export const askFile = (store: Store, id: string, requestFile: string, ...more: Array<string>): Run => {
  const child = start(["--durable", "--store", store.url, "--ask-id", id, ...more, requestFile])
  child.child.stdin!.end()
  return child
}

/** Starts a durable asker and waits until its ask is pending; the asker is still waiting. */
export const askPending = async (store: Store, id: string, ...more: Array<string>): Promise<Run> => {
  const asker = ask(store, id, ...more)
  await untilStatus(store, id, (status) => status === "pending", asker)
  return asker
}

/**
 * Polls `ask-user status` until the ask's status satisfies `ok`. A status that
 * can no longer change (settled, but not the one awaited) fails at once, and
 * so does a wait past a minute, naming the last status and the asker's stderr:
 * a missed window must read as such, not as a test timeout.
 */
export const untilStatus = async (
  store: Store,
  id: string,
  ok: (status: string) => boolean,
  asker?: Run
) => {
  const deadline = Date.now() + 60_000
  let last = "(no answer yet)"
  for (;;) {
    const result = await run(["status", "--store", store.url, id])
    last = result.code === 0 ? result.stdout.trim() : `exit ${result.code}: ${result.stderr.trim()}`
    if (result.code === 0) {
      const report = JSON.parse(result.stdout)
      if (ok(report.status)) return report
      if (report.status !== "pending") throw new Error(`ask ${id} settled as ${last} before the awaited status`)
    }
    if (Date.now() > deadline) {
      throw new Error(`ask ${id}: still ${last} after 60 s; asker stderr: ${asker?.stderr() ?? "(none)"}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
}

/** Waits until the wall clock is past `epochMillis`. */
export const untilPast = (epochMillis: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMillis - Date.now())))

export const killHard = async (child: Run) => {
  child.child.kill("SIGKILL")
  await child.exited
}

/**
 * Another process holding the SQLite file's write lock (`BEGIN EXCLUSIVE`,
 * a table created in it) until `release`.
 */
export const holdLock = async (file: string) => {
  const holder = spawn(process.execPath, ["-e", `
    const db = new (require("node:sqlite").DatabaseSync)(${JSON.stringify(file)})
    db.exec("BEGIN EXCLUSIVE"); db.exec("CREATE TABLE held (x)"); console.log("held")
    setInterval(() => {}, 1000)
  `], { stdio: ["ignore", "pipe", "ignore"] })
  await new Promise((resolve) => holder.stdout.once("data", resolve))
  return { release: () => void holder.kill("SIGKILL") }
}
