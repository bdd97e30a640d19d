/**
 * A TCP proxy in front of the test PostgreSQL server, to take the database away from a process
 * as a network failure or a server restart would: `cut` drops every open connection and refuses
 * new ones, `restore` lets connections through again.
 */
import net from "node:net"
import type { TestContext } from "./tap.ts"

export interface TcpProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  readonly through: (databaseUrl: string) => string
  readonly cut: () => void
  readonly restore: () => void
  /** Connections refused while cut, so far: a client tried to come back. */
  readonly refused: () => number
}

export const startTcpProxy = async (t: TestContext, databaseUrl: string): Promise<TcpProxy> => {
  const target = new URL(databaseUrl)
  const open = new Set<net.Socket>()
  let up = true
  let refused = 0
  const server = net.createServer((client) => {
    if (!up) {
      refused++
      return void client.destroy()
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on("error", () => {})
      socket.on("close", () => {
        open.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy()
        server.close(() => resolve())
      })
  )
  return {
    through: (url) => {
      const proxied = new URL(url)
      proxied.hostname = "127.0.0.1"
      proxied.port = String(port)
      return proxied.toString()
    },
    cut: () => {
      up = false
      for (const socket of open) socket.destroy()
    },
    restore: () => {
      up = true
    },
    refused: () => refused
  }
}
