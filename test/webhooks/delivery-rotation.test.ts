/**
 * A rotation's overlap ends (contract section 10, PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS),
 * black-box on each database with an overlap of 2 s: the secret that verified a delivery before
 * the rotation no longer does once the overlap has passed; the delivery carries exactly one
 * signature, which the new secret verifies. (During the overlap both sign: delivery.test.ts.)
 */
import t from "tap"
import { WebhookVerificationError } from "standardwebhooks"
import { createAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { sleep } from "../helpers/lifecycle.ts"
import { mutate } from "../helpers/v2.ts"
import { verify } from "../helpers/webhook-receiver.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

const OVERLAP_SECONDS = 2

t.test("after a rotation's overlap only the new secret signs", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { server, receiver, subscribe, render } = await startWebhookServer(t, database, {
      PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS: String(OVERLAP_SECONDS),
      PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0"
    })
    const owner = await createAccount(server)
    const { id, secret: previous } = await subscribe(owner, "/rotated", ["job.succeeded"])

    const before = (await render(owner)).job.id
    const [first] = await receiver.awaitAt("/rotated", 1)
    t.equal(verify(previous, first!).data.job.id, before, "before the rotation, the first secret verifies")

    const rotated = await mutate(server, "POST", `/api/v2/webhooks/${id}/rotate-secret`, owner.key, {})
    t.equal(rotated.status, 200, "rotated")
    const current = rotated.body.secret.signingSecret as string
    t.not(current, previous, "a new secret")
    // The overlap runs from the rotation, which happened before its response came back.
    await sleep(OVERLAP_SECONDS * 1000 + 1000)

    const after = (await render(owner)).job.id
    const [, delivery] = await receiver.awaitAt("/rotated", 2)
    const signatures = String(delivery!.headers["webhook-signature"]).split(" ")
    t.equal(signatures.length, 1, "one signature")
    t.match(signatures[0], /^v1,[A-Za-z0-9+/]+=*$/, "a v1 signature")
    t.equal(verify(current, delivery!).data.job.id, after, "the new secret verifies")
    t.throws(() => verify(previous, delivery!), WebhookVerificationError, "the previous secret no longer does")
  })
)
