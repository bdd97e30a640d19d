/**
 * Webhook delivery across failures and processes (issue 20 point 2, contract sections 1 and 10):
 * a subscription whose deliveries only fail for PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS is disabled
 * (both databases); on PostgreSQL, a pending delivery survives `kill -9` and is sent by the next
 * process, and two processes on one database send each attempt once; the delivery settings are
 * validated at start.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { createAccount, requestJson, type TestAccount } from "../helpers/api.ts"
import { forEachDatabase, freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { sleep, until } from "../helpers/lifecycle.ts"
import { refusedStart, type RunningServer, startServer } from "../helpers/server.ts"
import { awaitJob, mutate, newDocument, preview } from "../helpers/v2.ts"
import { startReceiver, verify } from "../helpers/webhook-receiver.ts"

type Receiver = Awaited<ReturnType<typeof startReceiver>>

const webhookEnv = (receiver: Receiver, extra: Record<string, string> = {}) => ({
  NODE_EXTRA_CA_CERTS: receiver.caFile,
  PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  PRESSROOM_SYNC_THRESHOLD_MS: "0",
  ...extra
})

const subscribe = async (server: RunningServer, receiver: Receiver, account: TestAccount, path: string) => {
  const created = await mutate(server, "POST", "/api/v2/webhooks", account.key, {
    endpoint: receiver.endpoint(path),
    eventTypes: ["job.succeeded"]
  })
  return { id: created.body.subscription.id as string, secret: created.body.secret.signingSecret as string }
}

const previewEnded = async (server: RunningServer, account: TestAccount) => {
  const { documentId, revisionId } = await newDocument(server, account.key)
  const admitted = await preview(server, account.key, documentId, revisionId)
  return (await awaitJob(server, account.key, admitted.body.job.id)).body.job.id as string
}

t.test("a subscription that only fails for PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS is disabled", (t) =>
  forEachDatabase(t, async (t, database) => {
    const receiver = await startReceiver(t, mkdtempSync(join(tmpdir(), "pressroom-webhooks-")))
    const server = await startServer(t, {
      ...database.env,
      ...webhookEnv(receiver, { PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,1,1,1,1,1", PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS: "2" })
    })
    const owner = await createAccount(server)
    const subscription = await subscribe(server, receiver, owner, "/down")
    receiver.answer("/down", () => ({ status: 500 }))
    await previewEnded(server, owner)
    const disabled = await until("the subscription to be disabled", async () => {
      const list = await requestJson(server, "GET", "/api/v2/webhooks", { token: owner.key })
      const found = list.body.subscriptions.find((s: { id: string }) => s.id === subscription.id)
      return found.status === "disabled" ? found : undefined
    })
    t.equal(disabled.status, "disabled")
    const attempts = receiver.at("/down").length
    t.ok(attempts >= 3 && attempts < 6, `disabled after ${attempts} attempts over 2 s, before the schedule ran out`)
    await sleep(2000)
    t.equal(receiver.at("/down").length, attempts, "no attempt after the disable")
  })
)

t.test("PostgreSQL: a pending delivery survives kill -9; two processes send each attempt once", { skip: !postgresServerUrl }, async (t) => {
  const database = await freshDatabase("postgres")
  t.teardown(database.drop)
  const receiver = await startReceiver(t, mkdtempSync(join(tmpdir(), "pressroom-webhooks-")))
  const env = { ...database.env, ...webhookEnv(receiver, { PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,3,1" }) }

  await t.test("kill -9 after a failed attempt: the next process sends the retry", async (t) => {
    const first = await startServer(t, env)
    const owner = await createAccount(first)
    const { secret } = await subscribe(first, receiver, owner, "/crash")
    receiver.answer("/crash", (n) => ({ status: n === 1 ? 500 : 204 }))
    await previewEnded(first, owner)
    await receiver.awaitAt("/crash", 1)
    await sleep(300)
    first.process.kill("SIGKILL")
    await new Promise((resolve) => first.process.once("exit", resolve))
    await startServer(t, env)
    const [failed, delivered] = await receiver.awaitAt("/crash", 2, 30_000)
    t.equal(delivered!.headers["webhook-id"], failed!.headers["webhook-id"], "the same delivery, sent by the new process")
    t.equal(verify(secret, delivered!).type, "job.succeeded")
  })

  await t.test("two processes: every delivery sent, each attempt once", async (t) => {
    const [a, b] = [await startServer(t, env), await startServer(t, env)]
    const owner = await createAccount(a!)
    const { secret } = await subscribe(a!, receiver, owner, "/pair")
    // The first three attempts fail and are retried; every later one succeeds.
    receiver.answer("/pair", (n) => ({ status: n <= 3 ? 500 : 204 }))
    const jobs = await Promise.all(Array.from({ length: 6 }, (_, i) => previewEnded(i % 2 === 0 ? a! : b!, owner)))
    const received = await receiver.awaitAt("/pair", 9, 60_000)
    await sleep(3000)
    t.equal(receiver.at("/pair").length, 9, "three failed attempts and six successes: nine, no more")
    for (const delivery of received) verify(secret, delivery)
    const ids = (deliveries: ReadonlyArray<{ headers: Record<string, unknown> }>) =>
      deliveries.map((delivery) => String(delivery.headers["webhook-id"]))
    t.equal(new Set(ids(received)).size, 6, "one delivery per job")
    // Requests are answered in arrival order: every one after the third succeeded.
    t.equal(new Set(ids(received.slice(3))).size, 6, "each delivery succeeded once: no attempt was sent by both processes")
    t.same(new Set(received.map((delivery) => delivery.json.data.job.id)), new Set(jobs), "every job delivered")
  })
})

t.test("delivery settings are validated at start", async (t) => {
  // One data folder: its embedded database is made by the first start and reused by the others.
  const dataDir = mkdtempSync(join(tmpdir(), "pressroom-"))
  for (const [name, value] of [
    ["PRESSROOM_WEBHOOK_RETRY_SCHEDULE", "0,five"],
    ["PRESSROOM_WEBHOOK_RETRY_SCHEDULE", ""],
    ["PRESSROOM_WEBHOOK_TIMEOUT_MS", "0"],
    ["PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS", "0"],
    ["PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS", "maybe"],
    ["PRESSROOM_WEBHOOK_HISTORY_SECONDS", "0"]
  ] as const) {
    const { code, output } = await refusedStart({ [name]: value, PRESSROOM_DATA_DIR: dataDir })
    t.not(code, 0, `${name}=${value} is refused`)
    t.match(output, name, "the message names the setting")
  }
})
