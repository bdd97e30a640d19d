/**
 * Webhook subscriptions over HTTP (specification 2.15 to 2.17, Table B, section 3; contract
 * sections 4, 5 and 10), black-box on each database: create, list, rotate and disable with every
 * field as specified; the secret shown once (in the creation or rotation and their replays, with
 * Cache-Control: no-store) and nowhere else, neither in later responses, nor in the server's output,
 * nor in plain text in the database; replays and conflicts of Idempotency-Key; 409 for a disabled
 * subscription; the cap on active subscriptions per owner.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import t from "tap"
import { createAccount, type JsonResponse, requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { idempotencyKey, mutate } from "../helpers/v2.ts"
import { CONTRACT_VERSION, expectError } from "../helpers/v2-contract.ts"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/
const MAX_SUBSCRIPTIONS = 3

const fingerprintOf = (secret: string) => createHash("sha256").update(secret).digest("hex").slice(0, 16)

const subscriptionBody = (overrides: Record<string, unknown> = {}) => ({
  endpoint: "https://hooks.example.com/pressroom",
  eventTypes: ["job.succeeded", "job.failed"],
  description: "Production receiver",
  ...overrides
})

/** The members of a subscription object (specification 2.15), and nothing else. */
const SUBSCRIPTION_MEMBERS = [
  "createdAt",
  "currentSecretFingerprint",
  "currentSecretVersion",
  "description",
  "disabledAt",
  "endpoint",
  "eventTypes",
  "id",
  "status",
  "updatedAt"
]

t.test("webhook subscriptions", (t) =>
  forEachDatabase(t, async (t, database) => {
    const server = await startServer(t, { ...database.env, PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS: String(MAX_SUBSCRIPTIONS) })
    const owner = await createAccount(server)
    const other = await createAccount(server)
    /** Every full secret a response showed, to look for it everywhere else. */
    const shown: Array<string> = []
    const create = (token: string, body: unknown = subscriptionBody(), key?: string) =>
      mutate(server, "POST", "/api/v2/webhooks", token, body, key)
    const list = (token: string) => requestJson(server, "GET", "/api/v2/webhooks", { token })
    const rotate = (token: string, id: string, key?: string, body: unknown = {}) =>
      mutate(server, "POST", `/api/v2/webhooks/${id}/rotate-secret`, token, body, key)
    const disable = (token: string, id: string, key?: string, body: unknown = {}) =>
      mutate(server, "POST", `/api/v2/webhooks/${id}/disable`, token, body, key)
    const noSecretIn = (t: TestContext, response: JsonResponse, what: string) => {
      const text = JSON.stringify(response.body)
      t.notOk(
        shown.some((secret) => text.includes(secret) || text.includes(secret.slice(6))),
        `${what}: no secret shown`
      )
      t.notMatch(text, /whsec_/, `${what}: nothing like a secret`)
    }

    let subscriptionId = ""
    let createdAt = ""
    let firstFingerprint = ""

    await t.test("create: 201 WebhookCreated with the secret, shown once, not cached", async (t) => {
      const response = await create(owner.key)
      t.equal(response.status, 201)
      t.equal(response.headers.get("cache-control"), "no-store")
      t.match(response.headers.get("x-correlation-id"), UUID)
      const { secret, subscription } = response.body
      t.same(Object.keys(response.body).sort(), ["contractVersion", "secret", "subscription"])
      t.equal(response.body.contractVersion, CONTRACT_VERSION)
      t.same(Object.keys(secret).sort(), ["createdAt", "fingerprint", "signingSecret", "version"], "the secret object of 2.16")
      t.match(secret.signingSecret, SECRET, "whsec_ and the base64 of 32 bytes")
      t.equal(Buffer.from(secret.signingSecret.slice(6), "base64").length, 32)
      t.equal(secret.version, 1)
      t.equal(secret.fingerprint, fingerprintOf(secret.signingSecret), "the fingerprint is 16 hex of SHA-256 of the secret")
      t.match(secret.createdAt, ISO)
      t.same(Object.keys(subscription).sort(), SUBSCRIPTION_MEMBERS, "the subscription object of 2.15, no secret")
      t.match(subscription, {
        id: UUID,
        endpoint: "https://hooks.example.com/pressroom",
        description: "Production receiver",
        eventTypes: ["job.succeeded", "job.failed"],
        status: "active",
        disabledAt: null,
        currentSecretVersion: 1,
        currentSecretFingerprint: secret.fingerprint,
        createdAt: ISO
      })
      t.equal(subscription.updatedAt, subscription.createdAt)
      t.equal(secret.createdAt, subscription.createdAt)
      shown.push(secret.signingSecret)
      subscriptionId = subscription.id
      createdAt = subscription.createdAt
      firstFingerprint = secret.fingerprint

      const bare = await create(owner.key, { endpoint: "https://hooks.example.com/b", eventTypes: ["job.cancelled"] })
      t.equal(bare.status, 201)
      t.equal(bare.body.subscription.description, null, "description defaults to null")
      t.not(bare.body.secret.signingSecret, secret.signingSecret, "each subscription its own secret")
      shown.push(bare.body.secret.signingSecret)
    })

    await t.test("list: 200 WebhookList, newest first, the owner's only, no secret", async (t) => {
      const response = await list(owner.key)
      t.equal(response.status, 200)
      t.same(Object.keys(response.body).sort(), ["contractVersion", "subscriptions"])
      t.equal(response.body.contractVersion, CONTRACT_VERSION)
      t.equal(response.body.subscriptions.length, 2)
      t.equal(response.body.subscriptions[1].id, subscriptionId, "newest first")
      t.same(Object.keys(response.body.subscriptions[1]).sort(), SUBSCRIPTION_MEMBERS)
      t.match(response.body.subscriptions[1], { currentSecretVersion: 1, currentSecretFingerprint: firstFingerprint, status: "active" })
      t.equal(response.headers.get("cache-control"), null, "a list holds no credential")
      noSecretIn(t, response, "list")
      const others = await list(other.key)
      t.same(others.body.subscriptions, [], "another owner sees none of them")
    })

    await t.test("create replays with the secret; another body under the key is 409", async (t) => {
      const key = idempotencyKey()
      const body = subscriptionBody({ description: "replayed" })
      const first = await create(owner.key, body, key)
      t.equal(first.status, 201)
      shown.push(first.body.secret.signingSecret)
      const again = await create(owner.key, body, key)
      t.equal(again.status, 201)
      t.equal(again.headers.get("idempotency-replayed"), "true")
      t.equal(again.headers.get("cache-control"), "no-store", "the replay is not cached either")
      t.same(again.body, first.body, "the same response, secret included")
      t.equal(first.headers.get("idempotency-replayed"), null)
      const conflict = await create(owner.key, subscriptionBody({ description: "another" }), key)
      expectError(t, conflict, 409, "idempotency_conflict", "another body")
      const listed = await list(owner.key)
      t.equal(listed.body.subscriptions.filter((s: any) => s.description === "replayed").length, 1, "one subscription made")
      // Disabled so that the cap test below starts from two active subscriptions.
      t.equal((await disable(owner.key, first.body.subscription.id)).status, 200)
    })

    await t.test("rotate: 200 WebhookRotated, the next version and a new fingerprint", async (t) => {
      const key = idempotencyKey()
      const response = await rotate(owner.key, subscriptionId, key)
      t.equal(response.status, 200)
      t.equal(response.headers.get("cache-control"), "no-store")
      t.same(Object.keys(response.body).sort(), ["contractVersion", "secret", "subscriptionId"])
      t.equal(response.body.contractVersion, CONTRACT_VERSION)
      t.equal(response.body.subscriptionId, subscriptionId)
      const { secret } = response.body
      t.same(Object.keys(secret).sort(), ["createdAt", "fingerprint", "signingSecret", "version"])
      t.equal(secret.version, 2)
      t.match(secret.signingSecret, SECRET)
      t.notOk(shown.includes(secret.signingSecret), "a new secret")
      t.equal(secret.fingerprint, fingerprintOf(secret.signingSecret))
      t.not(secret.fingerprint, firstFingerprint)
      t.ok(secret.createdAt > createdAt, "made at the rotation")
      shown.push(secret.signingSecret)

      const replay = await rotate(owner.key, subscriptionId, key)
      t.equal(replay.headers.get("idempotency-replayed"), "true")
      t.equal(replay.headers.get("cache-control"), "no-store")
      t.same(replay.body, response.body, "the replay shows the same secret and rotates nothing more")
      const bodiless = await mutate(server, "POST", `/api/v2/webhooks/${subscriptionId}/rotate-secret`, owner.key, undefined, key)
      t.equal(bodiless.headers.get("idempotency-replayed"), "true", "no body is the same request as {}")
      t.same(bodiless.body, response.body)

      const listed = (await list(owner.key)).body.subscriptions.find((s: any) => s.id === subscriptionId)
      t.match(listed, { currentSecretVersion: 2, currentSecretFingerprint: secret.fingerprint, status: "active", createdAt })
      t.equal(listed.updatedAt, secret.createdAt, "updatedAt is the rotation's time")
      const withoutBody = await mutate(server, "POST", `/api/v2/webhooks/${subscriptionId}/rotate-secret`, owner.key)
      t.equal(withoutBody.status, 200, "no body at all is taken too")
      shown.push(withoutBody.body.secret.signingSecret)
      const third = (await list(owner.key)).body.subscriptions.find((s: any) => s.id === subscriptionId)
      t.equal(third.currentSecretVersion, 3)
    })

    await t.test("disable: 200 WebhookDisabled; again, or a rotation, is 409 invalid_state_transition", async (t) => {
      const before = (await list(owner.key)).body.subscriptions.find((s: any) => s.id === subscriptionId)
      const key = idempotencyKey()
      const response = await disable(owner.key, subscriptionId, key)
      t.equal(response.status, 200)
      t.same(Object.keys(response.body).sort(), ["contractVersion", "subscription"])
      const { subscription } = response.body
      t.same(Object.keys(subscription).sort(), SUBSCRIPTION_MEMBERS)
      t.match(subscription, { id: subscriptionId, status: "disabled", disabledAt: ISO, currentSecretVersion: 3, createdAt })
      t.equal(subscription.updatedAt, subscription.disabledAt, "updatedAt is the disabling's time")
      t.ok(subscription.updatedAt > before.updatedAt, "updatedAt changes")
      t.equal(response.headers.get("cache-control"), null)
      noSecretIn(t, response, "disable")

      const replay = await disable(owner.key, subscriptionId, key)
      t.equal(replay.status, 200)
      t.equal(replay.headers.get("idempotency-replayed"), "true")
      t.same(replay.body, response.body, "a retry with its key replays the 200")

      const again = await disable(owner.key, subscriptionId)
      expectError(t, again, 409, "invalid_state_transition", "disabling a disabled subscription")
      t.same([again.body.error.details.currentState, again.body.error.details.expectedStates], ["disabled", ["active"]])
      const rotated = await rotate(owner.key, subscriptionId)
      expectError(t, rotated, 409, "invalid_state_transition", "rotating a disabled subscription")
      t.same([rotated.body.error.details.currentState, rotated.body.error.details.expectedStates], ["disabled", ["active"]])
      noSecretIn(t, rotated, "refused rotation")
      const listed = (await list(owner.key)).body.subscriptions.find((s: any) => s.id === subscriptionId)
      t.match(listed, { status: "disabled", disabledAt: subscription.disabledAt, currentSecretVersion: 3 }, "listed as disabled")
    })

    await t.test(`at most ${MAX_SUBSCRIPTIONS} active subscriptions per owner (PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS)`, async (t) => {
      // The owner has one active subscription and two disabled ones, which do not count.
      const active = async () => (await list(owner.key)).body.subscriptions.filter((s: any) => s.status === "active")
      t.equal((await active()).length, 1)
      for (let n = 2; n <= MAX_SUBSCRIPTIONS; n++) {
        const created = await create(owner.key)
        t.equal(created.status, 201, `active subscription ${n}`)
        shown.push(created.body.secret.signingSecret)
      }
      const refused = await create(owner.key)
      expectError(t, refused, 422, "invalid_request", "one past the cap")
      t.match(refused.body.error.message, /3 active webhook subscriptions/)
      t.equal((await active()).length, MAX_SUBSCRIPTIONS, "nothing was created")
      t.equal((await create(other.key)).status, 201, "the cap is per owner")
      const [newest] = await active()
      t.equal((await disable(owner.key, newest.id)).status, 200)
      // Disabling one makes room for one, even for creations that race for it.
      const racing = await Promise.all([1, 2, 3, 4].map(() => create(owner.key)))
      t.same(racing.map((response) => response.status).sort(), [201, 422, 422, 422], "one of four concurrent creations takes the room")
      for (const response of racing) if (response.status === 201) shown.push(response.body.secret.signingSecret)
      t.equal((await active()).length, MAX_SUBSCRIPTIONS)
    })

    await t.test("another owner's subscription and an unknown one are 404", async (t) => {
      const theirs = (await create(other.key)).body.subscription.id
      const unknown = "8d3f0a5e-6a1b-4c2d-9e8f-0a1b2c3d4e5f"
      for (const id of [theirs, unknown]) {
        const what = id === theirs ? "another owner's" : "unknown"
        expectError(t, await rotate(owner.key, id), 404, "not_found", `rotate ${what}`)
        expectError(t, await disable(owner.key, id), 404, "not_found", `disable ${what}`)
      }
      t.match(
        (await list(other.key)).body.subscriptions.find((s: any) => s.id === theirs),
        { status: "active", currentSecretVersion: 1 }
      )
    })

    await t.test("no secret in the server's output", async (t) => {
      const output = server.output()
      t.ok(shown.length >= 5)
      t.notOk(
        shown.some((secret) => output.includes(secret) || output.includes(secret.slice(6))),
        "the server wrote none of the secrets it showed"
      )
    })

    await t.test("the database holds no secret in plain text", async (t) => {
      await server.stop()
      const text = await runWith(
        database,
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.all({
            subscriptions: sql`select * from webhook_subscriptions`,
            idempotency: sql`select * from idempotency_records`
          })
        ).pipe(
          Effect.map((rows) => JSON.stringify(rows)),
          Effect.orDie
        )
      )
      t.match(text, /"secret_sealed":"[A-Za-z0-9+/]{80,}={0,2}"/, "the rows are there, their secrets sealed")
      for (const secret of shown) {
        const raw = Buffer.from(secret.slice(6), "base64")
        t.notOk(
          text.includes(secret) || text.includes(secret.slice(6)) || text.includes(raw.toString("hex")),
          `${fingerprintOf(secret)}: neither the secret nor its bytes`
        )
      }
    })
  })
)
