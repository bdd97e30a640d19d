/**
 * Webhook deliveries (issue 20 point 2; specification section 6, contract section 10), black-box
 * on each database: a server sends to an HTTPS receiver on 127.0.0.1 whose CA it trusts through
 * NODE_EXTRA_CA_CERTS, and every delivery is verified with `standardwebhooks` as a customer would.
 * Shown: job.succeeded for a preview and a final (body fields, data.artifact), job.failed and
 * job.cancelled with data.job.error; only subscribed types and the owner's jobs; nothing for a v1
 * convert; a retry after a 500 with the same webhook-id and a new signature; a redirect not
 * followed, tried on the schedule, then given up; a timeout is a failure; disabling drops pending
 * retries; a 410 disables the subscription; both secrets
 * sign during a rotation's overlap; a disabled subscription hears nothing more.
 */
import t from "tap"
import { convert, createAccount, type TestAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { slowDocument, until } from "../helpers/lifecycle.ts"
import type { TestContext } from "../helpers/tap.ts"
import { awaitJob, getJob, mutate, newDocument, preview } from "../helpers/v2.ts"
import { type Received, verify } from "../helpers/webhook-receiver.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

t.test("webhook deliveries", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { server, receiver, subscribe, subscriptionOf, deliveriesOf, render } = await startWebhookServer(t, database, {
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,1,1",
      PRESSROOM_WEBHOOK_TIMEOUT_MS: "1500",
      PRESSROOM_RENDER_TIMEOUT_MS: "2000",
      PRESSROOM_SYNC_THRESHOLD_MS: "0"
    })
    const jobIdsAt = (path: string) => receiver.at(path).map((delivery) => delivery.json.data.job.id)
    /**
     * The subscription's one delivery once it has ended (`delivered`, `failed` or `dropped`): an
     * ended delivery is never attempted again, which is what the tests below would otherwise wait out.
     */
    const endedDelivery = (owner: TestAccount, subscriptionId: string, status: "delivered" | "failed" | "dropped") =>
      until(`a ${status} delivery`, async () => {
        const deliveries = await deliveriesOf(owner, subscriptionId)
        return deliveries.length === 1 && deliveries[0].status === status ? deliveries[0] : undefined
      })
    const checkEnvelope = (t: TestContext, delivery: Received, type: string, secret: string) => {
      const payload = verify(secret, delivery)
      t.same(Object.keys(payload).sort(), ["apiVersion", "createdAt", "data", "id", "type"])
      t.match(payload, { id: UUID, type, apiVersion: "2026-07-22", createdAt: ISO })
      t.equal(delivery.headers["webhook-id"], payload.id, "webhook-id is the body's id")
      t.equal(delivery.headers["content-type"], "application/json")
      t.ok(Math.abs(Number(delivery.headers["webhook-timestamp"]) - Date.now() / 1000) < 30, "a current timestamp")
      return payload
    }

    await t.test("job.succeeded for a preview and a final, verified, with the job and its artifact", async (t) => {
      const owner = await createAccount(server, { monthlyUnits: 5 })
      const { secret } = await subscribe(owner, "/succeeded")
      for (const final of [false, true]) {
        const ended = await render(owner, { final })
        t.equal(ended.job.status, "succeeded")
        const [delivery] = (await receiver.awaitAt("/succeeded", final ? 2 : 1)).slice(final ? 1 : 0)
        const payload = checkEnvelope(t, delivery!, "job.succeeded", secret)
        t.same(Object.keys(payload.data).sort(), ["artifact", "job"])
        t.same(Object.keys(payload.data.job).sort(), [
          "completedAt",
          "createdAt",
          "documentId",
          "error",
          "id",
          "output",
          "purpose",
          "revisionId",
          "status"
        ])
        t.match(payload.data.job, {
          id: ended.job.id,
          documentId: ended.job.documentId,
          revisionId: ended.job.revisionId,
          purpose: final ? "final" : "preview",
          status: "succeeded",
          error: null,
          output: { filename: "document.pdf", format: "pdf" },
          createdAt: ISO,
          completedAt: ended.job.completedAt
        })
        t.same(payload.data.artifact, {
          id: ended.artifact.id,
          bytes: ended.artifact.bytes,
          contentType: "application/pdf",
          expiresAt: ended.artifact.retention.expiresAt,
          filename: "document.pdf",
          format: "pdf",
          pageCount: ended.artifact.pageCount,
          sha256: ended.artifact.sha256
        })
      }
    })

    await t.test("job.failed and job.cancelled carry data.job.error; only subscribed types, only the owner's jobs", async (t) => {
      const owner = await createAccount(server)
      const other = await createAccount(server)
      const all = await subscribe(owner, "/all")
      const failedOnly = await subscribe(owner, "/failed-only", ["job.failed"])
      await subscribe(other, "/other")

      const slow = await newDocument(server, owner.key, { markdown: slowDocument })
      const short = await newDocument(server, owner.key)
      const failing = (await preview(server, owner.key, slow.documentId, slow.revisionId)).body.job.id as string
      await until("the slow job to run", async () => (await getJob(server, owner.key, failing)).body.job.status === "running")
      const queued = (await preview(server, owner.key, short.documentId, short.revisionId)).body.job.id as string
      t.equal((await mutate(server, "POST", `/api/v2/jobs/${queued}/cancel`, owner.key)).status, 200, "the queued job is cancelled")
      t.equal((await awaitJob(server, owner.key, failing)).body.job.status, "failed", "the slow job passes the render timeout")

      const [first, second] = await receiver.awaitAt("/all", 2)
      const byType = new Map([first!, second!].map((delivery) => [delivery.json.type, delivery]))
      const cancelled = checkEnvelope(t, byType.get("job.cancelled")!, "job.cancelled", all.secret)
      t.match(cancelled.data.job, { id: queued, status: "cancelled", error: { code: "job_cancelled" } })
      // One clock: the event's completedAt is the job's own (the database's), for every ending.
      t.equal(
        cancelled.data.job.completedAt,
        (await getJob(server, owner.key, queued)).body.job.completedAt,
        "cancelled: completedAt is the job's"
      )
      t.notOk("artifact" in cancelled.data, "no artifact")
      const failed = checkEnvelope(t, byType.get("job.failed")!, "job.failed", all.secret)
      t.match(failed.data.job, { id: failing, status: "failed", error: { code: "rendering_failed" } })
      t.equal(
        failed.data.job.completedAt,
        (await getJob(server, owner.key, failing)).body.job.completedAt,
        "failed: completedAt is the job's"
      )
      t.notOk("artifact" in failed.data, "no artifact")

      const [onlyFailed] = await receiver.awaitAt("/failed-only", 1)
      t.equal(checkEnvelope(t, onlyFailed!, "job.failed", failedOnly.secret).data.job.id, failing)
      t.not(onlyFailed!.json.id, failed.id, "each subscription has its own webhook-id")

      // The other owner's subscription hears its own job, and nothing of the owner's.
      const own = await render(other)
      await receiver.awaitAt("/other", 1)
      t.same(jobIdsAt("/other"), [own.job.id], "another owner hears only its own job")
      t.equal(receiver.at("/failed-only").length, 1, "the cancellation went only where it was subscribed")
    })

    await t.test("a v1 convert sends nothing", async (t) => {
      const owner = await createAccount(server)
      const { id } = await subscribe(owner, "/v1")
      t.equal((await convert(server, owner.key, { markdown: "# v1\n\nAnswered in the request." })).status, 200)
      const v2 = await render(owner)
      // Events go out in the order their jobs ended: the v1 job's would have come first.
      t.equal((await endedDelivery(owner, id, "delivered")).jobId, v2.job.id, "the subscription's only delivery is the v2 job's")
      t.same(jobIdsAt("/v1"), [v2.job.id], "only the v2 job is delivered")
    })

    await t.test("a 500 is retried with the same webhook-id and a new signature", async (t) => {
      const owner = await createAccount(server)
      const { id, secret } = await subscribe(owner, "/flaky")
      receiver.answer("/flaky", (n) => ({ status: n === 1 ? 500 : 200 }))
      await render(owner)
      const [first, second] = await receiver.awaitAt("/flaky", 2)
      verify(secret, first!)
      verify(secret, second!)
      t.equal(second!.headers["webhook-id"], first!.headers["webhook-id"], "the same webhook-id")
      t.equal(second!.body, first!.body, "the same body")
      t.not(second!.headers["webhook-signature"], first!.headers["webhook-signature"], "a new signature")
      t.ok(Number(second!.headers["webhook-timestamp"]) > Number(first!.headers["webhook-timestamp"]), "a later timestamp")
      t.ok(second!.receivedAt - first!.receivedAt >= 900, "after the schedule's delay")
      t.match(
        await endedDelivery(owner, id, "delivered"),
        { attemptCount: 2, nextAttemptAt: null },
        "delivered by the second attempt, none due"
      )
      t.equal(receiver.at("/flaky").length, 2, "nothing more once delivered")
    })

    await t.test("a timeout counts as a failure and is retried", async (t) => {
      const owner = await createAccount(server)
      const { id, secret } = await subscribe(owner, "/slow")
      receiver.answer("/slow", (n) => (n === 1 ? "hang" : { status: 204 }))
      await render(owner)
      const [first, second] = await receiver.awaitAt("/slow", 2)
      t.equal(second!.headers["webhook-id"], first!.headers["webhook-id"], "the same delivery")
      t.ok(second!.receivedAt - first!.receivedAt >= 2400, "after the 1.5 s timeout and the 1 s delay")
      t.equal(verify(secret, second!).type, "job.succeeded")
      t.match(await endedDelivery(owner, id, "delivered"), { attemptCount: 2, nextAttemptAt: null }, "delivered by the second attempt")
      t.equal(receiver.at("/slow").length, 2, "and sent no more")
    })

    await t.test("disabling a subscription drops its pending retries", async (t) => {
      const owner = await createAccount(server)
      const subscription = await subscribe(owner, "/failing")
      receiver.answer("/failing", () => ({ status: 503 }))
      await render(owner)
      await receiver.awaitAt("/failing", 1)
      t.equal((await mutate(server, "POST", `/api/v2/webhooks/${subscription.id}/disable`, owner.key, {})).status, 200)
      // The schedule's next attempt was due 1 s after the first: dropped, it is never made.
      t.match(await endedDelivery(owner, subscription.id, "dropped"), { attemptCount: 1, nextAttemptAt: null }, "the delivery is dropped")
      t.equal(receiver.at("/failing").length, 1, "no retry after the disable")
    })

    await t.test("a redirect is not followed: a failure, retried on the schedule, then given up", async (t) => {
      const owner = await createAccount(server)
      const subscription = await subscribe(owner, "/redirect")
      receiver.answer("/redirect", () => ({ status: 302, headers: { location: receiver.endpoint("/redirect-target") } }))
      await render(owner)
      const attempts = await receiver.awaitAt("/redirect", 3)
      t.equal(new Set(attempts.map((delivery) => delivery.headers["webhook-id"])).size, 1, "three attempts of one delivery")
      t.match(
        await endedDelivery(owner, subscription.id, "failed"),
        { attemptCount: 3, nextAttemptAt: null },
        "given up after the schedule"
      )
      t.equal(receiver.at("/redirect").length, 3, "the schedule's three attempts, then no more")
      t.equal(receiver.at("/redirect-target").length, 0, "the redirect's target hears nothing")
      t.equal((await subscriptionOf(owner, subscription.id)).status, "active", "a failed delivery alone does not disable")
    })

    await t.test("a 410 disables the subscription", async (t) => {
      const owner = await createAccount(server)
      const subscription = await subscribe(owner, "/gone")
      // Deliveries are made for every subscription of an event at once: one it hears shows the next job's event went out.
      const witness = await subscribe(owner, "/gone-witness")
      receiver.answer("/gone", () => ({ status: 410 }))
      await render(owner)
      await receiver.awaitAt("/gone", 1)
      const disabled = await until("the subscription to be disabled", async () => {
        const found = await subscriptionOf(owner, subscription.id)
        return found.status === "disabled" ? found : undefined
      })
      t.match(disabled, { status: "disabled", disabledAt: ISO })
      const next = await render(owner)
      await until("the witness to hear the next job", async () => jobIdsAt("/gone-witness").includes(next.job.id))
      t.equal((await deliveriesOf(owner, subscription.id)).length, 1, "no delivery for the next job")
      t.equal(receiver.at("/gone").length, 1, "one attempt, and nothing for the next job")
      t.equal((await deliveriesOf(owner, witness.id)).length, 2, "while the witness has both")
    })

    await t.test("during a rotation's overlap both secrets sign", async (t) => {
      const owner = await createAccount(server)
      const { id, secret: previous } = await subscribe(owner, "/rotated")
      const rotated = await mutate(server, "POST", `/api/v2/webhooks/${id}/rotate-secret`, owner.key, {})
      t.equal(rotated.status, 200)
      const current = rotated.body.secret.signingSecret as string
      await render(owner)
      const [delivery] = await receiver.awaitAt("/rotated", 1)
      t.equal(String(delivery!.headers["webhook-signature"]).split(" ").length, 2, "two signatures, space-separated")
      t.equal(verify(current, delivery!).type, "job.succeeded", "the new secret verifies")
      t.equal(verify(previous, delivery!).type, "job.succeeded", "the previous secret verifies")
    })

    await t.test("a disabled subscription hears nothing more", async (t) => {
      const owner = await createAccount(server)
      const disabled = await subscribe(owner, "/disabled")
      await subscribe(owner, "/still-active")
      t.equal((await mutate(server, "POST", `/api/v2/webhooks/${disabled.id}/disable`, owner.key, {})).status, 200)
      const ended = await render(owner)
      await receiver.awaitAt("/still-active", 1)
      t.same(jobIdsAt("/still-active"), [ended.job.id], "the active subscription hears the job")
      // The active subscription's delivery was made with any other of the event's.
      t.same(await deliveriesOf(owner, disabled.id), [], "the disabled one has no delivery")
      t.equal(receiver.at("/disabled").length, 0, "and hears nothing")
    })
  })
)
