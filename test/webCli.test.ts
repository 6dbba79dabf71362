/**
 * `ask-user --web` and `--web --terminal`, as a user runs them: the built
 * program, real HTTP, a request file, the answer on stdout.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { connect, createServer, type Socket } from "node:net"
import { hostname, userInfo } from "node:os"
import { dirname, join } from "node:path"
import { program, start, tempFiles } from "./cliHarness.js"
import { openEvents, postJson, send, waitFor } from "./support/webClient.js"

const token = "cli-token"
const request = {
  questions: [{ id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] }]
}
const answer = { answers: [{ id: "go", selected: ["yes"] }] }

/** Starts `ask-user --web …` and waits for its first stderr line. */
const startWeb = async (extra: ReadonlyArray<string> = []) => {
  const { file } = tempFiles({ file: request })
  const run = start(["--web", "--token", token, ...extra, file!])
  await run.stderrContains("\n")
  const first = run.stderr().split("\n")[0]!
  const match = /^Answer at http:\/\/127\.0\.0\.1:(\d+)\/\?token=(.+)$/.exec(first)
  if (match === null) throw new Error(`unexpected first stderr line: ${first}`)
  return { run, port: Number(match[1]), token: match[2]! }
}

const pendingId = async (port: number) => {
  let id = ""
  await waitFor(async () => {
    const reply = await send(port, "/api/questions", { headers: { authorization: `Bearer ${token}` } })
    id = reply.json?.pending?.[0]?.id ?? ""
    return id !== ""
  }, 15_000, "a pending ask")
  return id
}

/** A POST whose headers go out now and whose body goes out when `finish` is called. */
const slowPost = (port: number, path: string, body: string) => {
  let finish = () => {}
  const reply = new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      headers: {
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body))
      }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }))
    })
    req.on("error", reject)
    req.flushHeaders()
    finish = () => req.end(body)
  })
  return { reply, finish: () => finish() }
}

describe("ask-user --web", () => {
  it("prints the URL first, takes the answer over HTTP, answers a request already received with 404, and exits 0", async () => {
    const { port, run, token: printed } = await startWeb()
    try {
      expect(printed).toBe(token)
      const events = await openEvents(port, token)
      const id = await pendingId(port)
      const path = `/api/questions/${id}/answer`

      // A second answer is received (headers in, body still on its way) before the first one wins.
      const late = slowPost(port, path, JSON.stringify({ answers: [{ id: "go", selected: ["no"] }] }))
      await send(port, "/api/questions", { headers: { authorization: `Bearer ${token}` } })
      const first = await postJson(port, path, token, answer)
      expect(first.status).toBe(200)
      late.finish()
      expect(await late.reply).toEqual({ status: 404, json: { error: "not-pending" } })

      expect(await run.exited).toBe(0)
      expect(JSON.parse(run.stdout())).toEqual(answer)
      await waitFor(events.ended, 10_000, "the event stream to end")
      // The stream's last event tells the page not to reconnect.
      expect(events.events).toEqual([
        { event: "asked", data: expect.objectContaining({ id }) },
        { event: "resolved", data: { id, outcome: "answered" } },
        { event: "closing", data: { unanswered: 0, cancelled: 0 } }
      ])
      expect(await send(port, "/api/questions").then(() => "open", (e) => e.code)).toBe("ECONNREFUSED")
    } finally {
      run.child.kill("SIGKILL")
    }
  })

  it("answers every one of 50 concurrent answers on kept-alive sockets while it exits: one 200, 49 404, no reset", async () => {
    const { port, run } = await startWeb()
    const agent = new Agent({ keepAlive: true, maxSockets: 50 })
    /** A request; `sent` resolves once its bytes are handed to the kernel. */
    const call = (method: string, path: string, body?: string) => {
      let markSent = () => {}
      const sent = new Promise<void>((resolve) => (markSent = resolve))
      const reply = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
        const req = httpRequest({
          host: "127.0.0.1",
          port,
          path,
          method,
          agent,
          headers: {
            host: `127.0.0.1:${port}`,
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" })
          }
        }, (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => (text += chunk))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
          res.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
        })
        req.on("finish", markSent)
        req.on("error", (error: NodeJS.ErrnoException) => {
          markSent()
          resolve({ error: error.code ?? error.message })
        })
        req.end(body)
      })
      return { sent, reply }
    }
    try {
      const id = await pendingId(port)
      // Fifty sockets, each kept alive after a first request.
      const warm = await Promise.all(Array.from({ length: 50 }, () => call("GET", "/api/questions").reply))
      expect(warm.every((r) => "status" in r && r.status === 200)).toBe(true)
      // The program is stopped while the fifty answers are written, so every one of them is
      // already sent when the first wins and the program begins to exit (a loaded machine
      // cannot deschedule this process midway through the burst and so make some late).
      run.child.kill("SIGSTOP")
      const calls = Array.from({ length: 50 }, () => call("POST", `/api/questions/${id}/answer`, JSON.stringify(answer)))
      await Promise.all(calls.map((c) => c.sent))
      run.child.kill("SIGCONT")
      const replies = await Promise.all(calls.map((c) => c.reply))
      const outcome = (r: (typeof replies)[number]) => "error" in r ? r.error : `${r.status} ${r.body}`
      const counts = new Map<string, number>()
      for (const reply of replies) counts.set(outcome(reply), (counts.get(outcome(reply)) ?? 0) + 1)
      expect(Object.fromEntries(counts)).toEqual({ "200 {\"ok\":true}": 1, "404 {\"error\":\"not-pending\"}": 49 })
      expect(await run.exited).toBe(0)
    } finally {
      agent.destroy()
      run.child.kill("SIGKILL")
    }
  })

  it("exits within two seconds of the answer whatever other clients hold: nothing sent, half a header, half a body", async () => {
    const { port, run } = await startWeb()
    const sockets: Array<Socket> = []
    const open = (text: string) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(text))
      socket.on("error", () => undefined)
      sockets.push(socket)
    }
    try {
      const id = await pendingId(port)
      open("")
      open(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `)
      open(
        `POST /api/questions/${id}/answer HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ans`
      )
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect((await postJson(port, `/api/questions/${id}/answer`, token, answer)).status).toBe(200)
      const answered = Date.now()
      expect(await run.exited).toBe(0)
      expect(Date.now() - answered).toBeLessThan(2_000)
      expect(JSON.parse(run.stdout())).toEqual(answer)
    } finally {
      for (const socket of sockets) socket.destroy()
      run.child.kill("SIGKILL")
    }
  })

  it("refuses a POST body that is not application/json with 415", async () => {
    const { port, run } = await startWeb()
    try {
      const id = await pendingId(port)
      const body = JSON.stringify(answer)
      for (const type of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
        const reply = await send(port, `/api/questions/${id}/answer`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, ...(type === undefined ? {} : { "content-type": type }) },
          body
        })
        expect(reply.status, String(type)).toBe(415)
        expect(reply.json).toMatchObject({ error: "unsupported-media-type" })
      }
      // Still pending: a JSON answer (with a charset parameter) wins.
      const ok = await postJson(port, `/api/questions/${id}/answer`, token, answer, {
        "content-type": "application/json; charset=utf-8"
      })
      expect(ok.status).toBe(200)
      expect(await run.exited).toBe(0)
    } finally {
      run.child.kill("SIGKILL")
    }
  })

  it("exits 3 when the request is cancelled in the page", async () => {
    const { port, run } = await startWeb()
    try {
      const id = await pendingId(port)
      expect((await postJson(port, `/api/questions/${id}/cancel`, token, {})).status).toBe(200)
      expect(await run.exited).toBe(3)
      expect(run.stdout()).toBe("")
    } finally {
      run.child.kill("SIGKILL")
    }
  })

  it("exits 1 with a message when the port is taken", async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const { file } = tempFiles({ file: request })
      const run = start(["--web", "--port", String(port), file!])
      run.child.stdin!.end()
      expect(await run.exited).toBe(1)
      expect(run.stderr()).toContain(`127.0.0.1:${port}`)
      expect(run.stdout()).toBe("")
    } finally {
      blocker.close()
    }
  })

  it("with --terminal, an answer in the page takes the terminal prompt down", async () => {
    const { port, run } = await startWeb(["--terminal"])
    try {
      // No controlling terminal here: the terminal side is in line mode on stderr.
      await run.stderrContains("yes")
      const id = await pendingId(port)
      expect((await postJson(port, `/api/questions/${id}/answer`, token, answer)).status).toBe(200)
      expect(await run.exited).toBe(0)
      expect(JSON.parse(run.stdout())).toEqual(answer)
    } finally {
      run.child.kill("SIGKILL")
    }
  })

  it("with --terminal, an answer on the terminal resolves the page's entry `aborted`, saying the terminal answered", async () => {
    const { port, run } = await startWeb(["--terminal"])
    try {
      const events = await openEvents(port, token)
      const id = await pendingId(port)
      await run.stderrContains("yes")
      run.child.stdin!.write("2\n")
      expect(await run.exited).toBe(0)
      expect(JSON.parse(run.stdout())).toEqual({ answers: [{ id: "go", selected: ["no"] }] })
      expect((await events.next((e) => e.event === "resolved")).data).toEqual({
        id,
        outcome: "aborted",
        surface: "terminal",
        where: "the terminal",
        settled: "answered"
      })
    } finally {
      run.child.kill("SIGKILL")
    }
  })

  it("--receipt with --terminal names the surface and who answered: web:token in the page, the account on the terminal", async () => {
    const me = `os:${userInfo().username}@${hostname()}`
    const page = await startWeb(["--terminal", "--receipt"])
    try {
      await page.run.stderrContains("yes")
      const id = await pendingId(page.port)
      expect((await postJson(page.port, `/api/questions/${id}/answer`, token, answer)).status).toBe(200)
      expect(await page.run.exited).toBe(0)
      const printed = JSON.parse(page.run.stdout())
      expect(printed).toEqual({ ...answer, receipt: { surface: "web", by: { id: "web:token" }, at: expect.any(String), millis: expect.any(Number) } })
      expect(new Date(printed.receipt.at).toISOString()).toBe(printed.receipt.at)
    } finally {
      page.run.child.kill("SIGKILL")
    }
    const terminal = await startWeb(["--terminal", "--receipt"])
    try {
      await terminal.run.stderrContains("yes")
      await pendingId(terminal.port)
      terminal.run.child.stdin!.write("2\n")
      expect(await terminal.run.exited).toBe(0)
      expect(JSON.parse(terminal.run.stdout()).receipt).toMatchObject({ surface: "terminal", by: { id: me } })
    } finally {
      terminal.run.child.kill("SIGKILL")
    }
  })
})


describe("ask-user --web --terminal in a real terminal (tmux)", () => {
  it("an answer in the page takes the terminal prompt down and restores the terminal", async () => {
    const socket = `ask-user-web-${process.pid}`
    const tmux = (...args: ReadonlyArray<string>) =>
      execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" })
    const { file } = tempFiles({ file: request })
    const dir = dirname(file!)
    const [out, err, status, stty] = [join(dir, "out"), join(dir, "err"), join(dir, "status"), join(dir, "stty")] as const
    const command = `${process.execPath} ${program} --web --terminal --token ${token} ${file} >${out} 2>${err}; ` +
      `echo $? >${status}; stty -a >${stty}; echo DONE; sleep 600`
    try {
      tmux("new-session", "-d", "-s", "web", "-x", "100", "-y", "30", "sh", "-c", command)
      const screen = () => tmux("capture-pane", "-p", "-t", "web")
      await waitFor(() => existsSync(err) && readFileSync(err, "utf8").includes("\n"), 15_000, "the URL line")
      const port = Number(/^Answer at http:\/\/127\.0\.0\.1:(\d+)\//.exec(readFileSync(err, "utf8"))?.[1])
      await waitFor(() => screen().includes("Deploy now?"), 15_000, "the terminal prompt")
      const id = await pendingId(port)
      expect((await postJson(port, `/api/questions/${id}/answer`, token, answer)).status).toBe(200)
      await waitFor(() => screen().includes("DONE"), 15_000, "the program to end")
      expect(readFileSync(status, "utf8").trim()).toBe("0")
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(answer)
      // The prompt came down and the terminal says where the answer came from.
      expect(screen()).toContain("Answered in the web page.")
      expect(screen()).not.toContain("Deploy now?")
      const settings = ` ${readFileSync(stty, "utf8").replace(/\s+/g, " ")} `
      expect(settings).toContain(" icanon ")
      expect(settings).toContain(" echo ")
      expect(tmux("display-message", "-p", "-t", "web", "#{cursor_flag}").trim()).toBe("1")
    } finally {
      spawnSync("tmux", ["-L", socket, "kill-server"])
    }
  })
})
