/**
 * The address guard on the delivery path (issue 20, contract section 10), black-box on each
 * database with a server left at its default, PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS unset:
 * subscriptions to the loopback receiver, by address (https://127.0.0.1:…) and by name
 * (https://localhost:…), are accepted, but when a job ends nothing reaches the receiver, not even a
 * connection; with a one-attempt schedule each delivery's history shows one failed attempt with no
 * status code and a reason that names the refusal, /metrics counts them as refused, and the job
 * itself succeeds.
 */
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { mutate } from "../helpers/v2.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

t.test("deliveries to loopback are refused by the guard: nothing sent, failed with the refusal as reason", (t) =>
  forEachDatabase(t, async (t, database) => {
    // The receiver's CA is trusted, so only the guard stands between the server and the receiver.
    const { server, receiver, render } = await startWebhookServer(t, database, {
      PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0"
    })
    const owner = await createAccount(server)
    const byAddress = receiver.endpoint("/by-address")
    const byName = receiver.endpoint("/by-name").replace("//127.0.0.1:", "//localhost:")
    t.match(byName, /^https:\/\/localhost:\d+\/by-name$/)
    const ids: Array<string> = []
    for (const endpoint of [byAddress, byName]) {
      const created = await mutate(server, "POST", "/api/v2/webhooks", owner.key, { endpoint, eventTypes: ["job.succeeded"] })
      t.equal(created.status, 201, `a subscription to ${endpoint} is accepted: the guard acts at delivery`)
      ids.push(created.body.subscription.id as string)
    }

    const ended = await render(owner)
    t.equal(ended.job.status, "succeeded", "the job itself is not affected")

    const failedDelivery = (id: string) =>
      until(`the delivery of ${id} to fail`, async () => {
        const { body } = await requestJson(server, "GET", `/api/v2/webhooks/${id}/deliveries`, { token: owner.key })
        return body.deliveries[0]?.status === "failed" ? body.deliveries[0] : undefined
      })
    t.match(
      await failedDelivery(ids[0]!),
      {
        jobId: ended.job.id,
        attemptCount: 1,
        attempts: [{ attempt: 1, statusCode: null, failureReason: /^127\.0\.0\.1 is loopback$/, responseExcerpt: null }]
      },
      "by address: one attempt, failed, refused as loopback"
    )
    t.match(
      await failedDelivery(ids[1]!),
      {
        jobId: ended.job.id,
        attemptCount: 1,
        attempts: [{ attempt: 1, statusCode: null, failureReason: /^(127\.0\.0\.1|::1) is loopback$/ }]
      },
      "by name: localhost resolved, and its address refused as loopback"
    )
    // One line per attempt (issue 39), naming the refusal, with nothing indented under it.
    // The server's output reaches the test after the history does: wait for both lines, and the one after each.
    const logged = await until("both attempts logged", async () => {
      const lines = [...server.output().matchAll(/^.*webhook delivery (\S+) attempt 1 failed: (.*)\n(?=(.*))/gm)]
      return lines.length === 2 ? lines : undefined
    })
    for (const [, , problem, after] of logged ?? []) {
      t.match(problem, /^(127\.0\.0\.1|::1) is loopback; next: failed$/, "the log names the refusal")
      t.notMatch(after, /^\s/, "and nothing more for it")
    }
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    t.match(metrics, /^pressroom_webhook_delivery_attempt_duration_seconds_count\{outcome="refused"\} 2$/m, "/metrics: two refused")

    // A failed delivery alone does not disable a subscription.
    const list = await requestJson(server, "GET", "/api/v2/webhooks", { token: owner.key })
    const statuses = ids.map((id) => list.body.subscriptions.find((s: { id: string }) => s.id === id).status)
    t.same(statuses, ["active", "active"], "both subscriptions stay active")
    t.equal(receiver.all().length, 0, "the receiver got no request")
    t.equal(receiver.connections(), 0, "not even a connection")
  })
)
