/**
 * Connections, where no handler sees them. Node's HTTP parser refuses some requests before any
 * handler runs (headers over its limit, a byte a header may not hold, Content-Length with
 * Transfer-Encoding, a request line it cannot read), and cuts off a client that takes longer than
 * PRESSROOM_HEADERS_TIMEOUT_MS to send its headers or PRESSROOM_REQUEST_TIMEOUT_MS to send its
 * whole request (slowloris). `answerClientError` answers these as every error is answered: the
 * envelope, `invalid_request`, `X-Correlation-Id`, then the connection closes.
 *
 * A connection is closed only `LINGER_MS` after its last answer. A client may still be sending
 * (the body of a request answered 401 or 413 before it arrived, or the rest of a request Node
 * refused), and closing a socket with unread data resets the connection, which can discard the
 * answer before the client has read it. Meanwhile what arrives is read and dropped.
 */
import { randomUUID } from "node:crypto"
import { type IncomingMessage, maxHeaderSize, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { dialectOf, errorBody } from "../shared/error-responses.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { TransportRefusal } from "./transport-refusal.ts"

/** Sent on every response, those of the API (error-envelope.ts) and those written here on the socket: a body is what its Content-Type says. */
export const COMMON_HEADERS = { "x-content-type-options": "nosniff" } as const

const LINGER_MS = 2_000

/** Connections answered and about to close: nothing on them is answered again. */
const closing = new WeakSet<Duplex>()

const closeSoon = (socket: Duplex) => {
  closing.add(socket)
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  return timer
}

/**
 * A request answered before its body arrived in full (401, 413, 404…): Node reads and drops the
 * rest of the body, and the connection closes if the body has not ended `LINGER_MS` later, so an
 * answered request cannot hold a connection with a body that never ends.
 */
export const closeAfterEarlyAnswer = (request: IncomingMessage) => {
  if (request.complete) return
  const timer = closeSoon(request.socket)
  request.once("end", () => {
    clearTimeout(timer)
    closing.delete(request.socket)
  })
}

interface ClientError extends Error {
  readonly code?: string
  /** The bytes the parser was reading when it failed. */
  readonly rawPacket?: Buffer
}

/** The status of Node's own answer for each error: 431 for headers over its limit, 408 for a timeout, else 400. */
const refusal = (error: ClientError): InvalidRequest | TransportRefusal => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new TransportRefusal({ status: 431, message: `the request's headers are larger than ${maxHeaderSize} bytes` })
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new TransportRefusal({ status: 408, message: "the request was not received in time" })
    default:
      return InvalidRequest.malformed("the request is not valid HTTP/1.1")
  }
}

/**
 * The path of the refused request: the request in flight (a body too slow), else the request line
 * among the bytes the parser failed on. None when neither shows one (a request line that cannot
 * be read, headers too slow): the answer is then v2, whose envelope holds v1's `error` too.
 */
const pathOf = (error: ClientError, inFlight: ServerResponse | undefined): string | undefined => {
  const target = inFlight?.req?.url ?? /^[!-~]+ (\S+) HTTP\/\d/.exec(error.rawPacket?.toString("latin1") ?? "")?.[1]
  if (target === undefined) return undefined
  try {
    return new URL(target, "http://x").pathname
  } catch {
    return undefined
  }
}

/** The method of the refused request, when its request line can be read: a label of `/metrics`. */
const methodOf = (error: ClientError, inFlight: ServerResponse | undefined): string =>
  inFlight?.req?.method ?? /^([A-Z]+) \S+ HTTP\/\d/.exec(error.rawPacket?.toString("latin1") ?? "")?.[1] ?? "unknown"

/**
 * The server's `clientError` listener. `counted` records the answer as `/metrics` records every
 * other (method, the route `unmatched`, status), so refused and timed-out requests show there too.
 */
export const answerClientError = (counted: (method: string, status: number) => void) => (error: ClientError, socket: Duplex) => {
  // Node's own (internal) pointer to the response in flight on this connection.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined
  if (closing.has(socket)) return
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) return void socket.destroy()
  const refused = refusal(error)
  const correlationId = randomUUID()
  const path = pathOf(error, inFlight)
  const body = JSON.stringify(errorBody(refused, correlationId, path === undefined ? "v2" : dialectOf(path)))
  counted(methodOf(error, inFlight), refused.status)
  socket.end(
    [
      `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status]}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Correlation-Id: ${correlationId}`,
      ...Object.entries(COMMON_HEADERS).map(([name, value]) => `${name}: ${value}`),
      "Connection: close",
      "",
      body
    ].join("\r\n")
  )
  closeSoon(socket)
}
