/**
 * An HTTP proxy in front of a real server that records every request it receives and can, for a
 * request matching a rule, answer it itself instead, once: with the specification's 429 and a
 * Retry-After, or by resetting the connection before any answer, as a failing network would.
 * What it forwards reaches the server as sent.
 */
import http from "node:http"
import type { AddressInfo } from "node:net"
import { errorBody } from "../../src/shared/error-responses.ts"
import { RateLimited } from "../../src/shared/errors.ts"
import type { TestContext } from "./tap.ts"

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly idempotencyKey: string | undefined
  /** When the proxy received it (performance.now()). */
  readonly at: number
}

export type Interception = { readonly kind: "rate_limited"; readonly retryAfterSeconds: number } | { readonly kind: "reset" }

export interface RecordingProxy {
  readonly url: string
  readonly requests: Array<RecordedRequest>
  /** The next request matching `method` and `path` gets `interception` instead of the server's answer. */
  readonly interceptOnce: (method: string, path: RegExp, interception: Interception) => void
}

export const startRecordingProxy = async (t: TestContext, target: string): Promise<RecordingProxy> => {
  const requests: Array<RecordedRequest> = []
  const pending: Array<{ method: string; path: RegExp; interception: Interception }> = []
  const server = http.createServer((request, response) => {
    const path = request.url ?? "/"
    const key = request.headers["idempotency-key"]
    requests.push({ method: request.method ?? "", path, idempotencyKey: typeof key === "string" ? key : undefined, at: performance.now() })
    const index = pending.findIndex((rule) => rule.method === request.method && rule.path.test(path))
    if (index >= 0) {
      const [{ interception }] = pending.splice(index, 1) as [(typeof pending)[number]]
      request.resume()
      if (interception.kind === "reset") return void request.socket.resetAndDestroy()
      // The 429 as the server writes it (specification section 7), in the v2 envelope.
      const body = JSON.stringify(
        errorBody(new RateLimited({ retryAfterSeconds: interception.retryAfterSeconds }), crypto.randomUUID(), "v2")
      )
      response.writeHead(429, { "content-type": "application/json", "retry-after": String(interception.retryAfterSeconds) })
      return void response.end(body)
    }
    const upstream = http.request(new URL(path, target), { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    })
    upstream.on("error", () => response.destroy())
    request.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    interceptOnce: (method, path, interception) => void pending.push({ method, path, interception })
  }
}
