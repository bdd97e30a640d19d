/**
 * Idempotency over HTTP (contract section 4), against a real server on each database, with custom
 * templates as the operation: replay with `Idempotency-Replayed: true`, conflict, concurrent
 * duplicates, saved errors replayed with the new request's correlation id, scoping by owner and
 * operation, and expiry after PRESSROOM_IDEMPOTENCY_TTL_SECONDS.
 */
import { Effect } from "effect"
import t from "tap"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { startServer } from "../helpers/server.ts"

const TTL_SECONDS = 4

const body = (name: string) => ({ name, baseTemplateId: "clean", options: { paper: "a4" } })

t.test("idempotency over HTTP", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { owner, other } = await runWith(
      database,
      Effect.orDie(Effect.all({ owner: insertAccountWithKey(), other: insertAccountWithKey() }))
    )
    const server = await startServer(t, { ...database.env, PRESSROOM_IDEMPOTENCY_TTL_SECONDS: String(TTL_SECONDS) })
    const create = (key: string, payload: unknown, token = owner.key) =>
      requestJson(server, "POST", "/api/v2/templates", { token, body: payload, headers: { "idempotency-key": key } })
    const remove = (key: string, id: string) =>
      requestJson(server, "DELETE", `/api/v2/templates/${id}`, { token: owner.key, headers: { "idempotency-key": key } })
    const templateNames = async (token = owner.key) =>
      (await requestJson(server, "GET", "/api/v2/templates", { token })).body.templates.map(
        (x: { name: string }) => x.name
      ) as Array<string>

    await t.test("a repeated request replays the saved response and creates nothing", async (t) => {
      const first = await create("replay-key-1", body("replayed"))
      const second = await create("replay-key-1", body("replayed"))
      t.equal(first.status, 201)
      t.equal(first.headers.get("idempotency-replayed"), null, "the original is not marked")
      t.equal(second.status, 201, "same status")
      t.same(second.body, first.body, "same body")
      t.equal(second.headers.get("location"), first.headers.get("location"), "same Location")
      t.equal(second.headers.get("idempotency-replayed"), "true")
      t.not(second.headers.get("x-correlation-id"), first.headers.get("x-correlation-id"), "a fresh correlation id")
      t.same(
        (await templateNames()).filter((name) => name === "replayed"),
        ["replayed"],
        "one template"
      )
    })

    await t.test("the same key with a different body is a 409 conflict", async (t) => {
      await create("conflict-key-1", body("original"))
      const conflict = await create("conflict-key-1", body("changed"))
      t.equal(conflict.status, 409)
      t.equal(conflict.body.error.code, "idempotency_conflict")
      t.equal(conflict.body.error.category, "conflict")
      t.equal(conflict.body.error.retryable, false)
      t.equal(conflict.body.error.details.correlationId, conflict.headers.get("x-correlation-id"))
      t.notOk((await templateNames()).includes("changed"))
    })

    await t.test("concurrent duplicates: one template, one body, all but one replayed", async (t) => {
      const responses = await Promise.all(Array.from({ length: 10 }, () => create("concurrent-key-1", body("concurrent"))))
      t.same(
        responses.map((r) => r.status),
        Array(10).fill(201)
      )
      t.equal(new Set(responses.map((r) => JSON.stringify(r.body))).size, 1, "every response has the same body")
      t.equal(responses.filter((r) => r.headers.get("idempotency-replayed") === "true").length, 9)
      t.same(
        (await templateNames()).filter((name) => name === "concurrent"),
        ["concurrent"],
        "one template"
      )
    })

    await t.test("a saved error is replayed with the new request's correlation id", async (t) => {
      const invalid = { ...body("invalid"), options: { paper: "a3" } }
      const first = await create("error-key-1", invalid)
      const second = await create("error-key-1", invalid)
      t.equal(first.status, 422)
      t.equal(second.status, 422)
      t.equal(second.headers.get("idempotency-replayed"), "true")
      t.same({ ...second.body.error, details: undefined }, { ...first.body.error, details: undefined }, "the same error")
      t.equal(second.body.error.details.correlationId, second.headers.get("x-correlation-id"), "quoting the replay's correlation id")
      t.not(second.body.error.details.correlationId, first.body.error.details.correlationId)
    })

    await t.test("keys are scoped by owner and by operation", async (t) => {
      const mine = await create("shared-key-1", body("mine"))
      const theirs = await create("shared-key-1", body("theirs"), other.key)
      t.equal(theirs.status, 201)
      t.equal(theirs.headers.get("idempotency-replayed"), null, "another owner's key is its own")
      t.ok((await templateNames(other.key)).includes("theirs"))
      const deleted = await remove("shared-key-1", mine.body.template.id)
      t.equal(deleted.status, 200, "delete with the key create used runs: another operation")
      t.equal(deleted.headers.get("idempotency-replayed"), null)
      const again = await remove("shared-key-1", mine.body.template.id)
      t.equal(again.status, 200, "a repeated delete replays its 200 although the template is gone")
      t.equal(again.headers.get("idempotency-replayed"), "true")
      t.same(again.body, deleted.body)
    })

    await t.test("a record older than the TTL is not replayed", async (t) => {
      const first = await create("expiry-key-1", body("expiring"))
      t.equal((await create("expiry-key-1", body("expiring"))).headers.get("idempotency-replayed"), "true", "replayed within the TTL")
      await new Promise((resolve) => setTimeout(resolve, TTL_SECONDS * 1000 + 500))
      const later = await create("expiry-key-1", body("expiring"))
      t.equal(later.status, 201)
      t.equal(later.headers.get("idempotency-replayed"), null, "executed afresh")
      t.not(later.body.template.id, first.body.template.id, "a new template")
    })
  })
)
