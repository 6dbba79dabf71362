/** examples/web.ts, run as a reader of the docs runs it: answered (or cancelled) over HTTP. */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { postJson, send, waitFor } from "./support/webClient.js"

describe("examples/web.ts", () => {
  it("prints a cancel as one line, the way ask-user does, with no stack trace", async () => {
    const child = spawn(process.execPath, ["examples/web.ts"], { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let stdout = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
    try {
      await waitFor(() => /Answer at .*\n/.test(stderr), 30_000, "the URL line")
      const [, port, token] = /Answer at http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)/.exec(stderr)!
      const auth = { authorization: `Bearer ${decodeURIComponent(token!)}` }
      let id = ""
      await waitFor(async () => {
        id = (await send(Number(port), "/api/questions", { headers: auth })).json?.pending?.[0]?.id ?? ""
        return id !== ""
      }, 15_000, "the pending ask")
      expect((await postJson(Number(port), `/api/questions/${id}/cancel`, decodeURIComponent(token!), {})).status).toBe(200)
      expect(await exited).toBe(1)
      expect(stdout).toBe("")
      const lines = stderr.trimEnd().split("\n")
      expect(lines).toHaveLength(2)
      expect(lines[1]).toBe("example: ASK_CANCELLED: The request was cancelled in the web page.")
    } finally {
      child.kill("SIGKILL")
    }
  })
})
