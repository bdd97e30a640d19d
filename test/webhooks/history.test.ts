/**
 * Delivery history (issue 20 point 4, an extension of the specification), black-box on each
 * database against an HTTPS receiver on 127.0.0.1. Shown: every attempt of a delivery (status
 * code or failure reason, the answer's excerpt, duration) and its next retry; newest first, a page
 * at a time, with a cursor good for that subscription's history only; owner scoping (404) and the
 * scope (403); redelivery with an Idempotency-Key (202, sent again with the same webhook-id, once,
 * replayed without sending), refused for a disabled subscription (409); /metrics counting attempts
 * by outcome, deliveries by status and the queue; the sweeper removing ended deliveries after
 * PRESSROOM_WEBHOOK_HISTORY_SECONDS and keeping pending ones.
 */
import { randomUUID } from "node:crypto"
import t from "tap"
import { createAccount, requestJson, type TestAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { sleep, until } from "../helpers/lifecycle.ts"
import type { RunningServer } from "../helpers/server.ts"
import { idempotencyKey, mutate } from "../helpers/v2.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { verify } from "../helpers/webhook-receiver.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const historyOf = (server: RunningServer, account: TestAccount, subscriptionId: string, query = "") =>
  requestJson(server, "GET", `/api/v2/webhooks/${subscriptionId}/deliveries${query}`, { token: account.key })

/** The subscription's only delivery, once its status is `status`. */
const awaitDelivery = (server: RunningServer, account: TestAccount, subscriptionId: string, status: string) =>
  until(`a ${status} delivery`, async () => {
    const { body } = await historyOf(server, account, subscriptionId)
    return body.deliveries?.length === 1 && body.deliveries[0].status === status ? body.deliveries[0] : undefined
  })

const redeliver = (server: RunningServer, account: TestAccount, subscriptionId: string, deliveryId: string, key = idempotencyKey()) =>
  mutate(server, "POST", `/api/v2/webhooks/${subscriptionId}/deliveries/${deliveryId}/redeliver`, account.key, {}, key)

t.test("delivery history and redelivery", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { receiver, server, subscribe, render } = await startWebhookServer(t, database, {
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,1",
      PRESSROOM_WEBHOOK_TIMEOUT_MS: "1500"
    })

    await t.test("each attempt with its status code, reason, excerpt and duration; the next retry while pending", async (t) => {
      const owner = await createAccount(server)
      const { id, secret } = await subscribe(owner, "/attempts")
      receiver.answer("/attempts", (n) =>
        n === 1
          ? { status: 500, body: `{"error":"database down"}${"x".repeat(2000)}` }
          : n === 2
            ? { status: 302, headers: { location: receiver.endpoint("/elsewhere") } }
            : { status: 200, body: "ok" }
      )
      const job = await render(owner)
      const [first] = await receiver.awaitAt("/attempts", 1)
      const pending = await until("the first attempt recorded", async () => {
        const delivery = (await historyOf(server, owner, id)).body.deliveries[0]
        return delivery?.attempts.length === 1 ? delivery : undefined
      })
      t.match(pending, { status: "pending", attemptCount: 1, nextAttemptAt: ISO })
      const failed = await awaitDelivery(server, owner, id, "failed")
      t.same(Object.keys(failed).sort(), [
        "attemptCount",
        "attempts",
        "createdAt",
        "eventType",
        "id",
        "jobId",
        "nextAttemptAt",
        "status",
        "updatedAt"
      ])
      t.match(failed, {
        id: first!.headers["webhook-id"],
        eventType: "job.succeeded",
        jobId: job.job.id,
        status: "failed",
        attemptCount: 2,
        nextAttemptAt: null,
        createdAt: ISO,
        updatedAt: ISO
      })
      t.equal(verify(secret, first!).id, failed.id, "the history's id is the delivery's webhook-id and body id")
      const [one, two] = failed.attempts
      t.same(Object.keys(one).sort(), ["attempt", "durationMs", "failureReason", "responseExcerpt", "startedAt", "statusCode"])
      t.match(one, { attempt: 1, statusCode: 500, failureReason: null, startedAt: ISO })
      t.ok(one.responseExcerpt.startsWith('{"error":"database down"}xxx'), "the start of the answer")
      t.equal(Buffer.byteLength(one.responseExcerpt), 1024, "kept to 1 KiB")
      t.match(two, { attempt: 2, statusCode: 302, failureReason: "redirect not followed", startedAt: ISO })
      for (const attempt of failed.attempts) t.ok(Number.isInteger(attempt.durationMs) && attempt.durationMs >= 0, "a duration in ms")
      t.ok(Date.parse(two.startedAt) - Date.parse(one.startedAt) >= 900, "the second attempt after the schedule's 1 s")
      t.equal(receiver.at("/elsewhere").length, 0)

      await t.test("redelivered: sent once more with the same webhook-id, then delivered", async (t) => {
        const key = idempotencyKey()
        const accepted = await redeliver(server, owner, id, failed.id, key)
        t.equal(accepted.status, 202)
        t.match(accepted.body, {
          contractVersion: "publishing.lifecycle.v1",
          delivery: { id: failed.id, status: "pending", attemptCount: 2 }
        })
        t.ok(Math.abs(Date.parse(accepted.body.delivery.nextAttemptAt) - Date.now()) < 5000, "due now")
        const [, , third] = await receiver.awaitAt("/attempts", 3)
        t.equal(third!.headers["webhook-id"], failed.id, "the same webhook-id")
        t.equal(third!.body, first!.body, "the same body")
        t.equal(verify(secret, third!).type, "job.succeeded", "signed afresh")
        const delivered = await awaitDelivery(server, owner, id, "delivered")
        t.match(delivered, { attemptCount: 3, nextAttemptAt: null })
        t.match(delivered.attempts[2], { attempt: 3, statusCode: 200, failureReason: null, responseExcerpt: "ok" })

        const replay = await redeliver(server, owner, id, failed.id, key)
        t.equal(replay.status, 202)
        t.equal(replay.headers.get("idempotency-replayed"), "true")
        t.same(replay.body, accepted.body, "the saved response")
        await sleep(1500)
        t.equal(receiver.at("/attempts").length, 3, "a replay sends nothing")
      })
    })

    await t.test("a redelivery that fails is tried once, not on the retry schedule", async (t) => {
      const owner = await createAccount(server)
      const { id } = await subscribe(owner, "/down")
      receiver.answer("/down", () => ({ status: 503 }))
      await render(owner)
      const failed = await awaitDelivery(server, owner, id, "failed")
      t.equal(failed.attemptCount, 2)
      t.equal((await redeliver(server, owner, id, failed.id)).status, 202)
      await receiver.awaitAt("/down", 3)
      const again = await awaitDelivery(server, owner, id, "failed")
      t.match(again, { attemptCount: 3, nextAttemptAt: null })
      await sleep(2500)
      t.equal(receiver.at("/down").length, 3, "no retry after the redelivery's one attempt")
    })

    await t.test("newest first, a page at a time; the cursor serves this history only", async (t) => {
      const owner = await createAccount(server, { monthlyUnits: 10 })
      const { id } = await subscribe(owner, "/paged")
      const other = await subscribe(owner, "/paged-other")
      const jobs = []
      for (let i = 0; i < 3; i++) jobs.push((await render(owner)).job.id)
      await receiver.awaitAt("/paged", 3)
      const first = await historyOf(server, owner, id, "?limit=2")
      t.equal(first.status, 200)
      t.same(
        first.body.deliveries.map((delivery: { jobId: string }) => delivery.jobId),
        [jobs[2], jobs[1]]
      )
      t.equal(first.body.pagination.hasMore, true)
      const cursor = first.body.pagination.nextCursor as string
      const second = await historyOf(server, owner, id, `?limit=2&cursor=${cursor}`)
      t.same(
        second.body.deliveries.map((delivery: { jobId: string }) => delivery.jobId),
        [jobs[0]]
      )
      t.same(second.body.pagination, { hasMore: false, nextCursor: null })

      const elsewhere = await historyOf(server, owner, other.id, `?cursor=${cursor}`)
      expectError(t, elsewhere, 400, "invalid_request", "another subscription's history", { field: "cursor" })
      const onDocuments = await requestJson(server, "GET", `/api/v2/documents?cursor=${cursor}`, { token: owner.key })
      t.equal(onDocuments.status, 400, "nor does it page documents")
      t.equal((await historyOf(server, owner, id, "?limit=0")).status, 400)
      t.equal((await historyOf(server, owner, id, "?limit=101")).status, 400)
    })

    await t.test("another owner's subscription or delivery is a 404; the scope is webhooks.manage", async (t) => {
      const owner = await createAccount(server)
      const stranger = await createAccount(server)
      const { id } = await subscribe(owner, "/private")
      const strangers = await subscribe(stranger, "/stranger")
      await render(owner)
      const [delivery] = await receiver.awaitAt("/private", 1)
      const deliveryId = delivery!.headers["webhook-id"] as string
      await awaitDelivery(server, owner, id, "delivered")

      const notFound = { status: 404, body: { error: { code: "not_found" } } }
      t.match(await historyOf(server, stranger, id), notFound, "another owner's history")
      t.match(await redeliver(server, stranger, id, deliveryId), notFound, "another owner's redelivery")
      t.match(await redeliver(server, stranger, strangers.id, deliveryId), notFound, "a delivery under a subscription it is not of")
      t.match(await historyOf(server, owner, randomUUID()), notFound, "an unknown subscription")
      t.match(await redeliver(server, owner, id, randomUUID()), notFound, "an unknown delivery")
      t.equal((await historyOf(server, owner, "not-a-uuid")).status, 400)
      const missingKey = await requestJson(server, "POST", `/api/v2/webhooks/${id}/deliveries/${deliveryId}/redeliver`, {
        token: owner.key,
        body: {}
      })
      t.match(missingKey, { status: 400, body: { error: { code: "invalid_request" } } }, "redelivery needs an Idempotency-Key")

      const reader = await createAccount(server, { scopes: ["documents.read"] })
      const readerKey = { ...owner, key: reader.key }
      t.match(await historyOf(server, readerKey, id), { status: 403 })
      await sleep(500)
      t.equal(receiver.at("/private").length, 1, "nothing was sent again")
    })

    await t.test("a disabled subscription's history stays readable; redelivery is a 409", async (t) => {
      const owner = await createAccount(server)
      const { id } = await subscribe(owner, "/retired")
      await render(owner)
      const delivered = await awaitDelivery(server, owner, id, "delivered")
      t.equal((await mutate(server, "POST", `/api/v2/webhooks/${id}/disable`, owner.key, {})).status, 200)
      t.equal((await historyOf(server, owner, id)).body.deliveries[0].id, delivered.id)
      t.match(await redeliver(server, owner, id, delivered.id), {
        status: 409,
        body: { error: { code: "invalid_state_transition", details: { currentState: "disabled" } } }
      })
    })
  })
)

t.test("/metrics and the history period", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { server, receiver, subscribe, render } = await startWebhookServer(t, database, {
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,1,3600",
      PRESSROOM_WEBHOOK_TIMEOUT_MS: "8000",
      PRESSROOM_WEBHOOK_HISTORY_SECONDS: "4",
      PRESSROOM_SWEEP_INTERVAL_MS: "200"
    })
    const metric = async (line: RegExp) => {
      const text = await (await fetch(`${server.url}/metrics`)).text()
      return Number(line.exec(text)?.[1])
    }
    const attempts = (outcome: string) =>
      metric(new RegExp(`^pressroom_webhook_delivery_attempt_duration_seconds_count\\{outcome="${outcome}"\\} (\\d+)$`, "m"))
    const deliveries = (status: string) => metric(new RegExp(`^pressroom_webhook_deliveries\\{status="${status}"\\} (\\d+)$`, "m"))
    const queue = () => metric(/^pressroom_webhook_delivery_queue (\d+)$/m)

    const owner = await createAccount(server, { monthlyUnits: 10 })
    const flaky = await subscribe(owner, "/flaky")
    receiver.answer("/flaky", (n) => ({ status: n === 1 ? 500 : 204 }))
    const stuck = await subscribe(owner, "/stuck")
    receiver.answer("/stuck", (n) => (n === 1 ? "hang" : { status: 500 }))
    await render(owner)
    await receiver.awaitAt("/stuck", 1)
    await awaitDelivery(server, owner, flaky.id, "delivered")

    t.equal(await queue(), 1, "the queue: the attempt under way")
    t.equal(await attempts("failed"), 1, "the 500")
    t.equal(await attempts("delivered"), 1, "the 204")
    t.equal(await attempts("refused"), 0)
    t.equal(await deliveries("delivered"), 1)
    t.equal(await deliveries("pending"), 1)

    // The hung attempt times out at 8 s; its retry (1 s) answers 500 and the next is an hour away.
    await until("the stuck delivery's second attempt", async () =>
      (await historyOf(server, owner, stuck.id)).body.deliveries[0]?.attempts.length === 2 ? true : undefined
    ).catch(async (error) => {
      // Seen once in CI on PostgreSQL under load: what the history and the server said.
      t.comment(JSON.stringify((await historyOf(server, owner, stuck.id)).body.deliveries))
      t.comment(server.output().slice(-6000))
      throw error
    })
    t.equal(await queue(), 0, "nothing due")
    t.equal(await attempts("failed"), 3, "the 500, the timeout and the second 500")

    // Past the history period, the ended delivery goes; the pending one stays.
    await until("the delivered delivery to be swept", async () =>
      (await historyOf(server, owner, flaky.id)).body.deliveries.length === 0 ? true : undefined
    )
    t.equal(await deliveries("delivered"), 0)
    t.match((await historyOf(server, owner, stuck.id)).body.deliveries, [{ status: "pending", attemptCount: 2 }], "a pending one is kept")
  })
)
