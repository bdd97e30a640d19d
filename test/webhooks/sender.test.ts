/**
 * The webhook sender (issue 20): an endpoint whose host is, or resolves to, a refused address is
 * refused before anything is sent (no DNS query, no connection, no request: counted by async
 * hooks, and a loopback listener on the port sees nothing); with private networks allowed, a real
 * HTTPS receiver on 127.0.0.1, its certificate from a CA made here, receives the exact body and
 * headers; the host is resolved once and the certificate is checked against the URL's name; a 2xx
 * is delivered, a 500 and a redirect fail (the redirect's target hears nothing), a silent endpoint
 * fails with "timeout" soon after the limit, and an endless body is cut. Every connection made
 * here goes to 127.0.0.1.
 */
import { Effect, Fiber } from "effect"
import { createHook } from "node:async_hooks"
import type { LookupAddress } from "node:dns"
import { once } from "node:events"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from "node:net"
import type { TLSSocket } from "node:tls"
import t from "tap"
import type { TestContext } from "../helpers/tap.ts"
import { makeTestCa, serverCertificate } from "../helpers/test-ca.ts"
import { type Delivery, type SendResult, send } from "../../src/webhooks/sender.ts"

const SIGNATURE = "v1,c2lnbmF0dXJlLW5vdC10by1iZS1sb2dnZWQ="
const HEADERS = {
  "content-type": "application/json",
  "webhook-id": "msg_2f0c1d7e",
  "webhook-timestamp": "1795000000",
  "webhook-signature": SIGNATURE
}
const BODY = JSON.stringify({ id: "2f0c1d7e", type: "job.succeeded", apiVersion: "2026-07-22", note: "naïve ✓" })

// A test CA, and the receiver's certificate from it for the name receiver.test and for 127.0.0.1.
const ca = await makeTestCa()
const receiverCertificate = await serverCertificate(ca, "receiver.test")

interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly servername: string | false | null
  readonly body: string
}

/** An HTTPS receiver on 127.0.0.1 that records what it was sent, then lets `answer` reply. */
const startReceiver = async (t: TestContext, answer: (response: ServerResponse) => void) => {
  const received: Array<Received> = []
  let connections = 0
  const server = createHttpsServer({ key: receiverCertificate.private, cert: receiverCertificate.cert }, async (request, response) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk)
    received.push({
      method: request.method!,
      url: request.url!,
      headers: request.headers,
      servername: (request.socket as TLSSocket).servername,
      body: Buffer.concat(chunks).toString("utf8")
    })
    answer(response)
  })
  server.on("connection", () => connections++)
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  t.teardown(() => closeServer(server))
  return { port: (server.address() as AddressInfo).port, received, connections: () => connections }
}

/** A TCP listener on 127.0.0.1 that only counts connections, and never says anything. */
const startListener = async (t: TestContext) => {
  const sockets: Array<Socket> = []
  const server = createTcpServer((socket) => sockets.push(socket))
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return closeServer(server)
  })
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.length }
}

const closeServer = (server: Server) => {
  server.close()
  ;(server as Server & { closeAllConnections?: () => void }).closeAllConnections?.()
  return once(server, "close")
}

/** A resolver from a table that records every name it is asked for (there is no DNS here). */
const tableLookup = (table: Readonly<Record<string, ReadonlyArray<string>>>) => {
  const asked: Array<string> = []
  const lookup = async (hostname: string): Promise<ReadonlyArray<LookupAddress>> => {
    asked.push(hostname)
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  return { lookup, asked }
}

/** Waits for `condition`, failing the test after five seconds rather than hanging it. */
const eventually = async (t: TestContext, condition: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.ok(condition(), what)
}

const sendTo = (delivery: Partial<Delivery> & Pick<Delivery, "url">): Promise<SendResult> =>
  Effect.runPromise(send({ headers: HEADERS, body: BODY, timeoutMs: 5_000, allowPrivateNetworks: false, ca: ca.cert, ...delivery }))

/**
 * What `run` made of the network, as async resources: DNS queries through the system resolver,
 * outgoing TCP connections, HTTP client requests.
 */
const networkDuring = async <A>(run: () => Promise<A>) => {
  const counts = { dnsQueries: 0, connections: 0, requests: 0 }
  const hook = createHook({
    init: (_id, type) => {
      if (type === "GETADDRINFOREQWRAP") counts.dnsQueries++
      if (type === "TCPCONNECTWRAP") counts.connections++
      if (type === "HTTPCLIENTREQUEST") counts.requests++
    }
  }).enable()
  try {
    return { result: await run(), ...counts }
  } finally {
    hook.disable()
  }
}

t.test("endpoints at refused addresses are refused before anything is sent", async (t) => {
  const listener = await startListener(t)
  const port = listener.port
  // Literal hosts, in the spellings the URL parser turns into the same address.
  const literals: ReadonlyArray<readonly [url: string, reason: string]> = [
    [`https://127.0.0.1:${port}/hook`, "127.0.0.1 is loopback"],
    [`https://2130706433:${port}/hook`, "127.0.0.1 is loopback"],
    [`https://0x7f.1:${port}/hook`, "127.0.0.1 is loopback"],
    [`https://0x7f000001:${port}/hook`, "127.0.0.1 is loopback"],
    [`https://017700000001:${port}/hook`, "127.0.0.1 is loopback"],
    [`https://127.1:${port}/hook`, "127.0.0.1 is loopback"],
    [`https://[::1]:${port}/hook`, "::1 is loopback"],
    [`https://[::ffff:7f00:1]:${port}/hook`, "::ffff:7f00:1 is loopback"],
    [`https://[::ffff:127.0.0.1]:${port}/hook`, "::ffff:7f00:1 is loopback"],
    [`https://[0:0:0:0:0:ffff:7f00:1]:${port}/hook`, "::ffff:7f00:1 is loopback"],
    [`https://0.0.0.0:${port}/hook`, "0.0.0.0 is unspecified"],
    [`https://0/hook`, "0.0.0.0 is unspecified"],
    [`https://[::]:${port}/hook`, ":: is unspecified"],
    ["https://10.0.0.1/hook", "10.0.0.1 is private"],
    ["https://0xa000001/hook", "10.0.0.1 is private"],
    ["https://172.16.5.4/hook", "172.16.5.4 is private"],
    ["https://192.168.0.1/hook", "192.168.0.1 is private"],
    ["https://3232235521/hook", "192.168.0.1 is private"],
    ["https://100.64.0.1/hook", "100.64.0.1 is carrier-grade NAT"],
    ["https://169.254.169.254/latest/meta-data/", "169.254.169.254 is link-local"],
    ["https://0xa9fea9fe/latest/meta-data/", "169.254.169.254 is link-local"],
    ["https://[::ffff:169.254.169.254]/latest/meta-data/", "::ffff:a9fe:a9fe is link-local"],
    ["https://255.255.255.255/hook", "255.255.255.255 is broadcast"],
    ["https://224.0.0.1/hook", "224.0.0.1 is multicast"],
    ["https://240.0.0.1/hook", "240.0.0.1 is reserved"],
    ["https://192.0.2.10/hook", "192.0.2.10 is reserved"],
    ["https://[fd00::1]/hook", "fd00::1 is unique local"],
    ["https://[fe80::1]/hook", "fe80::1 is link-local"],
    ["https://[ff02::1]/hook", "ff02::1 is multicast"],
    ["https://[2001:db8::1]/hook", "2001:db8::1 is reserved"],
    ["https://[64:ff9b::a9fe:a9fe]/hook", "64:ff9b::a9fe:a9fe is link-local inside NAT64"],
    ["https://[2002:a00:1::1]/hook", "2002:a00:1::1 is private inside 6to4"]
  ]
  for (const [url, reason] of literals) {
    const { lookup, asked } = tableLookup({})
    const { result, dnsQueries, connections, requests } = await networkDuring(() => sendTo({ url, lookup }))
    t.match(result, { outcome: "refused", reason }, url)
    t.same({ asked, dnsQueries, connections, requests }, { asked: [], dnsQueries: 0, connections: 0, requests: 0 }, `${url}: nothing sent`)
  }

  // Host names, resolved through the injected lookup only.
  const names: ReadonlyArray<readonly [addresses: ReadonlyArray<string>, reason: string]> = [
    [["127.0.0.1"], "127.0.0.1 is loopback"],
    [["::1"], "::1 is loopback"],
    [["10.1.2.3"], "10.1.2.3 is private"],
    [["172.20.0.1"], "172.20.0.1 is private"],
    [["192.168.10.10"], "192.168.10.10 is private"],
    [["100.100.100.200"], "100.100.100.200 is carrier-grade NAT"],
    [["169.254.169.254"], "169.254.169.254 is link-local"],
    [["0.0.0.0"], "0.0.0.0 is unspecified"],
    [["::"], ":: is unspecified"],
    [["239.1.1.1"], "239.1.1.1 is multicast"],
    [["198.51.100.1"], "198.51.100.1 is reserved"],
    [["fc00::5"], "fc00::5 is unique local"],
    [["fe80::1%eth0"], "fe80::1%eth0 is link-local"],
    [["::ffff:127.0.0.1"], "::ffff:127.0.0.1 is loopback"],
    [["::ffff:c0a8:101"], "::ffff:c0a8:101 is private"],
    [["64:ff9b::7f00:1"], "64:ff9b::7f00:1 is loopback inside NAT64"],
    [["2001:0:4136:e378:8000:63bf:80ff:fffe"], "2001:0:4136:e378:8000:63bf:80ff:fffe is loopback inside Teredo"],
    // One public address beside a private one: the name is refused, and the public one not tried.
    [["93.184.216.34", "10.0.0.7"], "10.0.0.7 is private"],
    [["2606:4700::1111", "127.0.0.1"], "127.0.0.1 is loopback"]
  ]
  for (const [addresses, reason] of names) {
    const { lookup, asked } = tableLookup({ "hooks.example.com": addresses })
    const url = `https://hooks.example.com:${port}/hook`
    const { result, dnsQueries, connections, requests } = await networkDuring(() => sendTo({ url, lookup }))
    t.match(result, { outcome: "refused", reason }, addresses.join(", "))
    t.same(
      { asked, dnsQueries, connections, requests },
      { asked: ["hooks.example.com"], dnsQueries: 0, connections: 0, requests: 0 },
      `${addresses.join(", ")}: resolved once, nothing sent`
    )
  }
  t.equal(listener.connections(), 0, "the loopback listener was never reached")
})

t.test("only https URLs are sent to", async (t) => {
  const listener = await startListener(t)
  for (const url of [`http://127.0.0.1:${listener.port}/hook`, `ftp://127.0.0.1:${listener.port}/`, `ws://receiver.test/`]) {
    const result = await sendTo({ url, allowPrivateNetworks: true })
    t.match(result, { outcome: "refused", reason: "not https" }, url)
  }
  t.match(await sendTo({ url: "receiver.test/hook", allowPrivateNetworks: true }), { outcome: "refused", reason: "not a URL" })
  t.equal(listener.connections(), 0)
})

t.test("with private networks allowed, a loopback receiver gets the exact body and headers", async (t) => {
  const receiver = await startReceiver(t, (response) => response.writeHead(200, { "content-type": "text/plain" }).end("thanks"))
  const { lookup, asked } = tableLookup({ "receiver.test": ["127.0.0.1"] })
  const { result, dnsQueries } = await networkDuring(() =>
    sendTo({ url: `https://receiver.test:${receiver.port}/hooks/pressroom?tenant=7`, lookup, allowPrivateNetworks: true })
  )
  t.match(result, { outcome: "delivered", status: 200, excerpt: "thanks" })
  t.ok(result.durationMs >= 0 && Number.isInteger(result.durationMs), "a duration in whole milliseconds")
  t.same(asked, ["receiver.test"], "resolved once, through the injected lookup")
  t.equal(dnsQueries, 0, "the system resolver was never asked")
  t.equal(receiver.received.length, 1)
  const [received] = receiver.received
  t.equal(received!.method, "POST")
  t.equal(received!.url, "/hooks/pressroom?tenant=7")
  t.equal(received!.body, BODY, "the exact bytes")
  t.match(received!.headers, { ...HEADERS, "content-length": String(Buffer.byteLength(BODY)) })
  t.equal(received!.headers.host, `receiver.test:${receiver.port}`, "the Host header is the URL's")
  t.equal(received!.servername, "receiver.test", "the TLS server name is the URL's")
})

t.test("the host is resolved once: a later answer cannot redirect the connection", async (t) => {
  const receiver = await startReceiver(t, (response) => response.writeHead(204).end())
  const asked: Array<string> = []
  // Rebinding: the first answer is the receiver, every later one an address nothing listens on.
  const lookup = async (hostname: string): Promise<ReadonlyArray<LookupAddress>> => {
    asked.push(hostname)
    return [{ address: asked.length === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }]
  }
  const result = await sendTo({ url: `https://receiver.test:${receiver.port}/`, lookup, allowPrivateNetworks: true })
  t.match(result, { outcome: "delivered", status: 204, excerpt: "" })
  t.equal(asked.length, 1)
  t.equal(receiver.received.length, 1)
})

t.test("a literal address is connected to without a lookup", async (t) => {
  const receiver = await startReceiver(t, (response) => response.writeHead(202).end("queued"))
  const { lookup, asked } = tableLookup({})
  const result = await sendTo({ url: `https://127.0.0.1:${receiver.port}/hook`, lookup, allowPrivateNetworks: true })
  t.match(result, { outcome: "delivered", status: 202, excerpt: "queued" })
  t.same(asked, [])
  t.equal(receiver.received[0]?.body, BODY)
})

t.test("the certificate is checked against the URL's host name and the trusted CAs", async (t) => {
  const receiver = await startReceiver(t, (response) => response.writeHead(200).end())
  const { lookup } = tableLookup({ "receiver.test": ["127.0.0.1"], "elsewhere.test": ["127.0.0.1"] })
  const otherName = await sendTo({ url: `https://elsewhere.test:${receiver.port}/`, lookup, allowPrivateNetworks: true })
  t.match(otherName, { outcome: "failed", reason: "connection failed (ERR_TLS_CERT_ALTNAME_INVALID)" })
  const untrusted = await sendTo({ url: `https://receiver.test:${receiver.port}/`, lookup, allowPrivateNetworks: true, ca: undefined })
  t.match(untrusted, {
    outcome: "failed",
    reason: /^connection failed \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)$/
  })
  t.equal(receiver.received.length, 0, "no request reached the receiver")
})

t.test("a 500 is a failure with its status and the start of its body", async (t) => {
  const receiver = await startReceiver(t, (response) => response.writeHead(500).end("upstream exploded"))
  const result = await sendTo({ url: `https://127.0.0.1:${receiver.port}/`, allowPrivateNetworks: true })
  t.match(result, { outcome: "failed", status: 500, excerpt: "upstream exploded" })
  t.notOk("reason" in result)
  t.equal(receiver.received.length, 1)
})

t.test("a redirect is a failure and is not followed", async (t) => {
  const target = await startReceiver(t, (response) => response.writeHead(200).end())
  for (const status of [301, 302, 307, 308]) {
    const location = `https://127.0.0.1:${target.port}/elsewhere`
    const receiver = await startReceiver(t, (response) => response.writeHead(status, { location }).end("moved"))
    const result = await sendTo({ url: `https://127.0.0.1:${receiver.port}/`, allowPrivateNetworks: true })
    t.match(result, { outcome: "failed", status, reason: "redirect not followed" }, String(status))
    t.equal(receiver.received.length, 1)
  }
  t.equal(target.connections(), 0, "the Location target heard nothing")
})

t.test("an endpoint that never answers fails with a timeout soon after the limit", async (t) => {
  const silent = await startReceiver(t, () => {})
  const trickling = await startReceiver(t, (response) => {
    response.writeHead(200)
    response.write("still ")
  })
  const noTls = await startListener(t)
  const asked: Array<string> = []
  const lookup = (hostname: string) => {
    asked.push(hostname)
    return new Promise<never>(() => {})
  }
  const timeoutMs = 300
  const cases: ReadonlyArray<readonly [what: string, delivery: Pick<Delivery, "url"> & Partial<Delivery>]> = [
    ["no response", { url: `https://127.0.0.1:${silent.port}/` }],
    ["a body that never ends", { url: `https://127.0.0.1:${trickling.port}/` }],
    ["no TLS handshake", { url: `https://127.0.0.1:${noTls.port}/` }],
    ["a resolver that never answers", { url: "https://receiver.test/", lookup }]
  ]
  for (const [what, delivery] of cases) {
    const started = performance.now()
    const result = await sendTo({ ...delivery, timeoutMs, allowPrivateNetworks: true })
    const waited = performance.now() - started
    t.match(result, { outcome: "failed", reason: "timeout" }, what)
    t.ok(result.durationMs >= timeoutMs - 5 && waited < timeoutMs + 1_500, `${what}: ended after ${Math.round(waited)} ms`)
    t.notMatch(JSON.stringify(result), SIGNATURE, "no header in the result")
  }
  t.same(asked, ["receiver.test"])
  t.equal(silent.received.length, 1)
  t.equal(noTls.connections(), 1)
})

t.test("a huge response body is cut at the read limit, and the excerpt is short", async (t) => {
  let responseClosedEarly = false
  const receiver = await startReceiver(t, (response) => {
    response.writeHead(200, { "content-type": "text/plain" })
    const chunk = Buffer.alloc(16 * 1024, "x")
    const pump = () => {
      while (!response.destroyed && response.write(chunk)) {}
    }
    response.on("drain", pump)
    response.on("close", () => (responseClosedEarly = !response.writableFinished))
    pump()
  })
  const started = performance.now()
  const result = await sendTo({ url: `https://127.0.0.1:${receiver.port}/`, allowPrivateNetworks: true, timeoutMs: 10_000 })
  t.match(result, { outcome: "delivered", status: 200 })
  // 1 KiB of the body is kept as the excerpt (ARCHITECTURE.md, webhook deliveries).
  t.equal("excerpt" in result && result.excerpt, "x".repeat(1024))
  t.ok(performance.now() - started < 5_000, "it did not wait for the end of an endless body")
  await eventually(t, () => responseClosedEarly, "the receiver saw its response cut off")
})

t.test("a body cut short by the endpoint keeps its status", async (t) => {
  const receiver = await startReceiver(t, (response) => {
    response.writeHead(200, { "content-length": "1000" })
    response.write("partial", () => response.socket?.destroy())
  })
  const result = await sendTo({ url: `https://127.0.0.1:${receiver.port}/`, allowPrivateNetworks: true, timeoutMs: 10_000 })
  t.match(result, { outcome: "delivered", status: 200, excerpt: "partial" })
  t.ok(result.durationMs < 5_000, "without waiting for the timeout")
})

t.test("a connection refused is a failure that names the error, never a header", async (t) => {
  // A port just freed on 127.0.0.1, where nothing listens any more.
  const closed = createTcpServer()
  closed.listen(0, "127.0.0.1")
  await once(closed, "listening")
  const port = (closed.address() as AddressInfo).port
  await closeServer(closed)
  const result = await sendTo({ url: `https://127.0.0.1:${port}/`, allowPrivateNetworks: true })
  t.match(result, { outcome: "failed", reason: "connection failed (ECONNREFUSED)" })
  t.notMatch(JSON.stringify(result), SIGNATURE)
})

t.test("a name that does not resolve, or resolves to nothing, is a failure", async (t) => {
  const notFound = async (): Promise<ReadonlyArray<LookupAddress>> => {
    throw Object.assign(new Error("getaddrinfo ENOTFOUND hooks.example.com"), { code: "ENOTFOUND" })
  }
  t.match(await sendTo({ url: "https://hooks.example.com/", lookup: notFound }), {
    outcome: "failed",
    reason: "host not resolved (ENOTFOUND)"
  })
  const { lookup } = tableLookup({})
  t.match(await sendTo({ url: "https://hooks.example.com/", lookup }), { outcome: "failed", reason: "host has no address" })
})

t.test("interrupting a send closes its connection", async (t) => {
  let closed = false
  const receiver = await startReceiver(t, (response) => response.on("close", () => (closed = true)))
  const fiber = Effect.runFork(
    send({
      url: `https://127.0.0.1:${receiver.port}/`,
      headers: HEADERS,
      body: BODY,
      timeoutMs: 60_000,
      allowPrivateNetworks: true,
      ca: ca.cert
    })
  )
  await eventually(t, () => receiver.received.length === 1, "the receiver got the delivery")
  await Effect.runPromise(Fiber.interrupt(fiber))
  await eventually(t, () => closed, "the receiver saw the connection close")
})
