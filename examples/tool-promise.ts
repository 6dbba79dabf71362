/**
 * `ask_user_question` in a Promise-world tool runner (no Effect in the
 * harness): `executeAskUserQuestion` takes the model's arguments, resolves
 * with the answer, or rejects with an error class whose `{ name, code, message }`
 * the runner hands back to the model unchanged.
 *
 * Run: `npm run build && node examples/tool-promise.ts`
 */
import { Schema } from "effect"
import { AskUserQuestionResultJson, makeUserInteractionClient } from "effect-user-interaction"

const client = makeUserInteractionClient()

// The UI surface: here a scripted human that picks the first option of every question.
client.registerProvider({
  ask: async (req) => ({
    answers: req.questions.map((q) => ({ id: q.id, selected: q.options?.[0] ? [q.options[0].label] : [] }))
  })
})

// What the model reads of an answer: a secret as "received", a defaulted answer with its note.
const forTheModel = Schema.encodeSync(AskUserQuestionResultJson)

/** A typical runner: tool results are text; failures keep `{ name, code, message }`. */
const runTool = async (args: unknown, signal: AbortSignal) => {
  try {
    const answer = await client.executeAskUserQuestion(args, { signal, agent: { id: "session-1" } })
    return { isError: false, text: JSON.stringify(forTheModel(answer)) }
  } catch (error) {
    const { code, message, name } = error as { name: string; code: string; message: string }
    return { isError: true, text: JSON.stringify({ name, code, message }) }
  }
}

const turn = new AbortController()
console.log(await runTool({
  questions: [{ id: "db", question: "Which database?", options: [{ label: "PostgreSQL (Recommended)" }, { label: "SQLite" }] }]
}, turn.signal))
console.log(await runTool({ questions: [{ id: "db", question: "" }] }, turn.signal))
turn.abort()
console.log(await runTool({ questions: [{ id: "db", question: "Which database?" }] }, turn.signal))
await client.dispose()
