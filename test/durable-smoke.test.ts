import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { UserInteraction } from "effect-user-interaction"
import { DurableInbox, DurableProvider, DurableStore } from "effect-user-interaction/durable"

const request = { id: "a1", questions: [{ id: "q", question: "Pick", options: [{ label: "A" }, { label: "B" }] }] }

describe("smoke", () => {
  it.live("answers", () =>
    Effect.gen(function*() {
      const fiber = yield* UserInteraction.ask(request).pipe(Effect.forkChild)
      const inbox = yield* DurableInbox
      let pending = yield* inbox.pending
      while (pending.length === 0) { yield* Effect.sleep(50); pending = yield* inbox.pending }
      console.log("pending", pending)
      yield* inbox.answer("a1", { answers: [{ id: "q", selected: ["A"] }] })
      const answer = yield* Fiber.join(fiber)
      console.log("answer", answer)
      expect(answer.answers[0]!.selected).toEqual(["A"])
      console.log("status", yield* inbox.status("a1"))
    }).pipe(Effect.provide(Layer.mergeAll(UserInteraction.layerWith(DurableProvider.layer()), DurableInbox.layer).pipe(Layer.provideMerge(DurableStore.layer("sqlite::memory:"))))), 30000)
})
