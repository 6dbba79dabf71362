import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as UI from "effect-user-interaction"
import { inspect } from "node:util"

const classes = [
  [UI.AskAborted, "AskAborted", "ASK_ABORTED"],
  [UI.EmptyQuestions, "EmptyQuestions", "EMPTY_QUESTIONS"],
  [UI.InvalidRequest, "InvalidRequest", "INVALID_REQUEST"],
  [UI.NoProvider, "NoProvider", "NO_PROVIDER"],
  [UI.DuplicateProvider, "DuplicateProvider", "DUPLICATE_PROVIDER"],
  [UI.AskCancelled, "AskCancelled", "ASK_CANCELLED"],
  [UI.AskDeclined, "AskDeclined", "ASK_DECLINED"],
  [UI.AskTimeout, "AskTimeout", "ASK_TIMEOUT"],
  [UI.InvalidAnswer, "InvalidAnswer", "INVALID_ANSWER"],
  [UI.ProviderClosed, "ProviderClosed", "PROVIDER_CLOSED"],
  [UI.ProviderFailed, "ProviderFailed", "PROVIDER_FAILED"],
  [UI.AskNotPending, "AskNotPending", "ASK_NOT_PENDING"],
  [UI.UnknownAsk, "UnknownAsk", "UNKNOWN_ASK"],
  [UI.NotAuthorized, "NotAuthorized", "NOT_AUTHORIZED"],
  [UI.AskClaimed, "AskClaimed", "ASK_CLAIMED"]
] as const

describe("error classes", () => {
  it("cover every code of the contract, once each", () => {
    expect(classes.map(([, , code]) => code)).toEqual([...UI.errorCodes])
  })

  it.each(classes)("%o has its tag, code, name, default message and base class", (Class, tag, code) => {
    const error = new Class()
    expect(error._tag).toBe(tag)
    expect(error.code).toBe(code)
    expect(error.name).toBe("UserInteractionError")
    expect(error).toBeInstanceOf(UI.HarnessError)
    expect(error).toBeInstanceOf(Error)
    expect(error.message.length).toBeGreaterThan(0)
    expect(error.cause).toBeUndefined()
    expect(UI.isUserInteractionError(error)).toBe(true)
    expect(JSON.parse(JSON.stringify(error))).toEqual({ name: "UserInteractionError", code, message: error.message })
  })

  it.each(classes)("%o keeps a given message and cause", (Class) => {
    const cause = new Error("root")
    const error = new Class({ message: "custom text", cause })
    expect(error.message).toBe("custom text")
    expect(error.cause).toBe(cause)
    expect(String(error)).toContain("custom text")
    // console.log shows the cause with its stack, for whoever debugs it; JSON never carries it.
    const shown = inspect(error)
    expect(shown).toContain("code: '")
    expect(shown).toMatch(/cause: Error: root\n\s+at /)
    expect(JSON.stringify(error)).not.toContain("root")
    expect(inspect(new Class())).not.toContain("cause")
  })

  it.effect("are yieldable and caught by tag", () =>
    Effect.gen(function*() {
      const caught = yield* Effect.gen(function*() {
        return yield* new UI.AskDeclined()
      }).pipe(Effect.catchTag("AskDeclined", (e) => Effect.succeed(e.code)))
      expect(caught).toBe("ASK_DECLINED")
    }))

  it("reject as themselves from runPromise, keeping { name, code }", async () => {
    const error = await Effect.runPromise(Effect.fail(new UI.AskTimeout())).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UI.AskTimeout)
    expect(error).toMatchObject({ name: "UserInteractionError", code: "ASK_TIMEOUT" })
  })

  it("are not confused with other errors", () => {
    expect(UI.isUserInteractionError(new Error("x"))).toBe(false)
    expect(UI.isUserInteractionError({ name: "UserInteractionError", code: "ASK_ABORTED" })).toBe(false)
  })
})
