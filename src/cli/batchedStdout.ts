/**
 * stdout for a JSON-RPC line protocol (the ACP agent's), written in batches.
 * On Linux a write to a pipe is synchronous, and the agent sends several
 * messages per prompt turn (the tool call, the form, its end, the chunk, the
 * reply): one system call for each was the largest single cost of a turn
 * (see bench/acp.bench.ts). Notifications therefore wait for the message the
 * client is waiting for (a request or a response) and go out in one write
 * with it, or at the end of the macrotask that produced them.
 *
 * The agent's messages are serialized here, one JSON line each, rather than
 * through the SDK's `ndJsonStream` writer: that writer takes a lock on a
 * second web stream and encodes every message on its own, a tenth of a
 * turn's CPU. The SDK still reads the client's lines (`ndJsonStream`'s
 * readable) and matches requests to responses.
 *
 * @since 0.2.0
 */
import { writeSync } from "node:fs"

/**
 * The two writers onto one batched stdout. Whatever both are given goes out
 * in the order it was given.
 *
 * @since 0.2.0
 */
export interface BatchedStdout {
  /**
   * JSON-RPC messages (the SDK connection's `Stream.writable`), written one
   * JSON line each: a request or a response goes out at once with every line
   * queued before it; a notification waits for the next of those, or for the
   * end of the current macrotask.
   */
  readonly messages: WritableStream<object>
  /**
   * Lines already encoded, written at once: the SDK line reader's error
   * replies to lines it cannot read (the `output` of `ndJsonStream`).
   */
  readonly bytes: WritableStream<Uint8Array>
}

/** How long a full pipe is retried while the process exits, before its bytes are given up. */
const exitGraceMillis = 1_000

/** How long to wait before trying a full pipe again. */
const retryMillis = 5

const isFull = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === "EAGAIN"

/**
 * Writes `bytes` to `fd` as far as it takes them now: the bytes a full
 * (non-blocking) pipe did not take, or undefined when all went out. Any
 * other error (EPIPE: the reader is gone) is thrown.
 */
const writeNow = (fd: number, bytes: Uint8Array): Uint8Array | undefined => {
  for (let written = 0; written < bytes.length;) {
    try {
      written += writeSync(fd, bytes, written)
    } catch (error) {
      if (isFull(error)) return bytes.subarray(written)
      throw error
    }
  }
  return undefined
}

/** A JSON-RPC request or response (they carry an `id`); a notification has none. */
const isAwaited = (message: object): boolean => "id" in message

/**
 * A `BatchedStdout` onto file descriptor `fd` (stdout by default). When the
 * reader falls behind and the pipe is full, the rest waits and is tried
 * again every few milliseconds (writes then wait for it, so a producer feels
 * the back-pressure) instead of spinning on the pipe. A write that fails
 * (EPIPE: the reader is gone) errors both writers. Bytes still buffered when
 * the process exits are written then, for at most a second.
 *
 * @since 0.2.0
 */
export const batchedStdout = (fd = 1): BatchedStdout => {
  let pending: Array<string | Uint8Array> = []
  let scheduled: NodeJS.Immediate | undefined
  /** The bytes a full pipe left, and the wait for it to take them. */
  let backlog: Uint8Array | undefined
  let draining: Promise<void> | undefined
  let failure: { readonly error: unknown } | undefined
  const controllers = new Set<WritableStreamDefaultController>()
  let open = 2

  const take = (): Uint8Array => {
    const parts = backlog === undefined ? pending : [backlog, ...pending]
    backlog = undefined
    pending = []
    if (parts.every((part) => typeof part === "string")) return Buffer.from(parts.join(""))
    return Buffer.concat(parts.map((part) => typeof part === "string" ? Buffer.from(part) : part))
  }

  const fail = (error: unknown) => {
    failure ??= { error }
    for (const controller of controllers) controller.error(error)
  }

  const drain = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const retry = () => {
        try {
          backlog = writeNow(fd, take())
        } catch (error) {
          return reject(error)
        }
        if (backlog === undefined) resolve()
        else setTimeout(retry, retryMillis)
      }
      setTimeout(retry, retryMillis)
    }).finally(() => {
      draining = undefined
    })

  const flush = () => {
    if (scheduled !== undefined) clearImmediate(scheduled)
    scheduled = undefined
    // A wait for a full pipe is under way: it takes what is pending, in order.
    if (draining !== undefined || pending.length === 0) return
    backlog = writeNow(fd, take())
    if (backlog !== undefined) draining = drain()
  }

  const flushLater = () => {
    scheduled = undefined
    try {
      flush()
    } catch (error) {
      fail(error)
    }
  }

  /** Queues `part`, written at once (`now`) or after this macrotask; the write waits for a full pipe. */
  const send = (part: string | Uint8Array, now: boolean): Promise<void> | undefined => {
    if (failure !== undefined) throw failure.error
    pending.push(part)
    if (!now) scheduled ??= setImmediate(flushLater)
    else {
      try {
        flush()
      } catch (error) {
        fail(error)
        throw error
      }
    }
    return draining?.catch(fail)
  }

  const flushAtExit = () => {
    const deadline = Date.now() + exitGraceMillis
    let rest: Uint8Array | undefined = backlog !== undefined || pending.length > 0 ? take() : undefined
    while (rest !== undefined && Date.now() < deadline) {
      try {
        rest = writeNow(fd, rest)
      } catch {
        return
      }
    }
  }
  process.once("exit", flushAtExit)

  const close = async () => {
    if (draining !== undefined) await draining
    flush()
    if (draining !== undefined) await draining
    if (--open === 0) process.off("exit", flushAtExit)
  }

  return {
    messages: new WritableStream<object>({
      start: (controller) => void controllers.add(controller),
      write: (message) => send(`${JSON.stringify(message)}\n`, isAwaited(message)),
      close
    }),
    bytes: new WritableStream<Uint8Array>({
      start: (controller) => void controllers.add(controller),
      write: (chunk) => send(chunk, true),
      close
    })
  }
}
