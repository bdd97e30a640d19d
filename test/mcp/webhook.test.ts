/**
 * A lifecycle job made through MCP sends its webhook as a REST one does (issue 35): a
 * publish_revision job (channel mcp_v2) is delivered as job.succeeded, signed for the account's
 * subscription and verified with `standardwebhooks` as a customer would; a convert_markdown job
 * (mcp_v1, like a v1 convert) sends nothing. On each database.
 */
import t from "tap"
import { createAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { call, connect, documentArguments, output } from "../helpers/mcp.ts"
import { verify } from "../helpers/webhook-receiver.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

t.test("MCP jobs and webhooks", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { server, receiver, subscribe, deliveriesOf } = await startWebhookServer(t, database, {})
    const owner = await createAccount(server)
    const { id, secret } = await subscribe(owner, "/mcp")
    const client = await connect(server.url, owner.key)
    t.teardown(() => client.close())

    // The convert ends before the publish is admitted: had it an event, that event would be delivered first.
    const converted = await call(client, "convert_markdown", { markdown: "# Converted\n\nNo event for a v1 job." })
    t.equal(converted.structured.job.provenance.channel, "mcp_v1")

    const created = await call(client, "create_document", documentArguments())
    const published = await call(client, "publish_revision", {
      documentId: created.structured.document.id,
      ...output(created.structured.revision.id)
    })
    const jobId = published.structured.job.id
    t.equal(published.structured.job.provenance.channel, "mcp_v2")

    const delivered = await until("the subscription's delivery ends", async () => {
      const deliveries = await deliveriesOf(owner, id)
      return deliveries.length === 1 && deliveries[0].status === "delivered" ? deliveries[0] : undefined
    })
    t.equal(delivered.jobId, jobId, "the subscription's only delivery is the publish_revision job's")

    const [delivery] = await receiver.awaitAt("/mcp")
    const payload = verify(secret, delivery!)
    t.equal(payload.type, "job.succeeded")
    t.match(payload.data.job, { id: jobId, purpose: "final", status: "succeeded" })
    t.equal(receiver.at("/mcp").length, 1, "nothing for the convert_markdown job")

    const { structured } = await call(client, "get_job", { jobId })
    t.equal(structured.job.provenance.channel, "mcp_v2", "the delivered job's provenance")
    t.equal(payload.data.artifact.id, structured.artifact.id)
  })
)
