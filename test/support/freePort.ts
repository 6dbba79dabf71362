/**
 * A loopback TCP port that was free a moment ago, for a test server to
 * listen on (another process could take it first; the servers here start
 * at once).
 */
import { createServer } from "node:net"

export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
