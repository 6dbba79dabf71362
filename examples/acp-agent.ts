/**
 * Your own ACP agent whose tool needs the human: each prompt runs a `deploy`
 * tool call that asks for confirmation through the editor's own form
 * (`AcpProvider`), by way of the `UserInteraction` seam. The form is scoped
 * to the session and the tool call, and a `session/cancel` from the editor
 * takes it down.
 *
 * Register it in Zed as a custom agent with the command
 * `node examples/acp-agent.ts` (after `npm run build`; see docs/acp.md).
 */
import * as acp from "@agentclientprotocol/sdk"
import { ManagedRuntime } from "effect"
import { Readable, Writable } from "node:stream"
import { isUserInteractionError, UserInteraction } from "effect-user-interaction"
import { AcpProvider } from "effect-user-interaction/acp"

// One seam per connection, built once the client has said what it supports.
let runtime: ManagedRuntime.ManagedRuntime<UserInteraction | AcpProvider, never> | undefined
let nextSession = 0
let nextToolCall = 0
const cancelled = new Set<string>()

const confirmDeploy = (sessionId: string, toolCallId: string) =>
  UserInteraction.ask({
    questions: [
      { id: "target", question: "Deploy to which environment?", options: [{ label: "staging" }, { label: "production" }] },
      { id: "note", question: "Release note?" }
    ]
  }).pipe(AcpProvider.withSession({ sessionId, toolCallId }))

const connection = acp.agent({ name: "deployer" })
  .onRequest(acp.methods.agent.initialize, ({ client, params }) => {
    runtime = ManagedRuntime.make(UserInteraction.layerWith(
      AcpProvider.layer({ client, clientCapabilities: params.clientCapabilities, clientInfo: params.clientInfo }),
      { timeout: "10 minutes" }
    ))
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }
  })
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `deploy-${nextSession++}` }))
  .onRequest(acp.methods.agent.session.prompt, async ({ client, params }) => {
    const { sessionId } = params
    cancelled.delete(sessionId)
    const toolCallId = `call-${nextToolCall++}`
    const update = (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update })
    await update({ sessionUpdate: "tool_call", toolCallId, title: "Deploy", kind: "execute", status: "pending" })
    let text: string
    try {
      const { answers } = await runtime!.runPromise(confirmDeploy(sessionId, toolCallId))
      const target = answers[0]?.custom ?? answers[0]?.selected[0]
      text = target === undefined ? "Skipped the deploy." : `Deployed to ${target}.`
    } catch (error) {
      // Cancelled, declined, timed out, ...: in the contract's { name, code, message } shape.
      text = isUserInteractionError(error) ? JSON.stringify(error.toJSON()) : String(error)
    }
    if (cancelled.has(sessionId)) return { stopReason: "cancelled" }
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" })
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } })
    return { stopReason: "end_turn" }
  })
  .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    // The pending form is cancelled on the wire; its ask fails ASK_CANCELLED and the turn ends cancelled.
    cancelled.add(params.sessionId)
    await runtime?.runPromise(AcpProvider.use((provider) => provider.cancelSession(params.sessionId)))
  })
  .connect(acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>
  ))

await connection.closed
await runtime?.dispose()
