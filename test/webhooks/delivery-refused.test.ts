/**
 * The address guard on the delivery path (issue 20, contract section 10), black-box on each
 * database with a server left at its default, PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS unset:
 * subscriptions to the loopback receiver, by address (https://127.0.0.1:…) and by name
 * (https://localhost:…), are accepted, but when a job ends nothing reaches the receiver, not even a
 * connection; with a one-attempt schedule each delivery is recorded as failed, with no status
 * code and a reason that names the refusal, and the job itself succeeds. There is no delivery
 * history API yet, so the rows are read from the database: on PostgreSQL while the server runs, on
 * PGlite (whose files the server holds) after it has stopped.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith, type TestDatabase } from "../helpers/database.ts"
import { sleep, until } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"
import { awaitJob, mutate, newDocument, preview } from "../helpers/v2.ts"
import { startReceiver } from "../helpers/webhook-receiver.ts"

interface DeliveryRow {
  readonly endpoint: string
  readonly status: string
  readonly attempt_count: number
  readonly lease_owner: string | null
  readonly last_status_code: number | null
  readonly last_failure_reason: string | null
}

const deliveriesOf = (database: TestDatabase, jobId: string) =>
  runWith(
    database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* Effect.orDie(sql<DeliveryRow>`
        select s.endpoint, d.status, d.attempt_count, d.lease_owner, d.last_status_code, d.last_failure_reason
        from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
        where d.job_id = ${jobId} order by s.endpoint`)
    })
  )

t.test("deliveries to loopback are refused by the guard: nothing sent, failed with the refusal as reason", (t) =>
  forEachDatabase(t, async (t, database) => {
    const receiver = await startReceiver(t, mkdtempSync(join(tmpdir(), "pressroom-webhooks-")))
    const server = await startServer(t, {
      ...database.env,
      // The receiver's CA is trusted, so only the guard stands between the server and the receiver.
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0",
      PRESSROOM_SYNC_THRESHOLD_MS: "0"
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

    const { documentId, revisionId } = await newDocument(server, owner.key)
    const admitted = await preview(server, owner.key, documentId, revisionId)
    const ended = (await awaitJob(server, owner.key, admitted.body.job.id)).body
    t.equal(ended.job.status, "succeeded", "the job itself is not affected")
    const jobId = ended.job.id as string

    // Each attempt is logged (then recorded), with its annotations on the lines below the message:
    // wait for both, as an operator would see them.
    const failures = () => [...server.output().matchAll(/webhook delivery attempt failed\n((?:\s{2}.*\n?)*)/g)].map((match) => match[1]!)
    await until("both attempts to fail", async () => failures().length >= 2)
    for (const annotations of failures()) {
      t.match(annotations, /reason: (127\.0\.0\.1|::1) is loopback\n/, "the log names the refusal")
      t.match(annotations, /next: failed\n/, "and gives the delivery up: the schedule has one attempt")
    }

    const recordedFailed = async () => {
      const found = await deliveriesOf(database, jobId)
      return found.length === 2 && found.every((row) => row.status === "failed") ? found : undefined
    }
    // The record is the statement after the log line: on PGlite, let it land before the server stops.
    if (database.kind === "postgres") await until("both deliveries to be recorded as failed", recordedFailed)
    else await sleep(1000)

    // A failed delivery alone does not disable a subscription.
    const list = await requestJson(server, "GET", "/api/v2/webhooks", { token: owner.key })
    const statuses = ids.map((id) => list.body.subscriptions.find((s: { id: string }) => s.id === id).status)
    t.same(statuses, ["active", "active"], "both subscriptions stay active")

    if (database.kind === "pglite") t.equal(await server.stop(), 0, "the server stops, releasing its database")
    const rows = await deliveriesOf(database, jobId)
    t.equal(rows.length, 2, "one delivery per subscription")
    t.match(
      rows.find((row) => row.endpoint === byAddress),
      { status: "failed", attempt_count: 1, lease_owner: null, last_status_code: null, last_failure_reason: /^127\.0\.0\.1 is loopback$/ },
      "by address: one attempt, failed, refused as loopback"
    )
    t.match(
      rows.find((row) => row.endpoint === byName),
      {
        status: "failed",
        attempt_count: 1,
        lease_owner: null,
        last_status_code: null,
        last_failure_reason: /^(127\.0\.0\.1|::1) is loopback$/
      },
      "by name: localhost resolved, and its address refused as loopback"
    )

    t.equal(receiver.all().length, 0, "the receiver got no request")
    t.equal(receiver.connections(), 0, "not even a connection")
  })
)
