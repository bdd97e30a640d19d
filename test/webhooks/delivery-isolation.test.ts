/**
 * A slow or dead endpoint delays no one else (issue 20 point 2), black-box on each database: an
 * endpoint that never answers, with five deliveries due, holds one attempt at a time, while
 * another owner's job renders and its delivery arrives before that attempt has even timed out.
 * And a subscription whose signing secret cannot be read any more (the server key changed) fails
 * its deliveries on the schedule, unsent, with the reason in its history, rather than being
 * claimed again and again.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"
import { startReceiver } from "../helpers/webhook-receiver.ts"
import { startWebhookServer, webhookClient } from "../helpers/webhooks.ts"

const TIMEOUT_MS = 6000

t.test("a dead endpoint holds one attempt at a time; other subscribers and renders go on", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { server, receiver, subscribe, render, deliveriesOf } = await startWebhookServer(t, database, {
      PRESSROOM_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,3600"
    })
    const stuck = await createAccount(server, { monthlyUnits: 10 })
    const dead = await subscribe(stuck, "/dead", ["job.succeeded"])
    receiver.answer("/dead", () => "hang")
    for (let i = 0; i < 5; i++) await render(stuck)
    const [first] = await receiver.awaitAt("/dead", 1)

    const other = await createAccount(server)
    await subscribe(other, "/alive", ["job.succeeded"])
    const ended = await render(other)
    t.equal(ended.job.status, "succeeded", "the other owner's job renders")
    const [alive] = await receiver.awaitAt("/alive", 1)
    t.equal(alive!.json.data.job.id, ended.job.id)
    t.ok(alive!.receivedAt < first!.receivedAt + TIMEOUT_MS, "delivered while the dead endpoint's first attempt still hangs")
    t.equal(receiver.at("/dead").length, 1, "the dead endpoint holds one attempt, not every one of its five")

    const [, second] = await receiver.awaitAt("/dead", 2, 30_000)
    // Measured from the first attempt's start as the server recorded it (its connection and TLS
    // handshake come before the receiver sees the request, so the receiver's clock starts late).
    const attempts = (await deliveriesOf(stuck, dead.id)).flatMap((delivery) => delivery.attempts)
    const timedOut = attempts.find((attempt) => attempt.failureReason === "timeout")
    t.ok(timedOut !== undefined && timedOut.durationMs >= TIMEOUT_MS, "the first attempt timed out", { attempts })
    t.ok(second!.receivedAt >= Date.parse(timedOut?.startedAt) + TIMEOUT_MS, "its next delivery only once the first attempt timed out", {
      attempts,
      secondReceivedAt: new Date(second!.receivedAt).toISOString()
    })
    t.not(second!.headers["webhook-id"], first!.headers["webhook-id"], "the next delivery, not a retry (an hour away)")
  })
)

t.test("a signing secret that cannot be read fails its deliveries, unsent, with the reason", (t) =>
  forEachDatabase(t, async (t, database) => {
    const receiver = await startReceiver(t, mkdtempSync(join(tmpdir(), "pressroom-webhooks-")))
    const env = {
      ...database.env,
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,1",
      PRESSROOM_DATA_DIR: mkdtempSync(join(tmpdir(), "pressroom-server-"))
    }
    const before = await startServer(t, { ...env, PRESSROOM_SERVER_KEY: Buffer.alloc(32, 1).toString("base64") })
    const owner = await createAccount(before)
    const { id } = await webhookClient(before, receiver).subscribe(owner, "/orphaned", ["job.succeeded"])
    t.equal(await before.stop(), 0)

    const after = await startServer(t, { ...env, PRESSROOM_SERVER_KEY: Buffer.alloc(32, 2).toString("base64") })
    const ended = await webhookClient(after, receiver).render(owner)
    t.equal(ended.job.status, "succeeded", "the job is not affected")
    const failed = await until("the delivery to fail", async () => {
      const { body } = await requestJson(after, "GET", `/api/v2/webhooks/${id}/deliveries`, { token: owner.key })
      return body.deliveries[0]?.status === "failed" ? body.deliveries[0] : undefined
    })
    const reason = "the signing secret cannot be read: was PRESSROOM_SERVER_KEY changed?"
    t.match(failed, {
      jobId: ended.job.id,
      attemptCount: 2,
      attempts: [
        { attempt: 1, statusCode: null, failureReason: reason },
        { attempt: 2, statusCode: null, failureReason: reason }
      ]
    })
    t.equal(receiver.all().length, 0, "nothing was sent")
    t.notMatch(after.output(), /whsec_/, "no secret in the log")
  })
)
