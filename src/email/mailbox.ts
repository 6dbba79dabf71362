/**
 * The mailbox replies arrive in, read over IMAP with `imapflow`: new mail is
 * announced while the connection idles (IDLE), each message's envelope and
 * size are read first, and its text only when the reader asks for it and
 * it is small enough. A dropped connection is made again with backoff and
 * the mail that arrived meanwhile is read then; a message already handled
 * (by UID, and by Message-ID, so a second delivery of one reply too) is
 * never handed on twice.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { ImapFlow } from "imapflow"
import { simpleParser } from "mailparser"
import { ProviderFailed } from "../UserInteractionError.js"
import { mask, type MailServer } from "./servers.js"

/** A message as its envelope says, before its text is read. */
export interface IncomingMail {
  readonly uid: number
  readonly messageId: string | undefined
  /** The sender's address, lower-cased. */
  readonly from: string | undefined
  /** Every To and Cc address, lower-cased. */
  readonly recipients: ReadonlyArray<string>
  readonly subject: string
  readonly inReplyTo: string | undefined
  /** RFC822.SIZE: the whole message's size in bytes, as the server counts it. */
  readonly size: number
  /** Sent by a program (`Auto-Submitted` other than `no`): never answered, so two programs never talk forever. */
  readonly automatic: boolean
}

/** A message's text: its plain part, else its HTML part as text (quoted blocks marked `>`). */
export interface MailBody {
  readonly text: string
}

/**
 * What the reader does with each new message. `body` reads its text:
 * `undefined` when the message cannot be read (it is then left alone), a
 * failure when the connection dropped, which `onMail` passes on so the
 * message is read again after the reconnect.
 */
export type OnMail = (
  mail: IncomingMail,
  body: Effect.Effect<MailBody | undefined, ProviderFailed>
) => Effect.Effect<void, ProviderFailed>

/** How many handled Message-IDs are remembered (oldest forgotten first). */
const rememberedIds = 10_000

/** The waits between attempts to connect again: 1 s doubling to 30 s. */
const backoff = (attempt: number) => Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5))

const failed = (what: string, error: unknown, server: MailServer) =>
  new ProviderFailed({
    message: mask(`${what} (${server.shown}): ${error instanceof Error ? error.message : String(error)}`, [server.password])
  })

/**
 * Reads `server`'s INBOX for as long as the scope lasts, handing each
 * message that arrives from now on to `onMail`, one at a time. Fails
 * `ProviderFailed` (the password masked) when the first connection or
 * login fails; later drops are retried.
 */
export const readMailbox = (
  server: MailServer,
  onMail: OnMail
): Effect.Effect<void, ProviderFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const connected = yield* Deferred.make<void, ProviderFailed>()
    // Where reading resumes: mail older than the first connection is not ours to answer.
    let uidValidity: bigint | undefined
    let lastUid = 0
    const handled = new Set<string>()
    const remember = (id: string) => {
      handled.add(id)
      if (handled.size > rememberedIds) handled.delete(handled.values().next().value!)
    }

    const connect = Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const client = new ImapFlow({
            host: server.host,
            port: server.port,
            secure: server.secure,
            ...(server.requireStartTls ? { doSTARTTLS: true } : {}),
            // Only the library that logs in sees the password itself.
            auth: { user: server.user ?? "", pass: server.password === undefined ? "" : Redacted.value(server.password) },
            // imapflow logs with pino to stdout by default: the program's stdout is not its to write.
            logger: false,
            // IDLE soon after the last command, so a reply is read within moments (the default waits 15 s).
            autoIdleDelay: 500,
            connectionTimeout: 30_000,
            greetingTimeout: 30_000
          })
          // An 'error' event with no listener would end the process; the 'close' that follows is handled.
          client.on("error", () => {})
          try {
            await client.connect()
            const mailbox = await client.mailboxOpen("INBOX")
            return { client, mailbox }
          } catch (error) {
            client.close()
            throw error
          }
        },
        catch: (error) => failed("Could not read the mailbox", error, server)
      }),
      ({ client }) =>
        Effect.promise(() => client.logout().catch(() => undefined)).pipe(
          Effect.timeout("3 seconds"),
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => client.close()))
        )
    )

    /** Handles the messages after `lastUid`, in order. */
    const drain = (client: ImapFlow) =>
      Effect.gen(function*() {
        const fetched = yield* Effect.tryPromise({
          try: async () => {
            const out: Array<IncomingMail> = []
            for await (
              const message of client.fetch(`${lastUid + 1}:*`, {
                uid: true,
                envelope: true,
                size: true,
                headers: ["auto-submitted"]
              }, { uid: true })
            ) {
              if (message.uid <= lastUid) continue // `N:*` names the last message even when it is older than N
              const envelope = message.envelope
              const automatic = /^auto-submitted:\s*(?!no\b)\S/im.test(message.headers?.toString("latin1") ?? "")
              out.push({
                uid: message.uid,
                messageId: envelope?.messageId,
                from: envelope?.from?.[0]?.address?.toLowerCase(),
                recipients: [...(envelope?.to ?? []), ...(envelope?.cc ?? [])].flatMap((a) =>
                  a.address === undefined ? [] : [a.address.toLowerCase()]
                ),
                subject: envelope?.subject ?? "",
                inReplyTo: envelope?.inReplyTo,
                size: message.size ?? 0,
                automatic
              })
            }
            return out
          },
          catch: (error) => failed("Could not list new mail", error, server)
        })
        for (const mail of fetched.sort((a, b) => a.uid - b.uid)) {
          const key = mail.messageId ?? `uid:${uidValidity}:${mail.uid}`
          if (!handled.has(key)) {
            remember(key)
            // The connection dropped before the message was read: read it again after the reconnect.
            yield* Effect.onError(onMail(mail, body(client, mail)), () => Effect.sync(() => handled.delete(key)))
          }
          lastUid = mail.uid
          yield* Effect.tryPromise(() => client.messageFlagsAdd(String(mail.uid), ["\\Seen"], { uid: true })).pipe(Effect.ignore)
        }
      })

    const body = (client: ImapFlow, mail: IncomingMail): Effect.Effect<MailBody | undefined, ProviderFailed> =>
      Effect.tryPromise({
        try: async () => {
          const message = await client.fetchOne(String(mail.uid), { source: { start: 0, maxLength: mail.size } }, { uid: true })
          if (message === false || message.source === undefined) throw new Error("the message is gone")
          const parsed = await simpleParser(message.source, { skipImageLinks: true, skipTextLinks: true })
          return { text: parsed.text ?? "" }
        },
        catch: (error) => failed("Could not read a reply", error, server)
      }).pipe(
        // Still connected: this message cannot be read (gone, or not MIME), and never will be.
        Effect.catch((error) => client.usable ? Effect.as(Effect.logWarning(error.message), undefined) : Effect.fail(error))
      )

    /** One connection: drain, then wait for news and drain again, until the connection closes. */
    const session = Effect.gen(function*() {
      const { client, mailbox } = yield* connect
      if (uidValidity !== mailbox.uidValidity) {
        // A new mailbox (or the first look at it): start after what is there now.
        uidValidity = mailbox.uidValidity
        lastUid = mailbox.uidNext - 1
      }
      const news = yield* Queue.sliding<"exists" | "close">(1)
      client.on("exists", () => Queue.offerUnsafe(news, "exists"))
      client.on("close", () => Queue.offerUnsafe(news, "close"))
      yield* Deferred.succeed(connected, undefined)
      for (;;) {
        yield* drain(client)
        if ((yield* Queue.take(news)) === "close" || !client.usable) return
      }
    }).pipe(Effect.scoped)

    const loop = (attempt: number): Effect.Effect<void> =>
      session.pipe(
        Effect.matchCauseEffect({
          onSuccess: () => Effect.succeed(0),
          onFailure: (cause) =>
            Effect.gen(function*() {
              const error = Cause.squash(cause)
              if (!(yield* Deferred.isDone(connected))) {
                yield* Deferred.fail(connected, error instanceof ProviderFailed ? error : failed("Could not read the mailbox", error, server))
                return yield* Effect.interrupt
              }
              yield* Effect.logWarning(error instanceof ProviderFailed ? error.message : mask(String(error), [server.password]))
              return attempt + 1
            })
        }),
        Effect.flatMap((next) => Effect.sleep(backoff(next)).pipe(Effect.andThen(loop(next))))
      )

    yield* Effect.forkScoped(loop(0))
    yield* Deferred.await(connected)
  })
