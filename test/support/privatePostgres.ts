/**
 * A test file's private PostgreSQL server (`postgres.ts`): started before
 * its tests (or the `describe` it is called in), stopped after them, with a
 * fresh database for each test that wants one. Vitest hooks, so benchmarks
 * use `postgres.ts` itself.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { type PostgresServer, startPostgres } from "./postgres.js"

/** Registers the server's start and stop; `server()` is valid inside the tests. */
export const privatePostgres = () => {
  let started: PostgresServer | undefined
  beforeAll(async () => {
    started = await startPostgres()
  }, 120_000)
  afterAll(() => started?.stop())
  const server = () => {
    if (started === undefined) throw new Error("The private PostgreSQL server is used before its tests start.")
    return started
  }
  /** A new empty database on the server, named `<prefix>_<random>`. */
  const newDatabase = (prefix = "asks") => server().createDatabase(`${prefix}_${randomUUID().replaceAll("-", "")}`)
  return { server, newDatabase }
}
