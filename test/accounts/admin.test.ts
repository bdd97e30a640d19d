/**
 * The admin API and API-key authentication through a real server, on each database: every admin
 * operation with its success body and its 400, 401, 404 and 422; the admin token and API keys each
 * refused where the other works; 401 for a missing, malformed, unknown, expired, revoked or
 * other-environment key; keys stored only as hashes; and, on a second server with
 * PRESSROOM_KEY_ENVIRONMENT=test and no admin token, test keys accepted, live keys refused and the
 * admin API answering 404 as if it did not exist.
 */
import { SqlClient } from "@effect/sql"
import t from "tap"
import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { type JsonResponse, requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { ADMIN_TOKEN, type RunningServer, startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"

const ALL_SCOPES = ["documents.render", "documents.preview", "documents.read", "webhooks.manage", "templates.manage"]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The v1/admin error envelope: `{ error }` with the status, the code and the response's correlation id. */
const isError = (t: TestContext, response: JsonResponse, status: number, code: string, what: string) => {
  t.equal(response.status, status, `${what}: ${status}`)
  t.equal(response.body?.error?.code, code, `${what}: ${code}`)
  t.equal(response.body?.error?.httpStatus, status, `${what}: httpStatus in the body`)
  t.notOk("contractVersion" in (response.body ?? {}), `${what}: the admin and v1 envelope has no contractVersion`)
  t.equal(response.body?.error?.details?.correlationId, response.headers.get("x-correlation-id"), `${what}: correlation id`)
}

/** An admin request; `token` null sends no Authorization header. */
const admin = (server: RunningServer, method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) =>
  requestJson(server, method, path, { ...(token !== null ? { token } : {}), ...(body !== undefined ? { body } : {}) })

/** An API-key route: answers 401 for a refused key, something else (400 for this empty body, which charges nothing) once the key is accepted. */
const probe = (server: RunningServer, authorization: string | undefined) =>
  requestJson(server, "POST", "/api/v1/convert", { body: {}, headers: authorization === undefined ? {} : { authorization } })

const createAccount = async (server: RunningServer, body: unknown = { name: "Acme", plan: "monthly" }) => {
  const response = await admin(server, "POST", "/admin/v1/accounts", body)
  if (response.status !== 201) throw new Error(`account creation failed: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.account as { id: string }
}

const createKey = async (server: RunningServer, accountId: string, body: unknown = {}) => {
  const response = await admin(server, "POST", `/admin/v1/accounts/${accountId}/keys`, body)
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body as { key: { id: string; prefix: string }; secret: string }
}

await forEachDatabase(t, async (t, database) => {
  const secrets: Array<string> = []
  let liveKey = ""
  let testKey = ""

  const server = await startServer(t, database.env)

  await t.test("create and read accounts", async (t) => {
    const created = await admin(server, "POST", "/admin/v1/accounts", { name: "Acme Ltd", plan: "free" })
    t.equal(created.status, 201)
    t.same(Object.keys(created.body), ["account"])
    const account = created.body.account
    t.match(account, { id: UUID, name: "Acme Ltd", plan: "free", monthlyUnits: null, createdAt: ISO })
    t.same(Object.keys(account).sort(), ["createdAt", "id", "monthlyUnits", "name", "plan"])

    const custom = await admin(server, "POST", "/admin/v1/accounts", { name: "Custom", plan: "yearly", monthlyUnits: 7 })
    t.equal(custom.status, 201)
    t.equal(custom.body.account.monthlyUnits, 7)

    const read = await admin(server, "GET", `/admin/v1/accounts/${account.id}`)
    t.equal(read.status, 200)
    t.same(read.body.account, account, "the account as created")
    const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)).toISOString()
    t.same(
      read.body.usage,
      { periodStart: monthStart, used: 0, reserved: 0, remaining: 25, creditUnits: 0, webDaily: { used: 0, remaining: 3 } },
      "a free account's usage shows its web daily pool apart"
    )
    t.equal((await admin(server, "GET", `/admin/v1/accounts/${custom.body.account.id}`)).body.usage.remaining, 7, "the custom allowance")

    isError(t, await admin(server, "GET", `/admin/v1/accounts/${randomUUID()}`), 404, "not_found", "unknown account")
    isError(t, await admin(server, "GET", "/admin/v1/accounts/not-a-uuid"), 400, "invalid_request", "malformed account id")
    const refusals: ReadonlyArray<readonly [unknown, number, string]> = [
      [{ name: "Acme", plan: "gold" }, 422, "unknown plan"],
      [{ plan: "free" }, 400, "missing name"],
      [{ name: "", plan: "free" }, 400, "empty name"],
      [{ name: "x".repeat(201), plan: "free" }, 400, "name over 200 characters"],
      [{ name: "Acme", plan: "free", monthlyUnits: -1 }, 400, "negative allowance"],
      [{ name: "Acme", plan: "free", monthlyUnits: 1.5 }, 400, "fractional allowance"],
      [{ name: "Acme", plan: "free", monthlyUnits: "5" }, 400, "allowance as a string"],
      [{ name: "Acme", plan: "free", owner: "x" }, 400, "unknown property"],
      [[], 400, "an array"]
    ]
    for (const [body, status, what] of refusals)
      isError(t, await admin(server, "POST", "/admin/v1/accounts", body), status, "invalid_request", what)
    const malformed = await requestJson(server, "POST", "/admin/v1/accounts", {
      token: ADMIN_TOKEN,
      headers: { "content-type": "application/json" },
      body: undefined
    })
    t.equal(malformed.status, 400, "no body")
  })

  await t.test("create keys", async (t) => {
    const account = await createAccount(server)
    const created = await admin(server, "POST", `/admin/v1/accounts/${account.id}/keys`, {})
    t.equal(created.status, 201)
    t.equal(created.headers.get("cache-control"), "no-store", "the answer that carries the secret is not to be cached")
    const { key, secret } = created.body
    t.match(secret, /^pk_live_[0-9a-f]{32}$/, "a live key by default on a live server")
    t.same(
      key,
      {
        id: key.id,
        name: null,
        prefix: secret.slice(0, 12),
        scopes: ALL_SCOPES,
        environment: "live",
        expiresAt: null,
        createdAt: key.createdAt,
        lastUsedAt: null,
        revokedAt: null
      },
      "every scope when none are named"
    )
    t.match(key, { id: UUID, createdAt: ISO })
    secrets.push(secret)
    liveKey = secret

    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const narrow = await admin(server, "POST", `/admin/v1/accounts/${account.id}/keys`, {
      scopes: ["documents.read", "documents.render", "documents.read"],
      environment: "test",
      expiresAt
    })
    t.equal(narrow.status, 201)
    t.match(narrow.body.secret, /^pk_test_[0-9a-f]{32}$/)
    t.match(narrow.body.key, { scopes: ["documents.render", "documents.read"], environment: "test", expiresAt })
    secrets.push(narrow.body.secret)
    testKey = narrow.body.secret

    const offset = await admin(server, "POST", `/admin/v1/accounts/${account.id}/keys`, {
      expiresAt: "2099-01-01T02:00:00+02:00",
      scopes: ["webhooks.manage"]
    })
    t.equal(offset.body.key.expiresAt, "2099-01-01T00:00:00.000Z", "an offset is read as the instant it names")
    secrets.push(offset.body.secret)

    const path = `/admin/v1/accounts/${account.id}/keys`
    const refusals: ReadonlyArray<readonly [unknown, number, string]> = [
      [{ scopes: ["documents.read", "documents.write"] }, 422, "unknown scope"],
      [{ scopes: [] }, 422, "no scopes"],
      [{ environment: "staging" }, 422, "unknown environment"],
      [{ expiresAt: "2020-01-01T00:00:00Z" }, 422, "expiresAt in the past"],
      [{ expiresAt: "next week" }, 400, "expiresAt not a date-time"],
      [{ expiresAt: "2099-01-01" }, 400, "expiresAt without a time"],
      [{ scopes: "documents.read" }, 400, "scopes not an array"],
      [{ scopes: [1] }, 400, "a scope not a string"],
      [{ environment: "live", label: "x" }, 400, "unknown property"]
    ]
    for (const [body, status, what] of refusals) isError(t, await admin(server, "POST", path, body), status, "invalid_request", what)
    isError(t, await admin(server, "POST", `/admin/v1/accounts/${randomUUID()}/keys`, {}), 404, "not_found", "unknown account")
    isError(t, await admin(server, "POST", "/admin/v1/accounts/123/keys", {}), 400, "invalid_request", "malformed account id")
  })

  await t.test("add credit packs", async (t) => {
    const account = await createAccount(server, { name: "Packs", plan: "free" })
    const added = await admin(server, "POST", `/admin/v1/accounts/${account.id}/credit-packs`, { packs: 2 })
    t.equal(added.status, 201)
    t.same(Object.keys(added.body), ["usage"])
    t.match(added.body.usage, { used: 0, reserved: 0, remaining: 25 + 500, creditUnits: 500 })
    const again = await admin(server, "POST", `/admin/v1/accounts/${account.id}/credit-packs`, { packs: 1 })
    t.match(again.body.usage, { remaining: 25 + 750, creditUnits: 750 }, "packs add up")

    for (const [body, what] of [
      [{ packs: 0 }, "zero"],
      [{ packs: 1001 }, "over the maximum"],
      [{ packs: 1.5 }, "a fraction"],
      [{ packs: "2" }, "a string"],
      [{}, "missing"],
      [{ packs: 1, note: "x" }, "unknown property"]
    ] as const) {
      isError(
        t,
        await admin(server, "POST", `/admin/v1/accounts/${account.id}/credit-packs`, body),
        400,
        "invalid_request",
        `packs ${what}`
      )
    }
    isError(
      t,
      await admin(server, "POST", `/admin/v1/accounts/${randomUUID()}/credit-packs`, { packs: 1 }),
      404,
      "not_found",
      "unknown account"
    )
    const unlimited = await createAccount(server, { name: "Operators", plan: "admin" })
    isError(
      t,
      await admin(server, "POST", `/admin/v1/accounts/${unlimited.id}/credit-packs`, { packs: 1 }),
      422,
      "invalid_request",
      "packs for an unlimited account"
    )
    t.equal((await admin(server, "GET", `/admin/v1/accounts/${account.id}`)).body.usage.creditUnits, 750, "refusals added nothing")
  })

  await t.test("API keys on an API-key route", async (t) => {
    const account = await createAccount(server)
    const valid = await createKey(server, account.id)
    secrets.push(valid.secret)
    t.not((await probe(server, `Bearer ${valid.secret}`)).status, 401, "a valid key is accepted")
    t.not((await probe(server, `bearer ${valid.secret}`)).status, 401, "the scheme is case-insensitive")
    const conversion = await fetch(`${server.url}/api/v1/convert`, {
      method: "POST",
      headers: { authorization: `Bearer ${valid.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ markdown: "# Hello" })
    })
    await conversion.arrayBuffer()
    t.not(conversion.status, 401, "a conversion with a valid key gets past authentication")

    const unknown = `pk_live_${"0".repeat(32)}`
    const revoked = await createKey(server, account.id)
    const expiry = Date.now() + 4000
    const soon = await createKey(server, account.id, { expiresAt: new Date(expiry).toISOString() })
    const otherEnvironment = await createKey(server, account.id, { environment: "test" })
    secrets.push(revoked.secret, soon.secret, otherEnvironment.secret)
    t.not((await probe(server, `Bearer ${soon.secret}`)).status, 401, "a key before its expiry is accepted")
    t.equal((await admin(server, "POST", `/admin/v1/keys/${revoked.key.id}/revoke`)).status, 200)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now()) + 250))

    const refused: ReadonlyArray<readonly [string | undefined, string]> = [
      [undefined, "no Authorization header"],
      ["Bearer ", "an empty bearer token"],
      ["Bearer pk_live_123", "a malformed key"],
      [`Bearer ${valid.secret.toUpperCase()}`, "a key in upper case"],
      [`Bearer ${valid.secret}0`, "a key one character too long"],
      [`Basic ${valid.secret}`, "a valid key under another scheme"],
      [`Bearer ${unknown}`, "an unknown key"],
      [`Bearer ${soon.secret}`, "an expired key"],
      [`Bearer ${revoked.secret}`, "a revoked key"],
      [`Bearer ${otherEnvironment.secret}`, "a pk_test_ key on a live server"],
      [`Bearer ${ADMIN_TOKEN}`, "the admin token"]
    ]
    const messages = new Set<string>()
    for (const [authorization, what] of refused) {
      const response = await probe(server, authorization)
      isError(t, response, 401, "unauthorized", what)
      t.equal(response.body.error.category, "authentication")
      messages.add(response.body.error.message)
      const token = authorization?.split(" ")[1]
      if (token) t.notOk(JSON.stringify(response.body).includes(token), `${what}: the credential is not echoed`)
    }
    t.equal(messages.size, 1, "one message whatever the reason")
  })

  await t.test("the admin token on the admin API, and nothing else", async (t) => {
    const path = "/admin/v1/accounts"
    const body = { name: "Nobody", plan: "free" }
    isError(t, await admin(server, "POST", path, body, null), 401, "unauthorized", "no token")
    isError(t, await admin(server, "POST", path, body, `${ADMIN_TOKEN}x`), 401, "unauthorized", "a wrong token")
    isError(t, await admin(server, "POST", path, body, ADMIN_TOKEN.slice(0, -1)), 401, "unauthorized", "a prefix of the token")
    isError(t, await admin(server, "POST", path, body, liveKey), 401, "unauthorized", "an API key")
    isError(
      t,
      await requestJson(server, "POST", path, { body, headers: { authorization: `Basic ${ADMIN_TOKEN}` } }),
      401,
      "unauthorized",
      "another scheme"
    )
    const account = await createAccount(server)
    for (const [method, route, payload] of [
      ["GET", `/admin/v1/accounts/${account.id}`, undefined],
      ["POST", `/admin/v1/accounts/${account.id}/keys`, {}],
      ["POST", `/admin/v1/accounts/${account.id}/credit-packs`, { packs: 1 }],
      ["POST", `/admin/v1/keys/${randomUUID()}/revoke`, undefined]
    ] as const) {
      isError(t, await admin(server, method, route, payload, liveKey), 401, "unauthorized", `${method} ${route} with an API key`)
    }
    const wrong = await admin(server, "POST", path, body, "wrong")
    t.notOk(JSON.stringify(wrong.body).includes("wrong"), "the token is not echoed")
  })

  await t.test("list keys, with their names and last use", async (t) => {
    const account = await createAccount(server)
    const named = await createKey(server, account.id, { name: "Billing service", scopes: ["documents.render"] })
    const unnamed = await createKey(server, account.id)
    t.equal((await probe(server, `Bearer ${named.secret}`)).status, 400, "the named key is used once")
    // Written off the request's path: awaited as a client would see it.
    let keys: Array<{ id: string; name: string | null; lastUsedAt: string | null }> = []
    for (let i = 0; i < 100 && !keys.find((key) => key.id === named.key.id)?.lastUsedAt; i++) {
      const listed = await admin(server, "GET", `/admin/v1/accounts/${account.id}/keys`)
      t.equal(listed.status, 200)
      keys = listed.body.keys
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    t.same(
      keys.map((key) => [key.id, key.name]),
      [
        [unnamed.key.id, null],
        [named.key.id, "Billing service"]
      ],
      "newest first, each with its name"
    )
    t.match(keys.find((key) => key.id === named.key.id)?.lastUsedAt, ISO, "the used key says when")
    t.equal(keys.find((key) => key.id === unnamed.key.id)?.lastUsedAt, null, "the unused one never")
    t.notOk(JSON.stringify(keys).includes(named.secret), "no secret in the list")
    isError(t, await admin(server, "GET", `/admin/v1/accounts/${randomUUID()}/keys`), 404, "not_found", "an unknown account")
    isError(t, await admin(server, "POST", `/admin/v1/accounts/${account.id}/keys`, { name: "" }), 400, "invalid_request", "an empty name")
  })

  await t.test("revoke keys", async (t) => {
    const account = await createAccount(server)
    const { key, secret } = await createKey(server, account.id)
    secrets.push(secret)
    const revoked = await admin(server, "POST", `/admin/v1/keys/${key.id}/revoke`)
    t.equal(revoked.status, 200)
    t.same(Object.keys(revoked.body), ["key"])
    t.match(revoked.body.key, { id: key.id, prefix: key.prefix, environment: "live", revokedAt: ISO })
    const again = await admin(server, "POST", `/admin/v1/keys/${key.id}/revoke`, {})
    t.equal(again.status, 200, "revoking twice is no error")
    t.equal(again.body.key.revokedAt, revoked.body.key.revokedAt, "and keeps the first revocation time")
    isError(t, await probe(server, `Bearer ${secret}`), 401, "unauthorized", "the revoked key")
    isError(t, await admin(server, "POST", `/admin/v1/keys/${randomUUID()}/revoke`), 404, "not_found", "unknown key")
    isError(t, await admin(server, "POST", "/admin/v1/keys/nope/revoke"), 400, "invalid_request", "malformed key id")
  })

  await t.test("the OpenAPI document describes the admin API", async (t) => {
    const document = (await requestJson(server, "GET", "/api/v2/openapi.json")).body
    const responses = (path: string, method: string) => Object.keys(document.paths[path]?.[method]?.responses ?? {}).sort()
    t.same(responses("/admin/v1/accounts", "post"), ["201", "400", "401", "404", "413", "415", "422", "500"])
    t.same(responses("/admin/v1/accounts/{accountId}", "get"), ["200", "400", "401", "404", "500"])
    t.same(responses("/admin/v1/accounts/{accountId}/keys", "post"), ["201", "400", "401", "404", "413", "415", "422", "500"])
    t.same(responses("/admin/v1/keys/{keyId}/revoke", "post"), ["200", "400", "401", "404", "500"])
    t.same(responses("/admin/v1/accounts/{accountId}/keys", "get"), ["200", "400", "401", "404", "500"])
    t.same(responses("/admin/v1/accounts/{accountId}/invitations", "post"), ["201", "400", "401", "404", "409", "413", "415", "422", "500"])
    t.same(responses("/admin/v1/accounts/{accountId}/credit-packs", "post"), ["201", "400", "401", "404", "413", "415", "422", "500"])
  })

  const output = server.output()
  await server.stop()
  t.ok(
    secrets.every((secret) => !output.includes(secret)),
    "no key appears in the server's output"
  )

  await t.test("keys are stored only as their SHA-256", async (t) => {
    const rows = await runWith(
      database,
      Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<Record<string, unknown>>`select * from api_keys`))
    )
    t.ok(rows.length >= secrets.length, `${rows.length} keys`)
    const stored = JSON.stringify(rows)
    t.ok(
      secrets.every((secret) => !stored.includes(secret) && !stored.includes(secret.slice(12))),
      "no row holds a key or its secret part"
    )
    const hashes = new Set(rows.map((row) => row.secret_sha256))
    t.ok(
      secrets.every((secret) => hashes.has(createHash("sha256").update(secret).digest("hex"))),
      "each key's SHA-256 is stored"
    )
    t.ok(
      rows.every((row) => typeof row.prefix === "string" && row.prefix.length === 12),
      "a 12-character prefix"
    )
  })

  await t.test("a test-environment server without an admin token (nor a dashboard)", async (t) => {
    const testServer = await startServer(t, {
      ...database.env,
      PRESSROOM_KEY_ENVIRONMENT: "test",
      PRESSROOM_ADMIN_TOKEN: "",
      PRESSROOM_DASHBOARD: "off"
    })
    for (const path of ["/app", "/app/sign-in", "/app/assets/app.css"]) {
      isError(t, await requestJson(testServer, "GET", path), 404, "not_found", `PRESSROOM_DASHBOARD=off: ${path}`)
    }
    t.not((await probe(testServer, `Bearer ${testKey}`)).status, 401, "a pk_test_ key is accepted")
    isError(t, await probe(testServer, `Bearer ${liveKey}`), 401, "unauthorized", "a pk_live_ key on a test server")
    const accountId = randomUUID()
    for (const [method, route, payload] of [
      ["POST", "/admin/v1/accounts", { name: "x", plan: "free" }],
      ["GET", `/admin/v1/accounts/${accountId}`, undefined],
      ["POST", `/admin/v1/accounts/${accountId}/keys`, {}],
      ["POST", `/admin/v1/keys/${accountId}/revoke`, undefined],
      ["POST", `/admin/v1/accounts/${accountId}/credit-packs`, { packs: 1 }],
      ["GET", `/admin/v1/accounts/${accountId}/keys`, undefined],
      ["POST", `/admin/v1/accounts/${accountId}/invitations`, { email: "a@example.com" }]
    ] as const) {
      for (const token of [ADMIN_TOKEN, null]) {
        const response = await admin(testServer, method, route, payload, token)
        isError(t, response, 404, "not_found", `${method} ${route.replace(accountId, "…")} ${token ? "with" : "without"} the token`)
      }
    }
    const unknownRoute = await requestJson(testServer, "GET", "/admin/v1/nothing-here")
    t.equal(
      unknownRoute.body.error.message,
      (await admin(testServer, "GET", `/admin/v1/accounts/${accountId}`)).body.error.message,
      "the same answer as a route that does not exist"
    )
    isError(
      t,
      await admin(testServer, "DELETE", "/admin/v1/accounts", undefined, null),
      404,
      "not_found",
      "a wrong method is not a 405 that would reveal the route"
    )
    const notJson = await fetch(`${testServer.url}/admin/v1/accounts`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x"
    })
    t.equal(notJson.status, 404, "a body that is not JSON is not a 415 that would reveal the route")
  })
})
