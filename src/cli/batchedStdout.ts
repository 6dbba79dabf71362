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

/**
 * A `WritableStream` onto file descriptor `fd` (stdout by default) that
 * buffers the bytes written during one macrotask and writes them together
 * right after it; order is kept. Bytes still buffered when the process exits
 * are written then.
 *
 * @since 0.2.0
 */
export const batchedStdout = (fd = 1): WritableStream<Uint8Array> => {
  let pending: Array<Uint8Array> = []
  let scheduled: NodeJS.Immediate | undefined
  const flush = () => {
    scheduled = undefined
    if (pending.length === 0) return
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending)
    pending = []
    for (let written = 0; written < bytes.length;) {
      try {
        written += writeSync(fd, bytes, written)
      } catch (error) {
        // A full non-blocking pipe: try again; anything else (EPIPE: the reader is gone) ends the stream.
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error
      }
    }
  }
  process.once("exit", flush)
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
    },
    close: () => {
      if (scheduled !== undefined) clearImmediate(scheduled)
      flush()
      process.off("exit", flush)
    }
  })
}
