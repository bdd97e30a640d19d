/**
 * A rotation's overlap ends (contract section 10, PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS),
 * black-box on each database with an overlap of 2 s: the secret that verified a delivery before
 * the rotation no longer does once the overlap has passed; the delivery carries exactly one
 * signature, which the new secret verifies. (During the overlap both sign: delivery.test.ts.)
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { WebhookVerificationError } from "standardwebhooks"
import { createAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { sleep } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"
import { awaitJob, mutate, newDocument, preview } from "../helpers/v2.ts"
import { startReceiver, verify } from "../helpers/webhook-receiver.ts"

const OVERLAP_SECONDS = 2

t.test("after a rotation's overlap only the new secret signs", (t) =>
  forEachDatabase(t, async (t, database) => {
    const receiver = await startReceiver(t, mkdtempSync(join(tmpdir(), "pressroom-webhooks-")))
    const server = await startServer(t, {
      ...database.env,
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS: String(OVERLAP_SECONDS),
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0",
      PRESSROOM_SYNC_THRESHOLD_MS: "0"
    })
    const owner = await createAccount(server)
    const render = async () => {
      const { documentId, revisionId } = await newDocument(server, owner.key)
      const admitted = await preview(server, owner.key, documentId, revisionId)
      return (await awaitJob(server, owner.key, admitted.body.job.id)).body.job.id as string
    }

    const created = await mutate(server, "POST", "/api/v2/webhooks", owner.key, {
      endpoint: receiver.endpoint("/rotated"),
      eventTypes: ["job.succeeded"]
    })
    t.equal(created.status, 201, "subscribed")
    const id = created.body.subscription.id as string
    const previous = created.body.secret.signingSecret as string

    const before = await render()
    const [first] = await receiver.awaitAt("/rotated", 1)
    t.equal(verify(previous, first!).data.job.id, before, "before the rotation, the first secret verifies")

    const rotated = await mutate(server, "POST", `/api/v2/webhooks/${id}/rotate-secret`, owner.key, {})
    t.equal(rotated.status, 200, "rotated")
    const current = rotated.body.secret.signingSecret as string
    t.not(current, previous, "a new secret")
    // The overlap runs from the rotation, which happened before its response came back.
    await sleep(OVERLAP_SECONDS * 1000 + 1000)

    const after = await render()
    const [, delivery] = await receiver.awaitAt("/rotated", 2)
    const signatures = String(delivery!.headers["webhook-signature"]).split(" ")
    t.equal(signatures.length, 1, "one signature")
    t.match(signatures[0], /^v1,[A-Za-z0-9+/]+=*$/, "a v1 signature")
    t.equal(verify(current, delivery!).data.job.id, after, "the new secret verifies")
    t.throws(() => verify(previous, delivery!), WebhookVerificationError, "the previous secret no longer does")
  })
)
