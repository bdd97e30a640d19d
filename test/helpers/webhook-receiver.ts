/**
 * A customer's webhook receiver: HTTPS on 127.0.0.1, its certificate from a CA made here and
 * written to a file for the server's NODE_EXTRA_CA_CERTS. It records every request by path and
 * answers as the test says (204 unless told otherwise); tests verify what it got with the
 * `standardwebhooks` package, as a customer would.
 */
import { writeFileSync } from "node:fs"
import type { IncomingHttpHeaders } from "node:http"
import { createServer } from "node:https"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { Webhook } from "standardwebhooks"
import { until } from "./lifecycle.ts"
import type { TestContext } from "./tap.ts"
import { makeTestCa, serverCertificate } from "./test-ca.ts"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly json: any
  readonly receivedAt: number
}

/** How the receiver answers the `n`th request (from 1) to a path: a status, headers and a body, or never. */
export type Answer = (n: number) => { status: number; headers?: Record<string, string>; body?: string } | "hang"

export const startReceiver = async (t: TestContext, dir: string) => {
  const ca = await makeTestCa()
  const certificate = await serverCertificate(ca)
  const caFile = join(dir, "webhook-test-ca.pem")
  writeFileSync(caFile, ca.cert)

  const received: Array<Received> = []
  const answers = new Map<string, Answer>()
  const counts = new Map<string, number>()
  const server = createServer({ key: certificate.private, cert: certificate.cert }, async (request, response) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk)
    const path = request.url!
    const body = Buffer.concat(chunks).toString("utf8")
    received.push({ path, headers: request.headers, body, json: JSON.parse(body), receivedAt: Date.now() })
    const n = (counts.get(path) ?? 0) + 1
    counts.set(path, n)
    const answer = answers.get(path)?.(n) ?? { status: 204 }
    if (answer === "hang") return
    response.writeHead(answer.status, answer.headers ?? {})
    response.end(answer.body)
  })
  // Connections, counted before TLS: a test can show that nothing reached the receiver at all.
  let connections = 0
  server.on("connection", () => connections++)
  server.listen(0, "127.0.0.1")
  await new Promise((resolve) => server.once("listening", resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const port = (server.address() as AddressInfo).port

  const at = (path: string) => received.filter((delivery) => delivery.path === path)
  return {
    caFile,
    endpoint: (path: string) => `https://127.0.0.1:${port}${path}`,
    answer: (path: string, answer: Answer) => answers.set(path, answer),
    at,
    /** How many TCP connections were opened to the receiver, whatever became of them. */
    connections: () => connections,
    /** Every request received, on any path. */
    all: (): ReadonlyArray<Received> => received,
    /** Waits for `count` requests to `path` and answers them. */
    awaitAt: (path: string, count = 1, timeoutMs = 60_000): Promise<Array<Received>> =>
      until(`${count} deliveries at ${path}`, async () => (at(path).length >= count ? at(path) : undefined), timeoutMs) as Promise<
        Array<Received>
      >
  }
}

/** The delivery's payload when `secret` verifies its signature; throws (WebhookVerificationError) otherwise. */
export const verify = (secret: string, delivery: Received): any =>
  new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)
