/**
 * The typed client (pressroom/client) against a real server, as a customer would use it: an
 * operator sets up an account and a key through the admin API with the admin token; the key's
 * owner creates a document, publishes it, waits for the job, downloads the PDF with the key and
 * through a link, and manages a webhook subscription. The contract tests stay on raw HTTP.
 */
import t from "tap"
import { InvalidStateTransitionError, PressroomClient } from "../../src/client/index.ts"
import { until } from "../helpers/lifecycle.ts"
import { ADMIN_TOKEN } from "../helpers/server.ts"
import { sharedServer } from "../helpers/shared-server.ts"

const startsWithPdf = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(0, 5)) === "%PDF-"

t.test("a document's lifecycle through the Promise client", async (t) => {
  const server = await sharedServer(t, "pglite")
  const operator = new PressroomClient({ baseUrl: server.url, adminToken: ADMIN_TOKEN })
  const { account } = await operator.admin.createAccount({ payload: { name: "Client test", plan: "monthly" } })
  const { secret } = await operator.admin.createKey({ path: { accountId: account.id }, payload: {} })
  t.match(secret, /^pk_live_[0-9a-f]{32}$/, "the admin API gave a key")

  const client = new PressroomClient({ baseUrl: server.url, apiKey: secret })
  const created = await client.documents.create({
    payload: {
      taskId: "client-lifecycle",
      title: "Ada",
      revision: { markdown: "# Ada Lovelace\n\nAnalyst.", parentRevisionId: null, spec: { locale: "en", templateId: "resume" } }
    }
  })
  t.equal(created.document.title, "Ada")
  const publication = await client.documents.createPublication({
    path: { documentId: created.document.id },
    payload: { revisionId: created.revision.id, output: { filename: "ada.pdf", format: "pdf" } }
  })
  const ended = await until("the job ends", async () => {
    const answer = await client.jobs.get({ path: { jobId: publication.job.id } })
    return answer.job.status === "queued" || answer.job.status === "running" ? undefined : answer
  })
  const { job, artifact } = ended!
  t.equal(job.status, "succeeded", "the publication succeeded")
  if (!artifact) throw new Error("a succeeded publication has an artifact")

  // No headers (If-None-Match is optional) and, below, no urlParams or payload where every part is optional.
  const pdf = await client.artifacts.download({ path: { artifactId: artifact.id } })
  if (!(pdf instanceof Uint8Array)) throw new Error("the download answered without a body")
  t.ok(startsWithPdf(pdf), "the download is a PDF")
  const link = await client.artifacts.createLink({ path: { artifactId: artifact.id } })
  const token = new URL(link.href).pathname.split("/").at(-1)!
  const anonymous = new PressroomClient({ baseUrl: server.url })
  t.same(await anonymous.artifactLinks.download({ path: { token } }), pdf, "the link gives the same bytes without a key")

  const { documents } = await client.documents.list({})
  t.same(
    documents.map((document) => document.id),
    [created.document.id],
    "the listing holds the document"
  )

  const { subscription } = await client.webhooks.create({
    payload: { endpoint: "https://hooks.example.com/pressroom", eventTypes: ["job.succeeded"] }
  })
  t.equal(subscription.status, "active")
  const history = await client.webhooks.listDeliveries({ path: { webhookId: subscription.id } })
  t.same(history.deliveries, [], "a new subscription has delivered nothing")
  const disabled = await client.webhooks.disable({ path: { webhookId: subscription.id } })
  t.equal(disabled.subscription.status, "disabled")

  const usage = await operator.admin.getAccount({ path: { accountId: account.id } })
  t.equal(usage.usage.used, 1, "the publication used one unit")

  // Without a payload (cancel takes none, or {}): the server answers, refusing the cancel of an ended job.
  await client.jobs.cancel({ path: { jobId: publication.job.id } }).then(
    () => t.fail("a succeeded job cannot be cancelled"),
    (error: unknown) => t.type(error, InvalidStateTransitionError, "cancel of an ended job, without a payload: 409 from the server")
  )
})
