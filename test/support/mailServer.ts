/**
 * A private mail system for the email tests, from Debian's packages (`.ci/run`
 * installs them): Dovecot serving IMAP, LMTP and SMTP submission, and a
 * Postfix that the submission service relays to and that delivers by LMTP
 * into Dovecot, as a small real setup does (Dovecot's submission service
 * cannot deliver by LMTP itself). All on free loopback ports, in a
 * temporary directory, as root the way CI runs; `stop()` ends both servers
 * and removes the directory.
 *
 * Two mailboxes: the agent's (`agent@example.test`, which the provider
 * reads; its plus addresses reach it) and the human's (`human@example.test`,
 * which the tests read with `imapflow`). The human's replies are delivered
 * by LMTP, as their mail server would deliver them.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ImapFlow } from "imapflow"
import { type ParsedMail, simpleParser } from "mailparser"
import nodemailer, { type SendMailOptions } from "nodemailer"
import { freePort } from "./freePort.js"

export const agentAddress = "agent@example.test"
export const humanAddress = "human@example.test"
/** The agent mailbox's password: tests check it never shows in a message. */
export const agentPassword = "agent-Pa55word-7f3k"
const humanPassword = "human-secret"

const packages = "dovecot-imapd dovecot-lmtpd dovecot-submissiond postfix"
const postfixMaster = "/usr/lib/postfix/sbin/master"

export interface MailServer {
  readonly imapPort: number
  readonly submissionPort: number
  /** `smtp://agent%40example.test@127.0.0.1:PORT`: the submission service, no password in it. */
  readonly smtpUrl: string
  /** `imap://agent%40example.test@127.0.0.1:PORT`: the agent's mailbox, no password in it. */
  readonly imapUrl: string
  /** Delivers a mail into a mailbox by LMTP, as the human's replies arrive; returns its Message-ID. */
  readonly deliver: (mail: SendMailOptions & { readonly envelopeTo: string }) => Promise<string>
  /**
   * The human replies to `ask` with `text`, as a mail program does (to its Reply-To, `Re:` its
   * subject, In-Reply-To its Message-ID); `extra` overrides any of it. Returns the reply's Message-ID.
   */
  readonly reply: (ask: ParsedMail, text: string | undefined, extra?: Partial<SendMailOptions>) => Promise<string>
  /** Every mail in the human's INBOX, parsed, oldest first. */
  readonly humanMail: () => Promise<ReadonlyArray<ParsedMail>>
  /** Waits (polling, generous) for the human's INBOX to hold `count` mails at least; returns them all. */
  readonly untilHumanMail: (count: number) => Promise<ReadonlyArray<ParsedMail>>
  /** Ends every IMAP session of the agent (the server drops the connection). */
  readonly kickAgent: () => void
  /** The bytes Dovecot sent to the agent's IMAP sessions that have ended, as its log counts them. */
  readonly agentImapBytesOut: () => number
  /** The Dovecot log so far, for failure messages. */
  readonly log: () => string
  readonly stop: () => Promise<void>
}

/** The address a mail asks replies to. */
export const replyAddress = (mail: ParsedMail): string => mail.replyTo!.value[0]!.address!

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const until = async (what: string, check: () => Promise<boolean> | boolean, log: () => string, millis = 30_000) => {
  const deadline = Date.now() + millis
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`The mail server did not ${what} within ${millis / 1000} s. Log:\n${log()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Starts the private mail system; throws saying why (and what to install) when it cannot. */
export const startMailServer = async (): Promise<MailServer> => {
  const needed = ["/usr/sbin/dovecot", "/usr/lib/dovecot/imap", "/usr/lib/dovecot/lmtp", "/usr/lib/dovecot/submission", postfixMaster]
  if (!needed.every((file) => existsSync(file))) {
    throw new Error(`The email tests need a mail server from Debian's packages: apt-get install -y --no-install-recommends ${packages}`)
  }
  if (process.getuid?.() !== 0) throw new Error("The email tests start Dovecot and Postfix as root, as CI runs them.")
  const dir = mkdtempSync(join(tmpdir(), "ask-user-mail-"))
  chmodSync(dir, 0o755)
  const [imapPort, lmtpPort, submissionPort, relayPort] = [await freePort(), await freePort(), await freePort(), await freePort()]
  for (const sub of ["run", "log", "mail", "postfix", "postfix/data"]) mkdirSync(join(dir, sub), { recursive: true })
  chownSync(join(dir, "mail"), 65534, 65534)
  writeFileSync(join(dir, "users"), `${agentAddress}:{PLAIN}${agentPassword}\n${humanAddress}:{PLAIN}${humanPassword}\n`)
  const dovecotConf = join(dir, "dovecot.conf")
  writeFileSync(dovecotConf, `base_dir = ${dir}/run
state_dir = ${dir}/run/state
log_path = ${dir}/log/dovecot.log
protocols = imap lmtp submission
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
first_valid_uid = 1
mail_location = maildir:${dir}/mail/%u
recipient_delimiter = +
hostname = mail.example.test
submission_relay_host = 127.0.0.1
submission_relay_port = ${relayPort}
submission_relay_trusted = yes
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=65534 gid=65534 home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    port = ${imapPort}
  }
}
service submission-login {
  inet_listener submission {
    port = ${submissionPort}
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${lmtpPort}
  }
}
`)
  // Postfix: accepts mail from loopback on relayPort and delivers every example.test address
  // (plus addresses too) by LMTP to Dovecot. No chroot, no syslog: nothing outside `dir`.
  const postfix = join(dir, "postfix")
  const spool = join(postfix, "spool")
  writeFileSync(join(postfix, "main.cf"), `compatibility_level = 3.6
queue_directory = ${spool}
data_directory = ${postfix}/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = relay.example.test
mydestination =
relayhost =
virtual_mailbox_domains = example.test
virtual_transport = lmtp:inet:127.0.0.1:${lmtpPort}
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
alias_maps =
alias_database =
recipient_delimiter = +
`)
  writeFileSync(join(postfix, "master.cf"), [
    `127.0.0.1:${relayPort} inet n - n - - smtpd`,
    "pickup unix n - n 60 1 pickup",
    "cleanup unix n - n - 0 cleanup",
    "qmgr unix n - n 300 1 qmgr",
    "rewrite unix - - n - - trivial-rewrite",
    "bounce unix - - n - 0 bounce",
    "defer unix - - n - 0 bounce",
    "trace unix - - n - 0 bounce",
    "verify unix - - n - 1 verify",
    "flush unix n - n 1000? 0 flush",
    "proxymap unix - - n - - proxymap",
    "smtp unix - - n - - smtp",
    "relay unix - - n - - smtp",
    "error unix - - n - - error",
    "retry unix - - n - - error",
    "discard unix - - n - - discard",
    "lmtp unix - - n - - lmtp",
    "anvil unix - - n - 1 anvil",
    "scache unix - - n - 1 scache",
    ""
  ].join("\n"))
  // The queue's directories, as `postfix check` would make them.
  const postfixUid = Number(execFileSync("id", ["-u", "postfix"], { encoding: "utf8" }).trim())
  const postdropGid = Number(execFileSync("getent", ["group", "postdrop"], { encoding: "utf8" }).split(":")[2])
  mkdirSync(join(spool, "pid"), { recursive: true })
  for (const sub of ["public", "private", "maildrop", "incoming", "active", "deferred", "defer", "bounce", "corrupt", "flush", "hold", "saved", "trace"]) {
    mkdirSync(join(spool, sub))
    chownSync(join(spool, sub), postfixUid, sub === "public" || sub === "maildrop" ? postdropGid : 0)
    chmodSync(join(spool, sub), sub === "public" ? 0o2710 : sub === "maildrop" ? 0o1730 : 0o700)
  }
  chownSync(join(postfix, "data"), postfixUid, 0)

  const log = () => {
    try {
      return readFileSync(join(dir, "log", "dovecot.log"), "utf8")
    } catch {
      return "(no log)"
    }
  }
  let relay: ChildProcess | undefined
  let dovecotPid: number | undefined
  const stop = async () => {
    if (dovecotPid !== undefined && alive(dovecotPid)) {
      process.kill(dovecotPid, "SIGTERM")
      await until("stop", () => !alive(dovecotPid!), log).catch(() => process.kill(dovecotPid!, "SIGKILL"))
    }
    if (relay?.exitCode === null) {
      const exited = new Promise((resolve) => relay!.once("exit", resolve))
      relay.kill("SIGTERM")
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // Daemonizes: its output must not be a pipe we would read forever.
    execFileSync("/usr/sbin/dovecot", ["-c", dovecotConf], { stdio: "ignore" })
    const pidFile = join(dir, "run", "master.pid")
    await until("write its pid file", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", log)
    dovecotPid = Number(readFileSync(pidFile, "utf8").trim())
    relay = spawn(postfixMaster, ["-c", postfix, "-d"], { stdio: "ignore" })
    const relayExit = new Promise<never>((_, reject) =>
      relay!.once("exit", (code) => reject(new Error(`Postfix's master exited (${code}) on start: is ${postfix}/main.cf valid?`)))
    )
    await Promise.race([
      Promise.all([imapPort, lmtpPort, submissionPort, relayPort].map((port) => until(`listen on ${port}`, () => accepting(port), log))),
      relayExit
    ])
  } catch (error) {
    await stop()
    throw error
  }

  const lmtp = nodemailer.createTransport({ host: "127.0.0.1", port: lmtpPort, lmtp: true, secure: false, ignoreTLS: true } as never)
  const deliver = async ({ envelopeTo, ...mail }: SendMailOptions & { readonly envelopeTo: string }) => {
    const info = await lmtp.sendMail({ ...mail, envelope: { from: String(mail.from ?? humanAddress), to: envelopeTo } })
    return info.messageId
  }
  const humanMail = async () => {
    const client = new ImapFlow({
      host: "127.0.0.1",
      port: imapPort,
      secure: false,
      auth: { user: humanAddress, pass: humanPassword },
      logger: false
    })
    client.on("error", () => {})
    await client.connect()
    try {
      const mailbox = await client.mailboxOpen("INBOX")
      if (mailbox.exists === 0) return []
      const sources: Array<Buffer> = []
      for await (const message of client.fetch("1:*", { source: true })) {
        if (message.source !== undefined) sources.push(message.source)
      }
      return Promise.all(sources.map((source) => simpleParser(source)))
    } finally {
      await client.logout().catch(() => client.close())
    }
  }
  return {
    imapPort,
    submissionPort,
    smtpUrl: `smtp://${encodeURIComponent(agentAddress)}@127.0.0.1:${submissionPort}`,
    imapUrl: `imap://${encodeURIComponent(agentAddress)}@127.0.0.1:${imapPort}`,
    deliver,
    reply: (ask, text, extra) =>
      deliver({
        from: humanAddress,
        to: replyAddress(ask),
        envelopeTo: replyAddress(ask),
        subject: `Re: ${ask.subject}`,
        inReplyTo: ask.messageId!,
        references: ask.messageId!,
        text,
        ...extra
      }),
    humanMail,
    untilHumanMail: async (count) => {
      let mail: ReadonlyArray<ParsedMail> = []
      await until(`hold ${count} mails for the human`, async () => (mail = await humanMail()).length >= count, log, 60_000)
      return mail
    },
    kickAgent: () => {
      execFileSync("doveadm", ["-c", dovecotConf, "kick", agentAddress], { stdio: "pipe" })
    },
    agentImapBytesOut: () =>
      [...log().matchAll(/imap\(agent@example\.test\)[^\n]*?\bout=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0),
    log,
    stop: async () => {
      lmtp.close()
      await stop()
    }
  }
}
