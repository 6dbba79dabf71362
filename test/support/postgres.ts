/**
 * A private PostgreSQL server for tests and benchmarks: `initdb` and `pg_ctl`
 * from Debian's `postgresql` package (`.ci/run` installs it), a cluster in a
 * temporary directory listening on a free loopback port, run as the
 * `postgres` user when we are root (the server refuses to run as root), and
 * stopped and removed by `stop()`.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
// `.ts`: benchmarks run this file with Node directly, which resolves no `.js` to a `.ts`.
import { freePort } from "./freePort.ts"

/** The directory holding `initdb` and `pg_ctl`, newest version first; undefined when PostgreSQL is not installed. */
export const postgresBin = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  return versions.map((v) => join(root, v, "bin")).find((bin) => existsSync(join(bin, "pg_ctl")))
}

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string
  /** The same database through the server's Unix socket, in libpq's form: `postgres://postgres@/postgres?host=DIR&port=PORT` */
  readonly socketUrl: string
  /** Creates an empty database on the server and returns its URL. */
  readonly createDatabase: (name: string) => string
  /** Stops the server (fast: clients are disconnected), waits `downMillis`, and starts it again. */
  readonly restart: (downMillis: number) => Promise<void>
  readonly stop: () => void
}

/** Runs one SQL statement with `psql` on the database at `url`; a query's rows as the text of their first column. */
export const psql = (url: string, statement: string): ReadonlyArray<string> => {
  const bin = postgresBin()
  if (bin === undefined) throw new Error("PostgreSQL is not installed: apt-get install -y postgresql")
  const out = execFileSync(join(bin, "psql"), [url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement], { encoding: "utf8" })
  return /^\s*select/i.test(statement) ? out.split("\n").filter((line) => line !== "").map((line) => line.split("|")[0]!) : []
}

/**
 * Starts a private PostgreSQL cluster; throws with the install hint when the
 * binaries are missing. `settings` are more server settings (`name=value`).
 */
export const startPostgres = async (settings: ReadonlyArray<string> = []): Promise<PostgresServer> => {
  const bin = postgresBin()
  if (bin === undefined) throw new Error("PostgreSQL is not installed: apt-get install -y postgresql")
  const dir = mkdtempSync(join(tmpdir(), "ask-user-pg-"))
  // The server runs as `postgres` when we are root: it must own the cluster directory.
  chmodSync(dir, 0o777)
  const asUser = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : []
  const run = (tool: string, args: ReadonlyArray<string>) => {
    const [command, ...rest] = [...asUser, join(bin, tool), ...args]
    execFileSync(command!, rest, { stdio: "pipe" })
  }
  const data = join(dir, "data")
  const port = await freePort()
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  const start = () =>
    run("pg_ctl", [
      "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60",
      "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200${settings.map((s) => ` -c ${s}`).join("")}`,
      "start"
    ])
  start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketUrl: `postgres://postgres@/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
    createDatabase: (name) => {
      execFileSync(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name], { stdio: "pipe" })
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    restart: async (downMillis) => {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
      await new Promise((resolve) => setTimeout(resolve, downMillis))
      start()
    },
    stop: () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}
