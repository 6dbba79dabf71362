/**
 * The mail server URLs `EmailProvider` takes (`src/email/servers.ts`): ports
 * by scheme, STARTTLS required beyond loopback so a password never crosses a
 * network in clear text, and a password never in what a message shows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { mask, parseServer } from "../src/email/servers.js"

describe("mail server URLs", () => {
  it("takes the scheme's port, and requires STARTTLS on a plain scheme unless the server is on loopback", () => {
    expect(parseServer("imap", "imap://ana%40example.com@mail.example.com")).toMatchObject({
      host: "mail.example.com", port: 143, secure: false, requireStartTls: true, user: "ana@example.com"
    })
    expect(parseServer("smtp", "smtp://a@mail.example.com")).toMatchObject({ port: 587, requireStartTls: true })
    expect(parseServer("smtp", "smtps://a@mail.example.com")).toMatchObject({ port: 465, secure: true, requireStartTls: false })
    expect(parseServer("imap", "imaps://a@mail.example.com:1993")).toMatchObject({ port: 1993, secure: true, requireStartTls: false })
    for (const host of ["127.0.0.1", "localhost", "[::1]"]) {
      expect(parseServer("imap", `imap://a@${host}:1143`)).toMatchObject({ requireStartTls: false })
    }
  })

  it("takes the password from the URL, else the one given; shows neither", () => {
    const fromUrl = parseServer("smtp", "smtp://a:p%40ss@127.0.0.1:25", Redacted.make("other"))
    if (typeof fromUrl === "string") throw new Error(fromUrl)
    expect(Redacted.value(fromUrl.password!)).toBe("p@ss")
    expect(fromUrl.shown).toBe("smtp://a:***@127.0.0.1:25")
    const given = parseServer("smtp", "smtp://a@127.0.0.1:25", Redacted.make("other"))
    if (typeof given === "string") throw new Error(given)
    expect(Redacted.value(given.password!)).toBe("other")
    expect(mask(`AUTH PLAIN ${Buffer.from("other").toString("base64")} other p%40ss`, [fromUrl.password, given.password]))
      .toBe("AUTH PLAIN *** *** ***")
  })

  it("says why a URL is none", () => {
    expect(parseServer("smtp", "http://127.0.0.1")).toBe("smtp URL must start with smtp:// or smtps://, not http://")
    expect(parseServer("imap", "imap:x")).toBe("imap URL names no host")
    expect(parseServer("imap", "nothing")).toMatch(/^imap URL is not a URL/)
  })
})
