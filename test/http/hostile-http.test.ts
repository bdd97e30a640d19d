/**
 * Requests no honest client sends, through a real server, and raw sockets where an HTTP client
 * would tidy the request up: JSON nested thousands deep, a chunked body past 4 MiB, what Node's
 * parser refuses (headers too large, a byte a header may not hold, Content-Length with
 * Transfer-Encoding, a request line it cannot read), clients that send their headers or body too
 * slowly, path parameters the router cannot take, and bodies of requests that fail authentication.
 * Each is answered in the envelope of its path, with X-Correlation-Id.
 */
import t from "tap"
import { ADMIN_TOKEN, startServer } from "../helpers/server.ts"
import { createAccount } from "../helpers/api.ts"
import { freshDatabase } from "../helpers/database.ts"
import { openRaw, type RawResponse, trickle } from "../helpers/raw-http.ts"
import type { TestContext } from "../helpers/tap.ts"

const CONTRACT_VERSION = "publishing.lifecycle.v1"
const MiB = 1024 * 1024

const database = await freshDatabase("pglite")
t.teardown(database.drop)
// Short limits, so that slow clients are cut off within seconds.
const server = await startServer(t, {
  ...database.env,
  PRESSROOM_HEADERS_TIMEOUT_MS: "1000",
  PRESSROOM_REQUEST_TIMEOUT_MS: "3000"
})
const owner = await createAccount(server)

interface Answer {
  readonly status: number
  readonly headers: { get: (name: string) => string | null | undefined }
  readonly body: any
}

/** The envelope of `dialect`, with `status`, `invalid_request` unless said, and the response's correlation id. */
const isEnvelope = (t: TestContext, answer: Answer, status: number, dialect: "v1" | "v2", what: string, code = "invalid_request") => {
  t.equal(answer.status, status, `${what}: ${status}`)
  t.equal(answer.body?.error?.code, code, `${what}: ${code}`)
  t.equal(answer.body?.error?.httpStatus, status, `${what}: httpStatus in the body`)
  if (dialect === "v2") t.equal(answer.body?.contractVersion, CONTRACT_VERSION, `${what}: the v2 envelope`)
  else t.notOk("contractVersion" in (answer.body ?? {}), `${what}: the v1 envelope`)
  t.match(answer.headers.get("x-correlation-id"), /^[0-9a-f-]{36}$/, `${what}: X-Correlation-Id`)
  t.equal(answer.headers.get("x-content-type-options"), "nosniff", `${what}: X-Content-Type-Options`)
  t.equal(answer.body?.error?.details?.correlationId, answer.headers.get("x-correlation-id"), `${what}: the body quotes it`)
}

const fromRaw = (response: RawResponse): Answer => ({
  status: response.status,
  headers: { get: (name) => response.headers[name.toLowerCase()] },
  body: JSON.parse(response.body)
})

const post = async (path: string, body: string, headers: Record<string, string>): Promise<Answer> => {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body
  })
  return { status: response.status, headers: response.headers, body: await response.json() }
}

/** Sends `head` (a request line and headers, lines joined by CRLF, without the blank line) and `body` over a fresh connection. */
const rawRequest = async (head: ReadonlyArray<string>, body = "") => {
  const connection = await openRaw(server.url)
  await connection.write(`${head.join("\r\n")}\r\n\r\n${body}`)
  return connection
}

t.test("JSON nested deeper than any valid body is 400 before it is decoded", async (t) => {
  const arrays = `${"[".repeat(5000)}${"]".repeat(5000)}`
  const objects = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`
  const v2 = { authorization: `Bearer ${owner.key}`, "idempotency-key": `deep-${Date.now()}` }
  isEnvelope(t, await post("/api/v1/convert", arrays, { authorization: `Bearer ${owner.key}` }), 400, "v1", "arrays, v1 convert")
  isEnvelope(t, await post("/api/v1/convert", objects, { authorization: `Bearer ${owner.key}` }), 400, "v1", "objects, v1 convert")
  isEnvelope(t, await post("/api/v2/templates", arrays, v2), 400, "v2", "arrays, custom templates")
  isEnvelope(t, await post("/admin/v1/accounts", arrays, { authorization: `Bearer ${ADMIN_TOKEN}` }), 400, "v1", "arrays, admin")
  t.match((await post("/api/v1/convert", arrays, { authorization: `Bearer ${owner.key}` })).body.error.message, /nested/)

  // Brackets inside strings are text, not nesting.
  const bracketed = await post("/api/v2/templates", JSON.stringify({ name: `${"[{".repeat(70)}`, baseTemplateId: "clean", options: {} }), {
    ...v2,
    "idempotency-key": `brackets-${Date.now()}`
  })
  t.equal(bracketed.status, 201, "a name full of brackets is accepted")
})

t.test("a chunked body over 4 MiB is answered 413, not cut off", async (t) => {
  const connection = await openRaw(server.url)
  await connection.write(
    [
      "POST /api/v1/convert HTTP/1.1",
      "Host: pressroom",
      `Authorization: Bearer ${owner.key}`,
      "Content-Type: application/json",
      "Transfer-Encoding: chunked",
      "",
      ""
    ].join("\r\n")
  )
  const chunk = Buffer.alloc(64 * 1024, "a")
  for (let sent = 0; sent < 5 * MiB; sent += chunk.length) {
    await connection.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]))
  }
  await connection.write("0\r\n\r\n")
  isEnvelope(t, fromRaw(await connection.response), 413, "v1", "5 MiB chunked")
  connection.socket.destroy()
})

t.test("what Node's HTTP parser refuses, and clients too slow, get the envelope and X-Correlation-Id", async (t) => {
  const answer = async (head: ReadonlyArray<string>, body = "") => {
    const connection = await rawRequest(head, body)
    const response = await connection.response
    await t.resolves(connection.closed, `${head[0]}: the server closes the connection`)
    t.equal(response.headers.connection, "close", `${head[0]}: Connection: close`)
    return fromRaw(response)
  }
  isEnvelope(
    t,
    await answer(["GET /api/v2/templates HTTP/1.1", "Host: pressroom", `X-Padding: ${"a".repeat(17 * 1024)}`]),
    431,
    "v2",
    "a 17 KiB header"
  )
  isEnvelope(
    t,
    await answer(["POST /api/v1/convert HTTP/1.1", "Host: pressroom", "X-Odd: a\x7fb", "Content-Length: 2"], "{}"),
    400,
    "v1",
    "a DEL byte in a header"
  )
  isEnvelope(
    t,
    await answer(["POST /admin/v1/accounts HTTP/1.1", "Host: pressroom", "Content-Length: 2", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
    400,
    "v1",
    "Content-Length with Transfer-Encoding"
  )
  isEnvelope(t, await answer(["NOT A REQUEST LINE"]), 400, "v2", "a request line that cannot be read (no path: v2)")
  const metrics = await (await fetch(`${server.url}/metrics`)).text()
  t.match(metrics, /pressroom_http_requests_total\{[^}]*method="GET"[^}]*status="431"[^}]*\} 1/, "/metrics counts the 431")
  t.match(metrics, /pressroom_http_requests_total\{[^}]*method="unknown"[^}]*status="400"[^}]*\} 1/, "and the unreadable request line")

  await t.test("headers sent slower than PRESSROOM_HEADERS_TIMEOUT_MS", async (t) => {
    const connection = await openRaw(server.url)
    await trickle(connection, "GET /api/v2/templates HTTP/1.1\r\nHost: pressroom\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 100)
    isEnvelope(t, fromRaw(await connection.response), 408, "v2", "slow headers")
  })

  await t.test("a body sent slower than PRESSROOM_REQUEST_TIMEOUT_MS", async (t) => {
    const connection = await rawRequest([
      "POST /api/v1/convert HTTP/1.1",
      "Host: pressroom",
      `Authorization: Bearer ${owner.key}`,
      "Content-Type: application/json",
      "Content-Length: 100000"
    ])
    await trickle(connection, '{"markdown": "', 100)
    const response = await connection.response
    isEnvelope(t, fromRaw(response), 408, "v1", "slow body")
    t.equal(response.headers.connection, "close")
  })
})

t.test("path parameters the router cannot take are 400, not 405", async (t) => {
  const get = async (path: string, token: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })
    return { status: response.status, headers: response.headers, body: await response.json() }
  }
  const tooLong = await get(`/api/v2/templates/${"a".repeat(101)}`, owner.key)
  isEnvelope(t, tooLong, 400, "v2", "a template id of 101 characters")
  t.equal(tooLong.headers.get("allow"), null, "no Allow")
  t.match(tooLong.body.error.message, /templateId/, "the message names the parameter")
  const badEscape = await get("/api/v2/templates/%ZZ", owner.key)
  isEnvelope(t, badEscape, 400, "v2", "a template id with %ZZ")
  t.match(badEscape.body.error.message, /templateId/)
  isEnvelope(t, await get("/admin/v1/accounts/%ZZ", ADMIN_TOKEN), 400, "v1", "an account id with %ZZ")
  // credit-packs takes POST only (its keys, since the dashboard, also GET).
  isEnvelope(t, await get(`/admin/v1/accounts/${"a".repeat(101)}/credit-packs`, ADMIN_TOKEN), 405, "v1", "a wrong method is still 405")
})

t.test("a request that fails authentication is answered 401 before its body is read", async (t) => {
  // The body is announced and never sent: the 401 cannot wait for it.
  const length = `Content-Length: ${4 * MiB}`
  const cases: Array<[string, ReadonlyArray<string>, string, "v1" | "v2"]> = [
    ["no key, Content-Length", ["POST /api/v1/convert HTTP/1.1", length], "[", "v1"],
    [
      "a malformed key, chunked",
      ["POST /api/v1/convert HTTP/1.1", "Authorization: Bearer nope", "Transfer-Encoding: chunked"],
      "1\r\n[\r\n",
      "v1"
    ],
    ["an unknown key", ["POST /api/v2/templates HTTP/1.1", `Authorization: Bearer pk_live_${"0".repeat(32)}`, length], "[", "v2"],
    ["a wrong admin token", ["POST /admin/v1/accounts HTTP/1.1", "Authorization: Bearer wrong", length], "[", "v1"]
  ]
  for (const [what, [requestLine, ...headers], start, dialect] of cases) {
    const connection = await rawRequest([requestLine!, "Host: pressroom", "Content-Type: application/json", ...headers], start)
    isEnvelope(t, fromRaw(await connection.response), 401, dialect, what, "unauthorized")
    // Rejects when the server keeps the connection open (test/helpers/raw-http.ts gives up on it).
    await t.resolves(connection.closed, `${what}: the server closes the connection rather than wait for the body`)
  }
})
