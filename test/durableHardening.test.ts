/**
 * SPEC "Durable store hardening", end to end over SQLite files with the built
 * `ask-user`: the store private to its owner whatever the umask (another user
 * cannot read it), the request file's own id, the 64 KiB answer limit and
 * the answer kept once, and a store that cannot serve the engine (damaged,
 * locked for good, a path that cannot be made) ending each command with
 * PROVIDER_FAILED naming it, never a hang, and a signal ending the wait at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, closeSync, existsSync, openSync, statSync, writeSync } from "node:fs"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { storeTimingsKey } from "../src/durable/storeTimings.js"
import { type Run, start, tempDir } from "./cliHarness.js"
import {
  askPending,
  holdLock,
  killHard,
  makeStore,
  request,
  run,
  shortStoreTimingsEnv as shortTimings,
  type Store,
  untilStatus
} from "./support/durableCli.js"

const yes = { answers: [{ id: "q", selected: ["Yes"] }] }

/** `start`, with the process's umask set to `mask` for the child alone (it inherits it when spawned). */
const startWithUmask = (mask: number, args: ReadonlyArray<string>): Run => {
  const previous = process.umask(mask)
  try {
    const child = start(args)
    child.child.stdin!.end()
    return child
  } finally {
    process.umask(previous)
  }
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)

/** Whether the user `nobody` can read `path` (we run as root, so `runuser` works). */
const nobodyReads = (path: string) => spawnSync("runuser", ["-u", "nobody", "--", "cat", path], { stdio: "ignore" }).status === 0

/** SQLite's files for the store at `file` that exist now. */
const storeFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`].filter((path) => existsSync(path))

/** How many times `marker` occurs in every table of the SQLite file (the WAL's pages included). */
const occurrences = (file: string, marker: string): number => {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    let count = 0
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()
    for (const { name } of tables) {
      const statement = db.prepare(`SELECT * FROM "${String(name)}"`)
      statement.setReadBigInts(true)
      for (const row of statement.all()) {
        for (const value of Object.values(row)) {
          const text = value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : String(value)
          count += text.split(marker).length - 1
        }
      }
    }
    return count
  } finally {
    db.close()
  }
}

/** Escapes `text` for a regular expression. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** `--durable` (asking `newId`), `pending` and `answer` (answering `pendingId`) on `store`. */
const storeCommands = (store: Store, newId: string, pendingId: string) => [
  ["--durable", "--store", store.url, "--ask-id", newId, store.requestFile],
  ["pending", "--store", store.url],
  ["answer", "--store", store.url, pendingId, store.file("yes.json", yes)]
]

/** A store with a pending ask whose asker has ended (SIGTERM: its WAL is folded into the file). */
const storeWithAsk = async (id: string): Promise<Store & { readonly path: string }> => {
  const store = makeStore()
  const asker = await askPending(store, id)
  asker.child.kill("SIGTERM")
  expect(await asker.exited).toBe(143)
  return { ...store, path: join(store.dir, "asks.db") }
}

describe("a durable store is private to its owner", () => {
  for (const umask of [0o022, 0o000]) {
    it(`under umask ${umask.toString(8).padStart(3, "0")}: folders made 0700, asks.db with its -wal and -shm 0600, nobody else reads them`, async () => {
      const root = tempDir()
      // Others may look into the folder the store is put in, as into a home directory.
      chmodSync(root, 0o755)
      const nested = makeStore(`sqlite:${join(root, "state", "ask-user", "asks.db")}`)
      const flat = makeStore(`sqlite:${join(root, "asks.db")}`)
      const askers = [nested, flat].map((store) =>
        startWithUmask(umask, ["--durable", "--store", store.url, "--ask-id", "private-1", store.requestFile])
      )
      await untilStatus(nested, "private-1", (status) => status === "pending", askers[0])
      await untilStatus(flat, "private-1", (status) => status === "pending", askers[1])

      expect([mode(join(root, "state")), mode(join(root, "state", "ask-user"))]).toEqual(["700", "700"])
      for (const file of [join(root, "state", "ask-user", "asks.db"), join(root, "asks.db")]) {
        // The asker holds the store open: its WAL and shared-memory files exist.
        const files = storeFiles(file)
        expect(files).toHaveLength(3)
        expect(files.map(mode)).toEqual(["600", "600", "600"])
        expect(files.map(nobodyReads)).toEqual([false, false, false])
      }
      for (const asker of askers) await killHard(asker)
    }, 90_000)
  }

  it("an existing store others can read is made private when its owner opens it; another user's is named in one warning", async () => {
    const store = makeStore()
    const file = join(store.dir, "asks.db")
    const asker = await askPending(store, "loose-1")
    for (const path of storeFiles(file)) chmodSync(path, 0o644)
    const opened = await run(["pending", "--store", store.url])
    expect(opened.code).toBe(0)
    expect(opened.stderr).toBe("")
    expect(storeFiles(file).map(mode)).toEqual(["600", "600", "600"])
    await killHard(asker)

    // Root may open another user's store, but it is that user's to change.
    for (const path of storeFiles(file)) {
      chownSync(path, 65534, 65534)
      chmodSync(path, 0o644)
    }
    const warned = await run(["pending", "--store", store.url])
    expect(warned.code).toBe(0)
    expect(JSON.parse(warned.stdout).id).toBe("loose-1")
    const lines = warned.stderr.trimEnd().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      new RegExp(`^ask-user: WARN: the durable store ${literally(file)} can be read by other users .*asks\\.db 0644, owned by uid 65534`)
    )
    expect(mode(file)).toBe("644")
  }, 90_000)
})

describe("the request file's id", () => {
  it("is the ask's identity: rerunning the file after a crash joins the ask; --ask-id wins; over 200 characters is exit 2", async () => {
    const store = makeStore()
    const withId = store.file("with-id.json", { ...request, id: "deploy-7" })
    const first = start(["--durable", "--store", store.url, withId])
    first.child.stdin!.end()
    await untilStatus(store, "deploy-7", (status) => status === "pending", first)
    await killHard(first)
    // It has an id: nothing to tell the person about a random one.
    expect(first.stderr()).toBe("")

    const rerun = start(["--durable", "--store", store.url, withId])
    rerun.child.stdin!.end()
    const listed = (await run(["pending", "--store", store.url])).stdout.trim().split("\n")
    expect(listed.map((line) => JSON.parse(line).id)).toEqual(["deploy-7"])
    expect((await run(["answer", "--store", store.url, "deploy-7", store.file("yes.json", yes)])).code).toBe(0)
    expect(await rerun.exited).toBe(0)
    expect(JSON.parse(rerun.stdout())).toEqual(yes)

    const overridden = start(["--durable", "--store", store.url, "--ask-id", "override-1", withId])
    overridden.child.stdin!.end()
    await untilStatus(store, "override-1", (status) => status === "pending", overridden)
    await killHard(overridden)

    for (const id of ["x".repeat(201), ""]) {
      const file = store.file("bad-id.json", { ...request, id })
      for (const args of [[file], ["--ask-id", "given-1", file]]) {
        const refused = await run(["--durable", "--store", store.url, ...args])
        expect(refused.code).toBe(2)
        expect(refused.stdout).toBe("")
        expect(refused.stderr).toMatch(/^ask-user: INVALID_REQUEST: Invalid request: id: [^\n]*\n$/)
      }
    }
    expect((await run(["status", "--store", store.url, "given-1"])).code).toBe(6)
  }, 90_000)
})

describe("the 64 KiB answer limit", () => {
  it("an answer over 64 KiB, in either form, is INVALID_ANSWER naming the limit and nothing is recorded; 63 KiB is taken and kept once", async () => {
    const store = makeStore()
    const asker = await askPending(store, "big-1")
    const text = (kib: number) => `MARK${"x".repeat(kib * 1024 - 4)}`
    const tooLarge = [
      store.file("65.json", { answers: [{ id: "q", selected: [], custom: text(65) }] }),
      store.file("65-keyed.json", { q: text(65) })
    ]
    for (const file of tooLarge) {
      const refused = await run(["answer", "--store", store.url, "big-1", file])
      expect(refused.code).toBe(2)
      expect(refused.stdout).toBe("")
      expect(refused.stderr).toMatch(/^ask-user: INVALID_ANSWER: [^\n]*over the limit of 64 KiB \(65536 bytes\)[^\n]*\n$/)
    }
    expect(JSON.parse((await run(["status", "--store", store.url, "big-1"])).stdout)).toEqual({ id: "big-1", status: "pending" })

    const taken = { answers: [{ id: "q", selected: [], custom: text(63) }] }
    expect((await run(["answer", "--store", store.url, "big-1", store.file("63.json", taken)])).code).toBe(0)
    expect(await asker.exited).toBe(0)
    expect(JSON.parse(asker.stdout())).toEqual(taken)
    // The asks table holds it; the engine's messages and replies carry only that the ask was answered.
    expect(occurrences(join(store.dir, "asks.db"), "MARK")).toBe(1)
    expect(JSON.parse((await run(["status", "--store", store.url, "big-1"])).stdout).answer).toEqual(taken)
  }, 90_000)
})

describe("a store that cannot serve the engine", () => {
  it("the preload of the locked-store tests sets the timings the store reads", () => {
    const read = spawnSync(process.execPath, [
      "-e",
      `console.log(JSON.stringify(globalThis[Symbol.for(${JSON.stringify(storeTimingsKey)})]))`
    ], { env: { ...process.env, ...shortTimings }, encoding: "utf8" })
    expect(JSON.parse(read.stdout)).toEqual({ busyMillis: 300, giveUpMillis: 2_000 })
  })

  it("a damaged file: --durable, pending and answer each end at once with PROVIDER_FAILED naming the store and the damage", async () => {
    const store = await storeWithAsk("dmg-1")
    // Compacted first, so that every page is in use: a free page's content is never read.
    const db = new DatabaseSync(store.path)
    db.exec("VACUUM")
    db.close()
    const size = statSync(store.path).size
    const fd = openSync(store.path, "r+")
    writeSync(fd, randomBytes(8192), 0, 8192, Math.floor(size / 3))
    closeSync(fd)

    for (const args of storeCommands(store, "dmg-2", "dmg-1")) {
      const began = Date.now()
      const result = await run(args)
      expect(Date.now() - began).toBeLessThan(60_000)
      expect([args[0], result.code, result.stdout]).toEqual([args[0], 1, ""])
      expect(result.stderr).toMatch(
        new RegExp(`^ask-user: PROVIDER_FAILED: Cannot open the durable store ${literally(store.url)}: it is damaged \\(SQLite: [^\\n]*\\)\\n$`)
      )
    }
  }, 120_000)

  it("a path that cannot be made (under /proc, under a file): --durable exits 1 at once naming the store", async () => {
    const requestFile = makeStore().requestFile
    for (const url of ["sqlite:/proc/nope/x.db", "sqlite:/dev/null/x.db"]) {
      const began = Date.now()
      const result = await run(["--durable", "--store", url, "--ask-id", "nowhere", requestFile])
      expect(Date.now() - began).toBeLessThan(10_000)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(new RegExp(`^ask-user: PROVIDER_FAILED: Cannot open the durable store ${literally(url)}: [^\\n]*\\n$`))
    }
  }, 60_000)

  it("locked for good by another process: each command ends PROVIDER_FAILED saying another process holds it", async () => {
    const store = await storeWithAsk("lock-1")
    const lock = await holdLock(store.path)
    try {
      for (const args of storeCommands(store, "lock-2", "lock-1")) {
        const child = start(args, { env: shortTimings })
        child.child.stdin!.end()
        expect([args[0], await child.exited]).toEqual([args[0], 1])
        expect(child.stderr()).toMatch(new RegExp(
          `^ask-user: PROVIDER_FAILED: Cannot open the durable store ${literally(store.url)}: ` +
            "another process holds it locked \\(SQLite: database is locked\\)\\n$"
        ))
      }
    } finally {
      lock.release()
    }
  }, 60_000)

  it("locked while an asker waits: it gives up, saying so and that the ask stays pending", async () => {
    const store = makeStore()
    const asker = start(["--durable", "--store", store.url, "--ask-id", "lock-3", store.requestFile], { env: shortTimings })
    asker.child.stdin!.end()
    await untilStatus(store, "lock-3", (status) => status === "pending", asker)
    const lock = await holdLock(join(store.dir, "asks.db"))
    try {
      expect(await asker.exited).toBe(1)
    } finally {
      lock.release()
    }
    expect(asker.stderr()).toContain(
      `ask-user: PROVIDER_FAILED: The durable store ${store.url} cannot be used: another process holds it locked ` +
        `(SQLite: database is locked); the ask "lock-3" stays pending`
    )
    expect(JSON.parse((await run(["status", "--store", store.url, "lock-3"])).stdout).status).toBe("pending")
  }, 60_000)

  it("SIGTERM ends --durable, pending and answer at once while they wait for a lock", async () => {
    const store = await storeWithAsk("lock-4")
    const lock = await holdLock(store.path)
    try {
      const children = storeCommands(store, "lock-5", "lock-4").map((args) => {
        const child = start(args)
        child.child.stdin!.end()
        return child
      })
      // Well into the 10 s each statement waits for the lock.
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      const signalled = Date.now()
      for (const child of children) child.child.kill("SIGTERM")
      expect(await Promise.all(children.map((child) => child.exited))).toEqual([143, 143, 143])
      expect(Date.now() - signalled).toBeLessThan(3_000)
    } finally {
      lock.release()
    }
  }, 60_000)
})
