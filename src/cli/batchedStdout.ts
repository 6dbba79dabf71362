/**
 * stdout for a line protocol, written in batches: every message produced in
 * one turn of the event loop goes out in one write. On Linux a write to a
 * pipe is synchronous, and the ACP agent sends several messages per prompt
 * turn (the tool call, the form, its end, the reply): one system call for
 * each was the largest single cost of a turn (see bench/acp.bench.ts).
 *
 * @since 0.2.0
 */
import { writeSync } from "node:fs"

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

/**
 * A `WritableStream` onto file descriptor `fd` (stdout by default) that
 * buffers the bytes written during one macrotask and writes them together
 * right after it; order is kept. When the reader falls behind and the pipe is
 * full, the rest waits and is tried again every few milliseconds (writes then
 * wait for it, so a producer feels the back-pressure) instead of spinning on
 * the pipe. Bytes still buffered when the process exits are written then,
 * for at most a second.
 *
 * @since 0.2.0
 */
export const batchedStdout = (fd = 1): WritableStream<Uint8Array> => {
  let pending: Array<Uint8Array> = []
  let scheduled: NodeJS.Immediate | undefined
  /** The bytes a full pipe left, and the wait for it to take them. */
  let backlog: Uint8Array | undefined
  let draining: Promise<void> | undefined

  const take = (): Uint8Array => {
    const parts = backlog === undefined ? pending : [backlog, ...pending]
    backlog = undefined
    pending = []
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
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
    scheduled = undefined
    // A wait for a full pipe is under way: it takes what is pending, in order.
    if (draining !== undefined || pending.length === 0) return
    backlog = writeNow(fd, take())
    if (backlog !== undefined) draining = drain()
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

  return new WritableStream<Uint8Array>({
    write: (chunk, controller) => {
      pending.push(chunk)
      scheduled ??= setImmediate(() => {
        try {
          flush()
        } catch (error) {
          controller.error(error)
        }
      })
      return draining?.catch((error) => controller.error(error))
    },
    close: async () => {
      if (scheduled !== undefined) clearImmediate(scheduled)
      if (draining !== undefined) await draining
      flush()
      if (draining !== undefined) await draining
      process.off("exit", flushAtExit)
    }
  })
}
