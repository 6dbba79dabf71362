import { describe, expect, it } from "@effect/vitest"
import { getEventListeners } from "node:events"
import {
  AskCancelled,
  AskDeclined,
  HarnessError,
  makeUserInteractionClient,
  type PromiseProvider,
  UserInteraction
} from "effect-user-interaction"
import { batch, batchAnswer, single, singleAnswer } from "./support/requests.js"

/** A Promise provider that never answers and records what happened to its signal. */
const hanging = () => {
  const seen: Array<AbortSignal> = []
  let started!: () => void
  const startedOnce = new Promise<void>((resolve) => (started = resolve))
  const provider: PromiseProvider = {
    ask: (req) =>
      new Promise((_, reject) => {
        seen.push(req.signal)
        started()
        req.signal.addEventListener("abort", () => reject(new Error("aborted")))
      })
  }
  return { provider, seen, started: startedOnce }
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (error: unknown) => {
      expect(error).toBeInstanceOf(HarnessError)
      expect((error as HarnessError).name).toBe("UserInteractionError")
      return (error as HarnessError).code
    }
  )

describe("makeUserInteractionClient", () => {
  it("asks through the registered Promise provider and returns the checked answer", async () => {
    const client = makeUserInteractionClient()
    client.registerProvider({ ask: async () => ({ answers: [...batchAnswer.answers].reverse() }) })
    expect(await client.ask(batch)).toEqual(batchAnswer)
    await client.dispose()
  })

  it("registers at once, throws DUPLICATE_PROVIDER synchronously, and the disposer is idempotent", async () => {
    const client = makeUserInteractionClient()
    expect(await codeOf(client.ask(single))).toBe("NO_PROVIDER")
    const dispose = client.registerProvider({ ask: async () => singleAnswer })
    expect(() => client.registerProvider({ ask: async () => singleAnswer })).toThrow(
      expect.objectContaining({ code: "DUPLICATE_PROVIDER" })
    )
    expect(await client.ask(single)).toEqual(singleAnswer)
    dispose()
    dispose()
    expect(await codeOf(client.ask(single))).toBe("NO_PROVIDER")
    const again = client.registerProvider({ ask: async () => singleAnswer })
    expect(await client.ask(single)).toEqual(singleAnswer)
    again()
    await client.dispose()
  })

  it("refuses at once what is not a provider, and any provider once disposed", async () => {
    const client = makeUserInteractionClient()
    for (const notAProvider of [null, undefined, {}, { ask: "yes" }]) {
      expect(() => client.registerProvider(notAProvider as never)).toThrow(TypeError)
    }
    // Nothing was registered by the refused calls.
    expect(await codeOf(client.ask(single))).toBe("NO_PROVIDER")
    await client.dispose()
    expect(() => client.registerProvider({ ask: async () => singleAnswer })).toThrow(/disposed/)
  })

  it("rejects bad requests before calling the provider", async () => {
    const client = makeUserInteractionClient()
    const calls: Array<unknown> = []
    client.registerProvider({ ask: async (req) => (calls.push(req), singleAnswer) })
    expect(await codeOf(client.ask({ questions: [] }))).toBe("EMPTY_QUESTIONS")
    expect(await codeOf(client.ask({ questions: [{ id: "a" }] } as never))).toBe("INVALID_REQUEST")
    expect(await codeOf(client.ask({ ...single, signal: AbortSignal.abort() }))).toBe("ASK_ABORTED")
    expect(calls).toEqual([])
    await client.dispose()
  })

  it("passes the provider's error classes through and wraps anything else as PROVIDER_FAILED", async () => {
    const client = makeUserInteractionClient()
    let next: () => Promise<never> = () => Promise.reject(new AskCancelled())
    client.registerProvider({ ask: () => next() })
    expect(await codeOf(client.ask(single))).toBe("ASK_CANCELLED")
    next = () => Promise.reject(new AskDeclined())
    expect(await codeOf(client.ask(single))).toBe("ASK_DECLINED")
    const boom = new TypeError("boom")
    next = () => Promise.reject(boom)
    const failed = await client.ask(single).catch((e: unknown) => e)
    expect(failed).toMatchObject({ code: "PROVIDER_FAILED", cause: boom })
    next = () => { throw boom }
    expect(await codeOf(client.ask(single))).toBe("PROVIDER_FAILED")
    // A reason that is no Error is named by its content, not "[object Object]".
    next = () => Promise.reject({ status: 503 })
    expect(await client.ask(single).catch((e: unknown) => e)).toMatchObject({
      code: "PROVIDER_FAILED",
      message: "The provider rejected: {\"status\":503}"
    })
    await client.dispose()
  })

  it("takes a plain JavaScript provider's answer returned without a Promise", async () => {
    const client = makeUserInteractionClient()
    client.registerProvider({ ask: (() => singleAnswer) as never })
    expect(await client.ask(single)).toEqual(singleAnswer)
    await client.dispose()
  })

  it("rejects INVALID_ANSWER when the provider breaks the answer rules", async () => {
    const client = makeUserInteractionClient()
    client.registerProvider({ ask: async () => ({ answers: [{ id: "go", selected: ["yes", "no"] }] }) })
    expect(await codeOf(client.ask(single))).toBe("INVALID_ANSWER")
    await client.dispose()
  })

  it("aborting the caller's signal aborts the provider's signal and rejects ASK_ABORTED", async () => {
    const client = makeUserInteractionClient()
    const { provider, seen, started } = hanging()
    client.registerProvider(provider)
    const controller = new AbortController()
    const pending = codeOf(client.ask({ ...single, signal: controller.signal }))
    await started
    controller.abort()
    expect(await pending).toBe("ASK_ABORTED")
    expect(seen[0]?.aborted).toBe(true)
    expect(seen[0]).not.toBe(controller.signal)
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    await client.dispose()
  })

  it("the timeout aborts the provider's signal and rejects ASK_TIMEOUT", async () => {
    const client = makeUserInteractionClient(UserInteraction.layerConfig({ timeout: "20 millis" }))
    const { provider, seen } = hanging()
    client.registerProvider(provider)
    expect(await codeOf(client.ask(single))).toBe("ASK_TIMEOUT")
    expect(seen[0]?.aborted).toBe(true)
    await client.dispose()
  })

  it("unregistering aborts the provider's signal and rejects pending asks PROVIDER_CLOSED", async () => {
    const client = makeUserInteractionClient()
    const { provider, seen, started } = hanging()
    const dispose = client.registerProvider(provider)
    const pending = codeOf(client.ask(single))
    await started
    dispose()
    expect(await pending).toBe("PROVIDER_CLOSED")
    expect(seen[0]?.aborted).toBe(true)
    await client.dispose()
  })

  it("hands a pending ask over to the next provider registered within the window", async () => {
    const client = makeUserInteractionClient(UserInteraction.layerConfig({ handover: "10 seconds" }))
    const { provider, started } = hanging()
    const dispose = client.registerProvider(provider)
    const pending = client.ask(single)
    await started
    dispose()
    client.registerProvider({ ask: async () => singleAnswer })
    expect(await pending).toEqual(singleAnswer)
    await client.dispose()
  })

  it("dispose() rejects pending asks ASK_ABORTED, aborting the provider's signal, and later asks too", async () => {
    const client = makeUserInteractionClient()
    const { provider, seen, started } = hanging()
    client.registerProvider(provider)
    const pending = [codeOf(client.ask(single)), codeOf(client.ask(batch))]
    await started
    await client.dispose()
    expect(await Promise.all(pending)).toEqual(["ASK_ABORTED", "ASK_ABORTED"])
    expect(seen.every((signal) => signal.aborted)).toBe(true)
    expect(await codeOf(client.ask(single))).toBe("ASK_ABORTED")
    await client.dispose()
  })
})
