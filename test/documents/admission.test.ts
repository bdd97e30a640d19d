/**
 * Admission of previews and publications (specification 2.8 to 2.13 and 3, contract section 6),
 * black-box on each database: within the synchronous threshold the answer is 200 with the ended
 * job; a job that outlasts the threshold is answered 202 when the threshold ends; with
 * PRESSROOM_SYNC_THRESHOLD_MS=0 the answer is 202 with the job still queued or running, which
 * later succeeds at links.self. Every JobResponse is complete; a preview carries 0 units and the
 * plan and source the account's next final unit would come from, a publication 1 unit; previews
 * live 15 minutes after finalisation, finals seven days; the PDF holds the document's text.
 */
import t from "tap"
import { createAccount, requestJson, usageOf } from "../helpers/api.ts"
import { forEachDatabase, freshDatabase } from "../helpers/database.ts"
import { checkJobResponse, millisBetween } from "../helpers/job-response.ts"
import { pdfText } from "../helpers/pdf.ts"
import { ADMIN_TOKEN, type RunningServer, startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { slowDocument } from "../helpers/lifecycle.ts"
import { awaitJob, download, getJob, mutate, newDocument, preview, publish } from "../helpers/v2.ts"

const FIFTEEN_MINUTES = 15 * 60 * 1000
const SEVEN_DAYS = 7 * 24 * 60 * 60 * 1000

/** Front matter that is a list, not a mapping: ignored with a warning on line 1. */
const MARKDOWN = "---\n- not\n- a mapping\n---\n\n# Ada Lovelace\n\nAnalyst of the Analytical Engine.\n"

/** Downloads the job's artifact with the key and checks it is the document's PDF. */
const checkPdf = async (t: TestContext, server: RunningServer, key: string, body: any) => {
  const pdf = await download(server, body.artifact.downloadPath, key)
  t.equal(pdf.status, 200, "the artifact downloads")
  t.equal(pdf.bytes.length, body.artifact.bytes, "of the size the summary shows")
  t.match(pdfText(pdf.bytes), /Analyst of the Analytical Engine/, "the PDF holds the document's text")
}

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, database.env)
  const second = await freshDatabase(database.kind)
  t.teardown(second.drop)
  const asynchronous = await startServer(t, { ...second.env, PRESSROOM_SYNC_THRESHOLD_MS: "0" })

  await t.test("a preview within the threshold: 200, succeeded, 0 units, 15 minutes", async (t) => {
    const account = await createAccount(server, { plan: "free" })
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: MARKDOWN })
    const response = await preview(server, account.key, documentId, revisionId)
    t.equal(response.status, 200)
    const body = checkJobResponse(t, response.body)
    t.match(body.job, { purpose: "preview", status: "succeeded", documentId, revisionId, error: null, attemptCount: 1 })
    t.ok(body.job.queuedAt && body.job.startedAt && body.job.completedAt, "queued, started and completed")
    t.match(body.job.entitlement, { units: 0, plan: "free", source: "free_trial" })
    t.equal(body.artifact.status, "available")
    t.equal(
      millisBetween(body.artifact.finalizedAt, body.artifact.retention.expiresAt),
      FIFTEEN_MINUTES,
      "expires 15 minutes after finalisation"
    )
    t.same(
      body.warnings.filter((warning: any) => warning.code === "front_matter_invalid").map((warning: any) => warning.line),
      [1],
      "the ignored front matter is a warning on line 1"
    )
    t.same((await getJob(server, account.key, body.job.id)).body, body, "links.self answers the same JobResponse")
    await checkPdf(t, server, account.key, body)
  })

  await t.test("a publication within the threshold: 200, succeeded, 1 unit, seven days", async (t) => {
    const account = await createAccount(server, { plan: "free" })
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: MARKDOWN })
    const response = await publish(server, account.key, documentId, revisionId)
    t.equal(response.status, 200)
    const body = checkJobResponse(t, response.body)
    t.match(body.job, { purpose: "final", status: "succeeded", documentId, revisionId, error: null })
    t.match(body.job.entitlement, { units: 1, plan: "free", source: "free_trial" })
    t.equal(
      millisBetween(body.artifact.finalizedAt, body.artifact.retention.expiresAt),
      SEVEN_DAYS,
      "expires seven days after finalisation"
    )
    t.match(await usageOf(server, account.accountId), { used: 1, reserved: 0 })
    await checkPdf(t, server, account.key, body)
  })

  await t.test("the snapshot names the pool the next final unit comes from: a credit pack", async (t) => {
    const account = await createAccount(server, { plan: "monthly", monthlyUnits: 0 })
    const packs = await requestJson(server, "POST", `/admin/v1/accounts/${account.accountId}/credit-packs`, {
      token: ADMIN_TOKEN,
      body: { packs: 1 }
    })
    t.equal(packs.status, 201)
    const { documentId, revisionId } = await newDocument(server, account.key)
    const previewed = await preview(server, account.key, documentId, revisionId)
    t.match(previewed.body.job.entitlement, { units: 0, plan: "monthly", source: "credit_pack" }, "preview: 0 units, from a pack")
    const published = await publish(server, account.key, documentId, revisionId)
    t.match(published.body.job.entitlement, { units: 1, plan: "monthly", source: "credit_pack" }, "final: 1 unit, from a pack")
  })

  await t.test("a preview that outlasts the threshold: 202 when the 2 s threshold ends", async (t) => {
    const account = await createAccount(server)
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: slowDocument })
    const started = Date.now()
    const response = await preview(server, account.key, documentId, revisionId)
    const waited = Date.now() - started
    t.equal(response.status, 202)
    t.equal(checkJobResponse(t, response.body).job.status, "running")
    t.ok(waited >= 2_000 && waited < 4_000, `answered at the threshold, after ${waited} ms`)
    // The worker is needed by the next tests: stop this render.
    await mutate(server, "POST", response.body.links.cancel, account.key)
    t.equal((await awaitJob(server, account.key, response.body.job.id)).body.job.status, "cancelled")
  })

  for (const purpose of ["preview", "final"] as const) {
    await t.test(`a ${purpose} with PRESSROOM_SYNC_THRESHOLD_MS=0: 202, then it succeeds at links.self`, async (t) => {
      const account = await createAccount(asynchronous)
      const { documentId, revisionId } = await newDocument(asynchronous, account.key, { markdown: MARKDOWN })
      const admit = purpose === "preview" ? preview : publish
      const before = await usageOf(asynchronous, account.accountId)
      const response = await admit(asynchronous, account.key, documentId, revisionId)
      t.equal(response.status, 202)
      const body = checkJobResponse(t, response.body)
      t.ok(["accepted", "queued", "running"].includes(body.job.status), `not ended yet: ${body.job.status}`)
      t.match(body.job, { purpose, completedAt: null, artifactId: null, error: null })
      t.equal(body.artifact, null)
      t.equal(body.job.entitlement.units, purpose === "final" ? 1 : 0)
      // Taken at admission: one fewer remains at once (reserved, or already used if the render was that quick).
      if (purpose === "final")
        t.equal((await usageOf(asynchronous, account.accountId)).remaining, before.remaining - 1, "its unit is taken at admission")

      const ended = await awaitJob(asynchronous, account.key, body.job.id)
      t.equal(ended.status, 200)
      const done = checkJobResponse(t, ended.body)
      t.equal(done.job.status, "succeeded")
      t.equal(done.job.requestSha256, body.job.requestSha256, "the same job")
      t.same(done.job.entitlement, body.job.entitlement, "the snapshot taken at admission")
      const lifetime = purpose === "final" ? SEVEN_DAYS : FIFTEEN_MINUTES
      t.equal(millisBetween(done.artifact.finalizedAt, done.artifact.retention.expiresAt), lifetime)
      if (purpose === "final") t.match(await usageOf(asynchronous, account.accountId), { used: 1, reserved: 0 }, "committed on success")
      await checkPdf(t, asynchronous, account.key, done)
    })
  }
})
