/**
 * SPEC "Vocabulary, second edition": the request fields `recommended`,
 * `preview`, `secret`, `timeout` and `onTimeout`, their checks (each refusal
 * is INVALID_REQUEST naming the path), the model-facing argument schema
 * (`on_timeout` and `onTimeout`, as `multi_select` and `multiSelect`) and the
 * JSON the command line reads.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Result, Stream } from "effect"
import { Tool } from "effect/ai"
import {
  AskUserQuestionArgs,
  AskUserQuestionHandlers,
  AskUserQuestionTool,
  AskUserQuestionToolkit,
  decodeRequest,
  decodeRequestJson,
  isRecommended,
  ScriptedProvider,
  UserInteraction
} from "effect-user-interaction"

const failure = <E>(r: Result.Result<unknown, E>): E => {
  if (Result.isSuccess(r)) throw new Error(`expected a failure, got ${JSON.stringify(r.success)}`)
  return r.failure
}

const options = (...labels: Array<string | { label: string; recommended?: boolean; preview?: string }>) =>
  labels.map((o) => typeof o === "string" ? { label: o } : o)

const one = (question: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({
  questions: [{ id: "go", question: "Go?", ...question }],
  ...rest
})

/** Both decoders refuse it, with this path and reason. */
const refusedBoth = (input: unknown, path: string, reason: string) => {
  for (const decode of [decodeRequest, decodeRequestJson]) {
    const error = failure(decode(input))
    expect(error._tag).toBe("InvalidRequest")
    expect(error.message).toContain(`${path}: ${reason}`)
  }
}

describe("recommended", () => {
  it("is recommended: true, or a label ending \" (Recommended)\" in any case; an explicit false wins", () => {
    expect(isRecommended({ label: "Postgres", recommended: true })).toBe(true)
    expect(isRecommended({ label: "Postgres (Recommended)" })).toBe(true)
    expect(isRecommended({ label: "Postgres (recommended) " })).toBe(true)
    expect(isRecommended({ label: "Postgres (Recommended)", recommended: false })).toBe(false)
    expect(isRecommended({ label: "(Recommended)" })).toBe(false)
    expect(isRecommended({ label: "Postgres" })).toBe(false)
  })

  it("at most one per single-select question, naming the second and the first", () => {
    refusedBoth(
      one({ options: options({ label: "a", recommended: true }, "b", { label: "c", recommended: true }) }),
      "questions[0].options[2].recommended",
      "a single-select question recommends at most one option, and options[0] is recommended already"
    )
    refusedBoth(
      one({ options: options({ label: "a", recommended: true }, "b (Recommended)") }),
      "questions[0].options[1].label",
      "a single-select question recommends at most one option, and options[0] is recommended already " +
        "(a label ending \" (Recommended)\" counts)"
    )
  })

  it("several on a multi-select question, one on a single-select one, and none, all pass; the label is kept as written", () => {
    const multi = one({ options: options({ label: "a", recommended: true }, "b (Recommended)"), multiSelect: true })
    expect(decodeRequest(multi)).toEqual(Result.succeed(multi))
    const single = one({ options: options("a", "b (Recommended)", { label: "c (Recommended)", recommended: false }) })
    expect(decodeRequest(single)).toEqual(Result.succeed(single))
    const snake = one({ options: options({ label: "a", recommended: true }, "b (Recommended)"), multi_select: true })
    expect(decodeRequestJson(snake)).toEqual(Result.succeed(multi))
  })
})

describe("preview", () => {
  it("takes up to 8 KiB in UTF-8 bytes, counting multi-byte characters", () => {
    const fits = ["x".repeat(8192), "é".repeat(4096), "😀".repeat(2048)]
    for (const preview of fits) {
      expect(Result.isSuccess(decodeRequest(one({ options: options({ label: "a", preview }) })))).toBe(true)
    }
    for (const preview of ["x".repeat(8193), "é".repeat(4097), "😀".repeat(2048) + "x"]) {
      refusedBoth(
        one({ options: options("a", { label: "b", preview }) }),
        "questions[0].options[1].preview",
        "is longer than 8192 bytes (8 KiB) in UTF-8"
      )
    }
  })
})

describe("secret", () => {
  it("is for optionless questions only: not with options, not multiSelect", () => {
    refusedBoth(one({ secret: true, options: options("a") }), "questions[0].secret", "a secret question cannot have options")
    refusedBoth(one({ secret: true, multiSelect: true }), "questions[0].secret", "a secret question cannot be multiSelect")
    const json = failure(decodeRequestJson(one({ secret: true, multi_select: true })))
    expect(json.message).toContain("questions[0].secret: a secret question cannot be multiSelect")
    for (const ok of [one({ secret: true }), one({ secret: true, options: [], multiSelect: false }), one({ secret: false, options: options("a") })]) {
      expect(decodeRequest(ok)).toEqual(Result.succeed(ok))
    }
  })
})

describe("timeout and onTimeout", () => {
  it("timeout takes what --timeout takes", () => {
    for (const timeout of ["30s", "5m", "1h", "5 minutes", "1.5 seconds", "500ms"]) {
      const request = one({}, { timeout })
      expect(decodeRequest(request)).toEqual(Result.succeed(request))
      expect(decodeRequestJson(request)).toEqual(Result.succeed(request))
    }
    for (const timeout of ["soon", "0s", "-5m", "", "Infinity"]) {
      refusedBoth(one({}, { timeout }), "timeout", "expected a duration longer than zero")
    }
    refusedBoth(one({}, { timeout: 30 }), "timeout", "Expected string")
  })

  it("onTimeout is \"fail\" or \"recommended\"; the JSON takes on_timeout too, and refuses the two when they disagree", () => {
    refusedBoth(one({}, { onTimeout: "guess" }), "onTimeout", "Expected \"fail\" | \"recommended\"")
    expect(decodeRequestJson(one({}, { on_timeout: "recommended" }))).toEqual(Result.succeed(one({}, { onTimeout: "recommended" })))
    expect(decodeRequestJson(one({}, { onTimeout: "fail" }))).toEqual(Result.succeed(one({}, { onTimeout: "fail" })))
    expect(decodeRequestJson(one({}, { on_timeout: "fail", onTimeout: "fail" }))).toEqual(Result.succeed(one({}, { onTimeout: "fail" })))
    const clash = failure(decodeRequestJson(one({}, { on_timeout: "fail", onTimeout: "recommended" })))
    expect(clash.message).toBe("Invalid request: on_timeout: disagrees with onTimeout")
  })

  it("old requests read as they did: no new key appears", () => {
    const old = { questions: [{ id: "go", question: "Go?", options: [{ label: "yes" }, { label: "no" }], multi_select: true }] }
    expect(decodeRequestJson(old)).toEqual(
      Result.succeed({ questions: [{ id: "go", question: "Go?", options: [{ label: "yes" }, { label: "no" }], multiSelect: true }] })
    )
  })
})

describe("the model-facing tool", () => {
  it("offers recommended, preview, secret, timeout and on_timeout, each described; not answerableBy", () => {
    const schema = Tool.getJsonSchema(AskUserQuestionTool) as {
      readonly properties: Record<string, { readonly description?: string; readonly items?: { readonly properties: Record<string, { readonly description?: string }> } }>
      readonly $defs: { readonly AskUserQuestionOption: { readonly properties: Record<string, unknown> } }
    }
    expect(schema).toEqual(Tool.getJsonSchemaFromSchema(AskUserQuestionArgs))
    expect(Object.keys(schema.properties)).toEqual(["questions", "timeout", "on_timeout"])
    expect(schema.properties.timeout?.description).toContain("\"5m\"")
    expect(schema.properties.on_timeout).toMatchObject({ enum: ["fail", "recommended"] })
    expect(schema.properties.questions?.items?.properties.secret?.description).toContain("\"received\"")
    expect(Object.keys(schema.$defs.AskUserQuestionOption.properties)).toEqual(["label", "description", "recommended", "preview"])
    for (const field of ["recommended", "preview"]) {
      expect(schema.$defs.AskUserQuestionOption.properties[field]).toHaveProperty("description")
    }
    expect(JSON.stringify(schema)).not.toContain("answerableBy")
  })

  it.effect("takes timeout and on_timeout from the model, and still nothing else", () =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", {
        questions: [{ id: "go", question: "Go?", options: [{ label: "yes", recommended: true, preview: "ships now" }, { label: "no" }] }],
        timeout: "5m",
        on_timeout: "recommended",
        agent: { id: "made-up" },
        id: "made-up",
        answerableBy: ["os:*"]
      } as never))
      expect(yield* ScriptedProvider.requests).toEqual([{
        questions: [{ id: "go", question: "Go?", options: [{ label: "yes", recommended: true, preview: "ships now" }, { label: "no" }] }],
        timeout: "5m",
        onTimeout: "recommended"
      }])
    }).pipe(Effect.provide(AskUserQuestionHandlers.pipe(
      Layer.provideMerge(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.succeed({ answers: [{ id: "go", selected: ["yes"] }] }))))
    ))))

  it.effect("refuses arguments that break a second-edition rule as INVALID_REQUEST naming the path, without asking", () =>
    Effect.gen(function*() {
      const toolkit = yield* AskUserQuestionToolkit
      for (
        const [args, path] of [
          [one({ secret: true, options: options("a") }), "questions[0].secret"],
          [one({ options: options({ label: "a", recommended: true }, { label: "b", recommended: true }) }), "questions[0].options[1].recommended"],
          [one({}, { timeout: "whenever" }), "timeout"],
          [one({}, { on_timeout: "maybe" }), "on_timeout"]
        ] as const
      ) {
        const [result] = yield* Stream.runCollect(yield* toolkit.handle("ask_user_question", args as never))
        expect(result?.isFailure).toBe(true)
        expect(result?.encodedResult).toMatchObject({ name: "UserInteractionError", code: "INVALID_REQUEST" })
        expect((result?.encodedResult as { readonly message: string }).message).toContain(path)
      }
      expect(yield* ScriptedProvider.requests).toEqual([])
    }).pipe(Effect.provide(AskUserQuestionHandlers.pipe(
      Layer.provideMerge(UserInteraction.layerWith(ScriptedProvider.layer(() => Effect.die("never asked"))))
    ))))
})
