/**
 * Asks the human by mail: each ask is a mail to `to` (a text and an HTML
 * part, the options numbered, how to reply, the inbox link when there is
 * one), sent with `nodemailer` over SMTP, and the answer is the human's
 * reply, read over IMAP (IDLE) with `imapflow` and `mailparser`.
 *
 * ```ts
 * const email = EmailProvider.layer({
 *   smtp: "smtps://agent@example.com@smtp.example.com",   // password from ASK_USER_SMTP_PASSWORD
 *   imap: "imaps://agent@example.com@imap.example.com",   // password from ASK_USER_IMAP_PASSWORD
 *   from: "agent@example.com",
 *   to: "ana@example.com",
 *   inboxUrl: "https://inbox.example.com/"
 * })
 * yield* inbox.serve(email) // or UserInteraction.layerWith(email)
 * ```
 *
 * A reply belongs to an ask by the ask's token: the mail's Reply-To is the
 * sender's plus address (`agent+TOKEN@example.com`) and its subject ends
 * `[ask TOKEN]`; a reply whose `In-Reply-To` names another ask's mail is
 * refused. An ask with an `id` (every durable ask) keeps its token across
 * restarts of the provider, so a reply to a mail sent before one still
 * answers it once the ask is asked again. Only a reply from `to` is read (anything else is ignored, and a
 * mail a program sent is never answered). The reply's first lines that are
 * not quoted are the answer: one line for each question, in order: an
 * option's number or numbers (`2`, `1,3`), its label, `skip`, or other text
 * as the human's own answer; `cancel` or `decline` on the first line settles
 * the whole ask so. A reply that cannot be used (`10` to three options, a
 * reply over `maxReplyBytes`, which is refused from its size before its
 * text is fetched) gets a mail back saying why, and the ask stays pending.
 * Answers, cancels and declines are `email:<to>`'s.
 *
 * A request with a secret question is sent as a link to the inbox page
 * (`inboxUrl`), where the secret is typed, and fails `ProviderFailed` when
 * there is none: a secret never travels by mail. When an ask is settled
 * elsewhere, the human is told so by mail (also when their reply had
 * arrived just after: it passes the ask's `OutcomeGate` and is not used),
 * and a later reply to it gets a mail back saying it was not used.
 *
 * Passwords come from the URLs (`smtp://user:pass@host`) or, when a URL has
 * none, from `smtpPassword` / `imapPassword`, else from the environment
 * (`ASK_USER_SMTP_PASSWORD`, `ASK_USER_IMAP_PASSWORD`). They are masked in
 * every message this provider writes or fails with.
 *
 * @since 0.3.0
 */
import { createHmac, randomBytes } from "node:crypto"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import nodemailer from "nodemailer"
import type { Answerer } from "../Answerer.js"
import type { AskUserQuestionRequest } from "../AskUserQuestion.js"
import { askAs } from "../internal/answeredBy.js"
import { sanitizeLine } from "../internal/sanitize.js"
import { settleFirst } from "../OutcomeGate.js"
import { AskCancelled, AskDeclined, InvalidRequest, ProviderFailed } from "../UserInteractionError.js"
import {
  describeSurface,
  type ProviderAnswer,
  type SettledElsewhere,
  settledElsewhere,
  UserInteractionProvider
} from "../UserInteractionProvider.js"
import { type IncomingMail, type MailBody, readMailbox } from "./mailbox.js"
import { askMail, askSubject, type MailParts, noticeMail, reSubject, unusableMail } from "./render.js"
import { ownLines, readReply } from "./replies.js"
import { type MailServer, mask, parseServer } from "./servers.js"

/**
 * Where `EmailProvider` sends asks and reads replies, and to whom.
 *
 * @since 0.3.0
 */
export interface EmailProviderOptions {
  /** The SMTP server that sends: `smtps://user[:password]@host[:port]` (TLS), or `smtp://…` (STARTTLS; required unless on loopback). */
  readonly smtp: string
  /** The IMAP server of `from`'s mailbox, where replies arrive: `imaps://user[:password]@host[:port]`, or `imap://…` (STARTTLS, as for `smtp`). */
  readonly imap: string
  /** The address asks come from; replies go to its plus address (`agent+TOKEN@…`), which must reach the same mailbox. */
  readonly from: string
  /** The human's address: asks go there, and only replies from it are read. */
  readonly to: string
  /** The inbox page, linked from every ask (and the only way to answer a secret question). */
  readonly inboxUrl?: string | undefined
  /** The SMTP password when the URL has none (default: `ASK_USER_SMTP_PASSWORD`). */
  readonly smtpPassword?: Redacted.Redacted<string> | undefined
  /** The IMAP password when the URL has none (default: `ASK_USER_IMAP_PASSWORD`). */
  readonly imapPassword?: Redacted.Redacted<string> | undefined
  /** The largest reply read, in bytes (default 1 MiB); a larger one is refused from its size, unread. */
  readonly maxReplyBytes?: number | undefined
}

/** An ask waiting for its reply. */
interface Waiting {
  readonly request: AskUserQuestionRequest
  readonly reply: Deferred.Deferred<ProviderAnswer, AskCancelled | AskDeclined>
}

/** How many asks that stopped waiting are remembered, to tell a late reply why it was not used. */
const rememberedAsks = 1_000

const defaultMaxReplyBytes = 1024 * 1024

/** A token: 96 random bits, in characters every mail system keeps as they are in an address. */
const newToken = (): string => randomBytes(12).toString("hex")

/**
 * The token of the ask `id` for a provider whose mailbox password is
 * `key`: the same after a restart, so a reply to a mail sent before it still
 * answers (a durable ask is asked again with its id), and unguessable without
 * the password, which reads the mailbox anyway (decision 151).
 */
const askToken = (key: Redacted.Redacted<string>, from: string, id: string): string =>
  createHmac("sha256", Redacted.value(key)).update(`ask-user email token\0${from}\0${id}`).digest("hex").slice(0, 24)

/** The bare address in `Name <address>` or `address`, lower-cased. */
const bareAddress = (address: string): string => (/<([^<>]+)>\s*$/.exec(address)?.[1] ?? address).trim().toLowerCase()

/** What a settled-elsewhere interruption says, for the human's mailbox. */
const elsewhereText = ({ by, outcome, surface }: SettledElsewhere["Service"]): string =>
  `${outcome === "answered" ? "Answered" : outcome === "ASK_DECLINED" ? "Declined" : "Cancelled"}${
    by === undefined ? "" : ` by ${sanitizeLine(by.name ?? by.id)}`
  } in ${sanitizeLine(describeSurface(surface))}.`

/** A password from the environment, when set. */
const fromEnvironment = (name: string): Effect.Effect<Redacted.Redacted<string> | undefined> =>
  Config.option(Config.Redacted(name)).pipe(
    Effect.map(Option.getOrUndefined),
    Effect.orElseSucceed(() => undefined)
  )

/**
 * The mail surface.
 *
 * @since 0.3.0
 */
export const EmailProvider = {
  /**
   * A provider that asks by mail, for as long as its scope lasts: the IMAP
   * connection opens (and logs in) when the layer is built, which fails
   * `ProviderFailed` when it cannot, and `InvalidRequest` for a URL or
   * address that is none; closing the scope closes both connections.
   *
   * @since 0.3.0
   */
  layer: (options: EmailProviderOptions): Layer.Layer<UserInteractionProvider, ProviderFailed | InvalidRequest> =>
    Layer.effect(
      UserInteractionProvider,
      Effect.gen(function*() {
        const smtp = parseServer("smtp", options.smtp, options.smtpPassword ?? (yield* fromEnvironment("ASK_USER_SMTP_PASSWORD")))
        const imap = parseServer("imap", options.imap, options.imapPassword ?? (yield* fromEnvironment("ASK_USER_IMAP_PASSWORD")))
        const secrets = [
          typeof smtp === "string" ? undefined : smtp.password,
          typeof imap === "string" ? undefined : imap.password
        ]
        if (typeof smtp === "string") return yield* Effect.fail(new InvalidRequest({ message: `The ${smtp}` }))
        if (typeof imap === "string") return yield* Effect.fail(new InvalidRequest({ message: `The ${imap}` }))
        const from = bareAddress(options.from)
        const to = bareAddress(options.to)
        const [local, domain] = splitAddress(from)
        if (local === undefined || splitAddress(to)[0] === undefined) {
          return yield* Effect.fail(new InvalidRequest({ message: "The from and to addresses must each be an address, name@domain." }))
        }
        const maxReplyBytes = options.maxReplyBytes ?? defaultMaxReplyBytes
        const by: Answerer = { id: `email:${to}` }
        const hidden = (text: string) => mask(text, secrets)

        const transport = yield* Effect.acquireRelease(
          Effect.sync(() => nodemailer.createTransport(transportOptions(smtp))),
          (transport) => Effect.sync(() => transport.close())
        )

        const waiting = new Map<string, Waiting>()
        // Asks that stopped waiting, and why, so a late reply is told rather than ignored.
        const gone = new Map<string, string>()
        const forget = (token: string, why: string) => {
          gone.set(token, why)
          if (gone.size > rememberedAsks) gone.delete(gone.keys().next().value!)
        }
        // The Message-IDs of the asks' mails, to tell a reply that names another ask's mail.
        const sentIds = new Map<string, string>()

        const replyAddress = (token: string) => `${local}+${token}@${domain}`

        const send = (parts: MailParts, token: string, headers: {
          readonly messageId?: string
          readonly inReplyTo?: string | undefined
          readonly references?: ReadonlyArray<string>
          readonly automatic?: boolean
        }) =>
          Effect.tryPromise({
            try: () =>
              transport.sendMail({
                from: options.from,
                to: options.to,
                replyTo: replyAddress(token),
                subject: parts.subject,
                text: parts.text,
                html: parts.html,
                ...(headers.messageId === undefined ? {} : { messageId: headers.messageId }),
                ...(headers.inReplyTo === undefined ? {} : { inReplyTo: headers.inReplyTo }),
                ...(headers.references === undefined || headers.references.length === 0 ? {} : { references: [...headers.references] }),
                ...(headers.automatic === true ? { headers: { "Auto-Submitted": "auto-replied" } } : {})
              }),
            catch: (error) =>
              new ProviderFailed({
                message: hidden(`Could not send mail (${smtp.shown}): ${error instanceof Error ? error.message : String(error)}`)
              })
          })

        /** A mail back about `mail`, in its thread; a failure to send it is logged, never fatal. */
        const answerBack = (mail: IncomingMail, token: string, parts: MailParts) =>
          send(parts, token, {
            inReplyTo: mail.messageId,
            references: mail.messageId === undefined ? [] : [mail.messageId],
            automatic: true
          }).pipe(Effect.catch((error) => Effect.logWarning(error.message)))

        const onMail = (mail: IncomingMail, body: Effect.Effect<MailBody | undefined, ProviderFailed>) =>
          Effect.gen(function*() {
            // Never answer a program (an auto-reply, a bounce): two programs would mail each other forever.
            if (mail.automatic) return
            // Only the addressee may answer; anyone else is ignored without a word (a mail back to a
            // stranger would make this mailbox a way to mail anyone).
            if (mail.from !== to) {
              return yield* Effect.logWarning("Ignored a mail from an address other than the addressee.")
            }
            const token = tokenOf(mail, local, domain)
            const ask = token === undefined ? undefined : waiting.get(token)
            if (token === undefined || ask === undefined) {
              const why = token === undefined ? undefined : gone.get(token)
              return yield* answerBack(
                mail,
                token ?? newToken(),
                noticeMail(
                  reSubject(mail.subject),
                  why === undefined
                    ? "Your mail was not used: it names no question waiting for an answer. Reply to the question's own mail, keeping its subject."
                    : `Your reply was not used: this question is no longer waiting (${why}).`
                )
              )
            }
            const threadOf = mail.inReplyTo === undefined ? undefined : sentIds.get(mail.inReplyTo)
            if (threadOf !== undefined && threadOf !== token) {
              return yield* answerBack(mail, token, unusableMail(ask.request, token, "it answers the mail of another question."))
            }
            // A secret is typed in the inbox page only: a reply to its mail is not even read.
            if (ask.request.questions.some((q) => q.secret === true)) {
              return yield* answerBack(
                mail,
                token,
                noticeMail(
                  reSubject(mail.subject),
                  `Your reply was not read: this request holds a secret, which is answered only in the inbox: ${options.inboxUrl}`
                )
              )
            }
            if (mail.size > maxReplyBytes) {
              return yield* answerBack(
                mail,
                token,
                unusableMail(ask.request, token, `it is ${megabytes(mail.size)}, and replies of at most ${megabytes(maxReplyBytes)} are read.`)
              )
            }
            const read = yield* body
            if (read === undefined) return
            const reading = readReply(ask.request, ownLines(read.text))
            switch (reading._tag) {
              case "Unusable":
                return yield* answerBack(mail, token, unusableMail(ask.request, token, reading.reason))
              case "Cancel":
                waiting.delete(token)
                return yield* Deferred.fail(ask.reply, new AskCancelled({ message: "The human cancelled the request by mail." }))
              case "Decline":
                waiting.delete(token)
                return yield* Deferred.fail(ask.reply, new AskDeclined({ message: "The human declined the request by mail." }))
              case "Answer":
                waiting.delete(token)
                return yield* Deferred.succeed(ask.reply, { answers: reading.answers, by })
            }
          })

        yield* readMailbox(imap, onMail)

        const askByMail = (request: AskUserQuestionRequest) =>
          Effect.gen(function*() {
            const secret = request.questions.some((q) => q.secret === true)
            if (secret && options.inboxUrl === undefined) {
              return yield* Effect.fail(new ProviderFailed({
                message: "A secret question cannot be asked by mail, and the email provider has no inbox page to link to."
              }))
            }
            const key = imap.password ?? smtp.password
            const stable = key === undefined || request.id === undefined ? undefined : askToken(key, from, request.id)
            const token = stable === undefined || waiting.has(stable) ? newToken() : stable
            // Unique per mail (a mail program may hide a second mail with the same id).
            const messageId = `<ask-${token}.${randomBytes(6).toString("hex")}@${domain}>`
            const reply = yield* Deferred.make<ProviderAnswer, AskCancelled | AskDeclined>()
            const ask: Waiting = { request, reply }
            waiting.set(token, ask)
            sentIds.set(messageId, token)
            return yield* send(askMail(request, token, options.inboxUrl), token, { messageId }).pipe(
              // A secret is answered in the inbox: the mail only points there, and this waits to be taken down.
              // A reply counts once through the ask's gate: one that lost to an answer elsewhere is told so below.
              Effect.andThen(secret ? Effect.never : Deferred.await(reply).pipe(settleFirst("email"))),
              Effect.onExit((exit) =>
                Effect.suspend(() => {
                  waiting.delete(token)
                  sentIds.delete(messageId)
                  const elsewhere = Exit.isFailure(exit) ? settledElsewhere(exit.cause) : undefined
                  if (Exit.isSuccess(exit) || exit.cause.reasons.some((r) => r._tag === "Fail")) {
                    forget(token, Exit.isSuccess(exit) ? "it has been answered" : "it has been settled")
                    return Effect.void
                  }
                  forget(token, elsewhere === undefined ? "it was withdrawn" : elsewhereText(elsewhere).replace(/\.$/, ""))
                  if (elsewhere === undefined) return Effect.void
                  // Tell the human, so they do not answer it again, or that the reply they sent did not
                  // count; best effort, and brief.
                  const told = Deferred.isDoneUnsafe(reply) ? `Your reply was not used. ${elsewhereText(elsewhere)}` : elsewhereText(elsewhere)
                  return send(noticeMail(reSubject(askSubject(request, token)), told), token, {
                    inReplyTo: messageId,
                    references: [messageId],
                    automatic: true
                  }).pipe(Effect.timeout("10 seconds"), Effect.ignore)
                })
              )
            )
          })

        return UserInteractionProvider.of({
          name: "email",
          ask: (request) => askAs(by, request, askByMail(request))
        })
      })
    )
}

/** The local part and domain of an address; `[undefined, undefined]` when it is none. */
const splitAddress = (address: string): readonly [string, string] | readonly [undefined, undefined] => {
  const match = /^([^\s@<>]+)@([^\s@<>]+\.[^\s@<>]+)$/.exec(address)
  return match === null ? [undefined, undefined] : [match[1]!, match[2]!]
}

/** The ask token a reply carries: in the plus address it was sent to, else in its subject's tag. */
const tokenOf = (mail: IncomingMail, local: string, domain: string): string | undefined => {
  const prefix = `${local}+`
  const suffix = `@${domain}`
  for (const address of mail.recipients) {
    if (!address.startsWith(prefix) || !address.endsWith(suffix)) continue
    const token = address.slice(prefix.length, address.length - suffix.length)
    if (/^[0-9a-f]{24}$/.test(token)) return token
  }
  return /\[ask ([0-9a-f]{24})\]/i.exec(mail.subject)?.[1]?.toLowerCase()
}

/** A size for people: "10.0 MB". */
const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`

/** nodemailer's options for `server`: TLS from the start on `smtps:`; on `smtp:` STARTTLS, required beyond loopback. */
const transportOptions = (server: MailServer) => ({
  host: server.host,
  port: server.port,
  secure: server.secure,
  requireTLS: server.requireStartTls,
  ...(server.user === undefined
    ? {}
    : { auth: { user: server.user, pass: server.password === undefined ? "" : Redacted.value(server.password) } }),
  connectionTimeout: 30_000,
  greetingTimeout: 30_000,
  socketTimeout: 60_000
})
