/**
 * The webhook subscription requests refused (specification 2.15, 2.17 and 8; contract sections
 * 2, 3 and 5), black-box on each database: 400 for the shape (unknown members, types, the
 * endpoint's 2048 characters, 1 to 3 distinct event types, a description of 1 to 160 characters,
 * a path id that is not a uuid, a missing Idempotency-Key), 422 for content (an endpoint that is
 * not an https URL, an unknown event type), 415 and 413 for bodies, 401 without a key and 403
 * without webhooks.manage. Every refusal is the v2 envelope, naming the field where there is one,
 * and creates nothing.
 */
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachSharedServer } from "../helpers/shared-server.ts"
import { idempotencyKey, mutate } from "../helpers/v2.ts"
import { createKey, expectError, sendRaw } from "../helpers/v2-contract.ts"

const body = (overrides: Record<string, unknown> = {}) => ({
  endpoint: "https://hooks.example.com/pressroom",
  eventTypes: ["job.succeeded"],
  description: "Receiver",
  ...overrides
})

const over4MiB = JSON.stringify({ endpoint: `https://example.com/${"a".repeat(4 * 1024 * 1024)}` })

t.test("webhook subscription validation", (t) =>
  forEachSharedServer(t, async (t, server) => {
    const { key: token, accountId } = await createAccount(server)
    const create = (payload: unknown) => mutate(server, "POST", "/api/v2/webhooks", token, payload)
    const existing = await create(body())
    t.equal(existing.status, 201)
    const id = existing.body.subscription.id as string
    const count = async () => (await requestJson(server, "GET", "/api/v2/webhooks", { token })).body.subscriptions.length
    const mutations = [
      { name: "create", path: "/api/v2/webhooks", body: body() },
      { name: "rotate", path: `/api/v2/webhooks/${id}/rotate-secret`, body: {} },
      { name: "disable", path: `/api/v2/webhooks/${id}/disable`, body: {} }
    ]

    await t.test("400: the shape of a creation, naming the field", async (t) => {
      const { description: _, ...withoutDescription } = body()
      const cases: ReadonlyArray<[string, unknown, string]> = [
        ["endpoint missing", { eventTypes: ["job.failed"] }, "endpoint"],
        ["endpoint not a string", body({ endpoint: 7 }), "endpoint"],
        ["endpoint over 2048 characters", body({ endpoint: `https://example.com/${"a".repeat(2029)}` }), "endpoint"],
        ["eventTypes missing", { endpoint: "https://example.com/" }, "eventTypes"],
        ["eventTypes not an array", body({ eventTypes: "job.failed" }), "eventTypes"],
        ["eventTypes empty", body({ eventTypes: [] }), "eventTypes"],
        ["four eventTypes", body({ eventTypes: ["job.succeeded", "job.failed", "job.cancelled", "job.failed"] }), "eventTypes"],
        ["a repeated event type", body({ eventTypes: ["job.failed", "job.failed"] }), "eventTypes"],
        ["an event type not a string", body({ eventTypes: [1] }), "eventTypes"],
        ["description empty", body({ description: "" }), "description"],
        ["description over 160 characters", body({ description: "d".repeat(161) }), "description"],
        ["description not a string", body({ description: 7 }), "description"],
        ["an unknown member", { ...withoutDescription, secret: "whsec_mine" }, "secret"],
        ["not an object", [body()], ""],
        ["null", null, ""]
      ]
      for (const [what, payload, field] of cases) {
        expectError(t, await create(payload), 400, "invalid_request", what, field ? { field } : {})
      }
      const malformed = await sendRaw(server, "POST", "/api/v2/webhooks", {
        token,
        headers: { "idempotency-key": idempotencyKey(), "content-type": "application/json" },
        body: '{"endpoint": "https://example.com/",'
      })
      expectError(t, malformed, 400, "invalid_request", "malformed JSON")
      t.equal(await count(), 1, "nothing was created")
    })

    await t.test("422: an endpoint that is not an https URL, an unknown event type, unstorable text", async (t) => {
      const cases: ReadonlyArray<[string, unknown, string]> = [
        ["http", body({ endpoint: "http://hooks.example.com/" }), "endpoint"],
        ["ftp", body({ endpoint: "ftp://hooks.example.com/" }), "endpoint"],
        ["not a URL", body({ endpoint: "hooks.example.com/pressroom" }), "endpoint"],
        ["empty", body({ endpoint: "" }), "endpoint"],
        ["https:// alone", body({ endpoint: "https://" }), "endpoint"],
        ["a space in the host", body({ endpoint: "https://hooks example.com/" }), "endpoint"],
        ["a tab the parser would drop", body({ endpoint: "https://hooks.example.com/a\tb" }), "endpoint"],
        ["leading white space", body({ endpoint: " https://hooks.example.com/" }), "endpoint"],
        ["a NUL", body({ endpoint: "https://hooks.example.com/\u0000" }), "endpoint"],
        ["an unknown event type", body({ eventTypes: ["job.succeeded", "job.started"] }), "eventTypes"],
        ["a NUL in the description", body({ description: "a\u0000b" }), "description"]
      ]
      for (const [what, payload, field] of cases) {
        expectError(t, await create(payload), 422, "invalid_request", what, { field })
      }
      t.equal(await count(), 1, "nothing was created")
    })

    await t.test("accepted at the edges: 2048 characters, 160, three types, no or a null description", async (t) => {
      const endpoint = `https://example.com/${"a".repeat(2048 - "https://example.com/".length)}`
      const accepted = [
        body({ endpoint }),
        body({ description: "d".repeat(160) }),
        body({ eventTypes: ["job.cancelled", "job.succeeded", "job.failed"], description: null }),
        { endpoint: "HTTPS://Hooks.Example.com:8443/p?q=1", eventTypes: ["job.failed"] }
      ]
      for (const payload of accepted) {
        const response = await create(payload)
        t.equal(response.status, 201, JSON.stringify(payload).slice(0, 80))
        t.equal(response.body.subscription.endpoint, (payload as { endpoint: string }).endpoint, "the endpoint as sent")
        t.same(response.body.subscription.eventTypes, (payload as { eventTypes: Array<string> }).eventTypes, "the event types as sent")
      }
    })

    await t.test("400: rotate and disable take no body or {}", async (t) => {
      for (const { name, path } of mutations.slice(1)) {
        for (const payload of [{ reason: "x" }, [], 7]) {
          expectError(
            t,
            await mutate(server, "POST", path, token, payload),
            400,
            "invalid_request",
            `${name} with ${JSON.stringify(payload)}`
          )
        }
      }
    })

    await t.test("400: a webhookId that is not a uuid, a missing or invalid Idempotency-Key", async (t) => {
      for (const action of ["rotate-secret", "disable"]) {
        const response = await mutate(server, "POST", `/api/v2/webhooks/not-a-uuid/${action}`, token, {})
        expectError(t, response, 400, "invalid_request", `${action} of not-a-uuid`, { field: "webhookId" })
      }
      for (const { name, path, body } of mutations) {
        const missing = await requestJson(server, "POST", path, { token, body })
        expectError(t, missing, 400, "invalid_request", `${name} without Idempotency-Key`, { field: "idempotency-key" })
        const short = await requestJson(server, "POST", path, { token, body, headers: { "idempotency-key": "short" } })
        expectError(t, short, 400, "invalid_request", `${name} with a 5-character key`, { field: "idempotency-key" })
      }
    })

    await t.test("415 and 413", async (t) => {
      for (const { name, path, body } of mutations) {
        for (const contentType of [undefined, "text/plain"]) {
          const response = await sendRaw(server, "POST", path, {
            token,
            headers: { "idempotency-key": idempotencyKey(), ...(contentType === undefined ? {} : { "content-type": contentType }) },
            body: JSON.stringify(body)
          })
          expectError(t, response, 415, "invalid_request", `${name} with Content-Type ${contentType ?? "(none)"}`)
        }
        const large = await sendRaw(server, "POST", path, {
          token,
          headers: { "idempotency-key": idempotencyKey(), "content-type": "application/json" },
          body: over4MiB
        })
        expectError(t, large, 413, "invalid_request", `${name} over 4 MiB`)
      }
    })

    await t.test("401 without a valid key, 403 without webhooks.manage", async (t) => {
      const everyOther = await createKey(server, accountId, ["documents.render", "documents.preview", "documents.read", "templates.manage"])
      const operations = [
        ...mutations.map((operation) => ({ ...operation, method: "POST" })),
        { name: "list", path: "/api/v2/webhooks", method: "GET", body: undefined }
      ]
      for (const { name, path, method, body } of operations) {
        const headers: Record<string, string> = method === "POST" ? { "idempotency-key": idempotencyKey() } : {}
        const payload = body === undefined ? {} : { body }
        expectError(t, await requestJson(server, method, path, { headers, ...payload }), 401, "unauthorized", `${name} without a key`)
        expectError(
          t,
          await requestJson(server, method, path, { token: "pk_live_0123456789abcdef0123456789abcdef", headers, ...payload }),
          401,
          "unauthorized",
          `${name} with an unknown key`
        )
        const forbidden = await requestJson(server, method, path, { token: everyOther, headers, ...payload })
        expectError(t, forbidden, 403, "forbidden", `${name} without webhooks.manage`)
        t.match(forbidden.body.error.message, /webhooks\.manage/)
      }
      const managing = await createKey(server, accountId, ["webhooks.manage"])
      t.equal((await requestJson(server, "GET", "/api/v2/webhooks", { token: managing })).status, 200, "webhooks.manage alone lists")
      const listed = await requestJson(server, "GET", "/api/v2/webhooks", { token })
      t.match(
        listed.body.subscriptions.find((s: { id: string }) => s.id === id),
        { status: "active", currentSecretVersion: 1 },
        "untouched"
      )
    })
  })
)
