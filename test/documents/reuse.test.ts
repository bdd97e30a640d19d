/**
 * Renders reused by their manifest (contract section 11), black-box on each database: a
 * publication of a revision just previewed is not typeset again; it gets its own artifact (id,
 * filename, seven days) over the preview's bytes, a unit charged as usual, and /metrics counts the
 * reuse and no render. The shared bytes stay until the last artifact using them expires or is
 * deleted; another owner's identical document is rendered, into bytes of its own; a different
 * locale, template, options or source is rendered.
 */
import t from "tap"
import { createAccount, usageOf } from "../helpers/api.ts"
import { storedPdfs } from "../helpers/artifact-bytes.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { millisBetween } from "../helpers/job-response.ts"
import { until } from "../helpers/lifecycle.ts"
import { sha256 } from "../helpers/render.ts"
import type { RunningServer } from "../helpers/server.ts"
import { startServer } from "../helpers/server.ts"
import { download, getJob, mutate, newDocument, preview, publish, renderBody, type SpecInput } from "../helpers/v2.ts"

const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000

const metrics = async (server: RunningServer) => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0)
  return {
    reuses: value(/^pressroom_render_reuses_total (\d+)$/m),
    renders: value(/^pressroom_render_duration_seconds_count\{outcome="succeeded"\} (\d+)$/m)
  }
}

const deleteDocument = (server: RunningServer, key: string, documentId: string) =>
  mutate(server, "DELETE", `/api/v2/documents/${documentId}`, key)

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, {
    ...database.env,
    // Long enough for the publication to find the preview available on a loaded machine (it
    // follows the preview by a few requests), and short, since a test waits for it to expire.
    PRESSROOM_PREVIEW_TTL_SECONDS: "4",
    PRESSROOM_SWEEP_INTERVAL_MS: "200",
    // Every request answers its job ended, however slow the first render.
    PRESSROOM_SYNC_THRESHOLD_MS: "60000"
  })
  const keys = () => storedPdfs(server, database)

  await t.test("publish after preview of the same revision: no render, its own artifact over the same bytes", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 5 })
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: "# Reused\n\nPreviewed, then published." })
    const previewed = await preview(server, account.key, documentId, revisionId)
    t.equal(previewed.body.job.status, "succeeded")
    const before = await metrics(server)
    const usageBefore = await usageOf(server, account.accountId)
    const published = await mutate(
      server,
      "POST",
      `/api/v2/documents/${documentId}/publishes`,
      account.key,
      renderBody(revisionId, "final.pdf")
    )
    t.equal(published.status, 200)
    t.equal(published.body.job.status, "succeeded")

    const after = await metrics(server)
    t.equal(after.reuses, before.reuses + 1, "/metrics counts one reuse")
    t.equal(after.renders, before.renders, "and no render")
    t.equal((await usageOf(server, account.accountId)).used, usageBefore.used + 1, "a unit is charged as for any final")

    const [shown, final] = [previewed.body.artifact, published.body.artifact]
    t.not(final.id, shown.id, "the final has its own artifact id")
    t.equal(final.jobId, published.body.job.id, "and its own job")
    t.equal(final.filename, "final.pdf", "its own filename")
    t.equal(shown.filename, "document.pdf")
    t.equal(millisBetween(final.finalizedAt, final.retention.expiresAt), SEVEN_DAYS_MS, "its own lifetime: seven days")
    t.equal(millisBetween(shown.finalizedAt, shown.retention.expiresAt), 4_000, "the preview keeps its own")
    t.equal(final.sha256, shown.sha256)
    t.equal(final.bytes, shown.bytes)
    t.equal(final.pageCount, shown.pageCount)

    const shownPdf = await download(server, shown.downloadPath, account.key)
    const finalPdf = await download(server, final.downloadPath, account.key)
    t.equal(finalPdf.status, 200)
    t.same(finalPdf.bytes, shownPdf.bytes, "identical bytes")
    t.equal(sha256(finalPdf.bytes), final.sha256, "whose SHA-256 is the recorded one")
    t.match(finalPdf.headers.get("content-disposition"), /filename="final\.pdf"/)

    const [previewJob, finalJob] = [previewed.body.job, published.body.job]
    t.equal(finalJob.provenance.manifestSha256, previewJob.provenance.manifestSha256, "equal manifests")
    t.not(finalJob.provenance.requestSha256, previewJob.provenance.requestSha256, "its own request hash")
    t.same(finalJob.warnings, previewJob.warnings, "the warnings of the render that made the bytes")
    t.same(await keys(), [...new Set(await keys())], "no key stored twice")
    t.ok((await keys()).includes(`${shown.id}.pdf`), "the bytes stay under the preview's key")
    t.notOk((await keys()).includes(`${final.id}.pdf`), "and were not stored again")

    await t.test("the preview expires; the final keeps the shared bytes until it is deleted", async (t) => {
      await until(
        "the preview to expire",
        async () => (await getJob(server, account.key, previewJob.id)).body.artifact?.status === "expired"
      )
      t.equal((await download(server, shown.downloadPath, account.key)).status, 410, "the preview: 410")
      await new Promise((resolve) => setTimeout(resolve, 600)) // a few sweeps more
      const still = await download(server, final.downloadPath, account.key)
      t.equal(still.status, 200, "the final still downloads")
      t.same(still.bytes, shownPdf.bytes)
      t.ok((await keys()).includes(`${shown.id}.pdf`), "the store still holds the bytes")

      t.equal((await deleteDocument(server, account.key, documentId)).status, 202)
      await until("the bytes to go with the last artifact using them", async () => !(await keys()).includes(`${shown.id}.pdf`))
      t.equal((await getJob(server, account.key, finalJob.id)).body.artifact.status, "deleted")
    })
  })

  await t.test("deleting one document keeps the bytes another of the owner's documents uses", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 5 })
    const markdown = "# Twins\n\nTwo documents, one text."
    const first = await newDocument(server, account.key, { markdown })
    const second = await newDocument(server, account.key, { markdown })
    const firstFinal = (await publish(server, account.key, first.documentId, first.revisionId)).body
    const before = await metrics(server)
    const secondFinal = (await publish(server, account.key, second.documentId, second.revisionId)).body
    t.equal((await metrics(server)).reuses, before.reuses + 1, "the second document's publication is a reuse")
    const key = `${firstFinal.artifact.id}.pdf`

    t.equal((await deleteDocument(server, account.key, first.documentId)).status, 202)
    await until(
      "the first document to be deleted",
      async () => (await getJob(server, account.key, firstFinal.job.id)).body.artifact.status === "deleted"
    )
    const kept = await download(server, secondFinal.artifact.downloadPath, account.key)
    t.equal(kept.status, 200, "the second document's artifact still downloads")
    t.equal(sha256(kept.bytes), secondFinal.artifact.sha256)
    t.ok((await keys()).includes(key), "the store still holds the shared bytes")

    t.equal((await deleteDocument(server, account.key, second.documentId)).status, 202)
    await until("the bytes to go with the second document", async () => !(await keys()).includes(key))
  })

  await t.test("never across owners: another account's identical document is rendered into bytes of its own", async (t) => {
    const markdown = "# Owned\n\nThe same text, two owners."
    const one = await createAccount(server)
    const other = await createAccount(server)
    const mine = await newDocument(server, one.key, { markdown })
    const theirs = await newDocument(server, other.key, { markdown })
    const myFinal = (await publish(server, one.key, mine.documentId, mine.revisionId)).body
    const before = await metrics(server)
    const theirFinal = (await publish(server, other.key, theirs.documentId, theirs.revisionId)).body
    t.equal(theirFinal.job.status, "succeeded")
    const after = await metrics(server)
    t.equal(after.reuses, before.reuses, "no reuse")
    t.equal(after.renders, before.renders + 1, "a render")
    t.equal(theirFinal.artifact.sha256, myFinal.artifact.sha256, "the same bytes, by contract")
    t.equal(theirFinal.job.provenance.manifestSha256, myFinal.job.provenance.manifestSha256)
    const stored = await keys()
    t.ok(
      stored.includes(`${theirFinal.artifact.id}.pdf`) && stored.includes(`${myFinal.artifact.id}.pdf`),
      "each owner's bytes under its own key"
    )
  })

  await t.test("a different locale, template, options or source is rendered", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 10 })
    const markdown = "# Variants\n\nOne text, several renders."
    const base = await newDocument(server, account.key, { markdown })
    t.equal((await publish(server, account.key, base.documentId, base.revisionId)).body.job.status, "succeeded")
    const variants: ReadonlyArray<[string, { markdown?: string; spec?: SpecInput }]> = [
      ["locale", { markdown, spec: { locale: "de" } }],
      ["template", { markdown, spec: { templateId: "clean" } }],
      ["options", { markdown, spec: { options: { bodyTextColor: "#112233" } } }],
      ["source", { markdown: `${markdown}\n\nOne more line.` }]
    ]
    for (const [name, variant] of variants) {
      const before = await metrics(server)
      const document = await newDocument(server, account.key, variant)
      const published = (await publish(server, account.key, document.documentId, document.revisionId)).body
      t.equal(published.job.status, "succeeded", name)
      const after = await metrics(server)
      t.equal(after.reuses, before.reuses, `${name}: no reuse`)
      t.equal(after.renders, before.renders + 1, `${name}: rendered`)
      t.ok((await keys()).includes(`${published.artifact.id}.pdf`), `${name}: bytes of its own`)
    }
  })
})
