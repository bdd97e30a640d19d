/**
 * HTTP/1.1 over a bare TCP socket, for what an HTTP client would not send as written (header bytes
 * it refuses, a body sent slowly or never finished, a body larger than it was told) and for what
 * it would hide (whether and when the server closes the connection). A connection the server keeps
 * open past `patienceMs` is given up: `closed` and `response` reject, so that a server that never
 * closes fails its test at once rather than at tap's timeout.
 */
import { connect, type Socket } from "node:net"

export interface RawResponse {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface RawConnection {
  readonly socket: Socket
  /** The first response, once it has arrived in full; rejects if the connection ends before. */
  readonly response: Promise<RawResponse>
  /** Resolves when the connection has closed (the server closed or reset it, or the test destroyed it); rejects when the client gave up waiting. */
  readonly closed: Promise<void>
  /** Writes and waits until the socket takes more; does nothing once the connection is closed. */
  readonly write: (data: string | Buffer) => Promise<void>
  /** Everything received so far. */
  readonly received: () => string
}

const parse = (buffer: Buffer): RawResponse | undefined => {
  const end = buffer.indexOf("\r\n\r\n")
  if (end === -1) return undefined
  const [statusLine, ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers["content-length"] ?? 0)
  if (buffer.length < end + 4 + length) return undefined
  return {
    status: Number(statusLine!.split(" ")[1]),
    headers,
    body: buffer.subarray(end + 4, end + 4 + length).toString("utf8")
  }
}

/** Longer than any limit a test server is given, far shorter than tap's timeout. */
const PATIENCE_MS = 30_000

export const openRaw = (url: string, patienceMs = PATIENCE_MS): Promise<RawConnection> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ host: hostname, port: Number(port) })
    let buffer = Buffer.alloc(0)
    let isClosed = false
    let gaveUp = false
    const patience = setTimeout(() => {
      gaveUp = true
      socket.destroy()
    }, patienceMs)
    let settle: { resolve: (response: RawResponse) => void; reject: (error: Error) => void } | undefined
    const response = new Promise<RawResponse>((resolve, reject) => {
      settle = { resolve, reject }
    })
    // Writes into a connection the server has closed fail (EPIPE, ECONNRESET); the test looks at what arrived.
    socket.on("error", () => {})
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk])
      const parsed = parse(buffer)
      if (parsed) settle!.resolve(parsed)
    })
    const closed = new Promise<void>((resolve, reject) =>
      socket.once("close", () => {
        isClosed = true
        clearTimeout(patience)
        const received = JSON.stringify(buffer.toString("latin1"))
        if (gaveUp) {
          const error = new Error(`the server kept the connection open for ${patienceMs} ms; received: ${received}`)
          settle!.reject(error)
          return reject(error)
        }
        settle!.reject(new Error(`the connection closed without a full response; received: ${received}`))
        resolve()
      })
    )
    // A test that does not wait for the close must not see its rejection as unhandled.
    closed.catch(() => {})
    const write = (data: string | Buffer) =>
      new Promise<void>((done) => {
        if (isClosed || socket.destroyed) return done()
        if (socket.write(data)) return done()
        const finish = () => {
          socket.off("drain", finish)
          socket.off("close", finish)
          done()
        }
        socket.once("drain", finish)
        socket.once("close", finish)
      })
    socket.once("connect", () => resolve({ socket, response, closed, write, received: () => buffer.toString("latin1") }))
    socket.once("error", reject)
  })

/** Sends `text` one byte every `intervalMs` until the server closes the connection (the way a slowloris client holds one open). */
export const trickle = async (connection: RawConnection, text: string, intervalMs: number) => {
  let isClosed = false
  const ended = () => {
    isClosed = true
  }
  void connection.closed.then(ended, ended)
  for (let i = 0; !isClosed; i = (i + 1) % text.length) {
    await connection.write(text[i]!)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
