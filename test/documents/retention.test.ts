/**
 * Retention with lifetimes of seconds (contract sections 1 and 6, specification 2.3 and 4), black-
 * box on each database: previews live PRESSROOM_PREVIEW_TTL_SECONDS and finals
 * PRESSROOM_FINAL_TTL_SECONDS after finalisation; then their download and a new link answer 410
 * artifact_expired, a link minted before has expired with its artifact (403), the JobResponse
 * shows them expired and their bytes are gone once no artifact uses them (a publication of the
 * revision just previewed shares the preview's). A link does not extend its artifact; activity (a
 * revision, a preview) moves the document's window forward; a document whose window lapsed is
 * deleted as DELETE would.
 */
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { storedPdfs } from "../helpers/artifact-bytes.ts"
import { forEachDatabase, type TestDatabase } from "../helpers/database.ts"
import { millisBetween } from "../helpers/job-response.ts"
import { until } from "../helpers/lifecycle.ts"
import type { RunningServer } from "../helpers/server.ts"
import { startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { download, getJob, mutate, newDocument, preview, publish, revisionBody } from "../helpers/v2.ts"

const WINDOW_MS = 4_000

const mintLink = (server: RunningServer, key: string, artifactId: string) =>
  requestJson(server, "POST", `/api/v2/artifacts/${artifactId}/links`, { token: key })

const documentOf = async (server: RunningServer, key: string, documentId: string) =>
  (await requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token: key })).body.document

/** Whether the store holds the bytes first stored for the artifact `artifactId` (a reuse shares them). */
const hasBytes = async (server: RunningServer, database: TestDatabase, artifactId: string) =>
  (await storedPdfs(server, database)).some((stored) => stored.includes(artifactId))

/** A link minted while the artifact was available, and what the artifact looked like then. */
interface Issued {
  readonly jobId: string
  readonly artifact: any
  readonly href: string
}

const issue = async (t: TestContext, server: RunningServer, key: string, job: any): Promise<Issued> => {
  const link = await mintLink(server, key, job.body.artifact.id)
  t.equal(link.status, 201, "a link is minted while the artifact is available")
  t.same(link.body.retention, job.body.artifact.retention, "the link's retention is the artifact's")
  t.ok(Date.parse(link.body.expiresAt) <= Date.parse(job.body.artifact.retention.expiresAt), "the link does not outlive the artifact")
  t.equal((await download(server, link.body.href)).status, 200, "the link downloads without a key")
  return { jobId: job.body.job.id, artifact: job.body.artifact, href: link.body.href }
}

/**
 * Waits for the artifact to be marked expired, then checks every way to it is closed, and whether
 * the bytes stored for `bytesOf` (an artifact id) are gone or, still used by another, kept.
 */
const expectExpired = async (
  t: TestContext,
  server: RunningServer,
  database: TestDatabase,
  key: string,
  issued: Issued,
  bytes: { of: string; kept: boolean }
) => {
  const shown = await until("the artifact to expire", async () => {
    const job = await getJob(server, key, issued.jobId)
    return job.body.artifact?.status === "expired" && job.body
  })
  t.ok(Date.now() >= Date.parse(issued.artifact.retention.expiresAt), "not before its expiresAt")
  t.equal(shown.job.status, "succeeded", "the job stays succeeded")
  t.same(shown.artifact.retention, issued.artifact.retention, "its retention is unchanged: minting a link did not extend it")
  const downloaded = await download(server, issued.artifact.downloadPath, key)
  t.equal(downloaded.status, 410)
  t.equal(downloaded.error?.error.code, "artifact_expired", "download: 410 artifact_expired")
  expectError(t, await mintLink(server, key, issued.artifact.id), 410, "artifact_expired", "a new link")
  // A link never outlives its artifact: the one minted before has expired with it (403, no bytes).
  const linked = await download(server, issued.href)
  t.equal(linked.status, 403, "the link minted before has expired with it")
  t.equal(linked.error?.error.code, "forbidden")
  if (bytes.kept) t.ok(await hasBytes(server, database, bytes.of), "its bytes stay in the store for the artifact that shares them")
  else t.notOk(await hasBytes(server, database, bytes.of), "its bytes are gone from the store")
}

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, {
    ...database.env,
    PRESSROOM_PREVIEW_TTL_SECONDS: "2",
    PRESSROOM_FINAL_TTL_SECONDS: "3",
    PRESSROOM_DOCUMENT_WINDOW_SECONDS: String(WINDOW_MS / 1000),
    PRESSROOM_SWEEP_INTERVAL_MS: "200"
  })

  await t.test("artifacts expire; activity moves the window; a lapsed document is deleted", async (t) => {
    const account = await createAccount(server)
    const { documentId, revisionId } = await newDocument(server, account.key)
    const previewed = await preview(server, account.key, documentId, revisionId)
    // Within the preview's 2 s, before anything else: on a loaded machine a publication first could outlast them.
    const previewLink = await issue(t, server, account.key, previewed)
    const published = await publish(server, account.key, documentId, revisionId)
    t.equal(millisBetween(previewed.body.artifact.finalizedAt, previewed.body.artifact.retention.expiresAt), 2_000, "preview: 2 s")
    t.equal(millisBetween(published.body.artifact.finalizedAt, published.body.artifact.retention.expiresAt), 3_000, "final: 3 s")
    t.ok(await hasBytes(server, database, previewed.body.artifact.id), "the store holds the preview's bytes")
    const finalLink = await issue(t, server, account.key, published)
    const before = await documentOf(server, account.key, documentId)
    t.equal(millisBetween(before.lastActivityAt, before.retention.expiresAt), WINDOW_MS, "the window runs from the last activity")

    // The publication of the revision just previewed reused the preview's bytes (same manifest).
    t.equal(published.body.artifact.sha256, previewed.body.artifact.sha256)
    const shared = { of: previewed.body.artifact.id }
    await t.test("the preview expires first", (t) =>
      expectExpired(t, server, database, account.key, previewLink, { ...shared, kept: true })
    )
    t.equal((await download(server, finalLink.artifact.downloadPath, account.key)).status, 200, "the final is still available")

    const revised = await mutate(server, "POST", `/api/v2/documents/${documentId}/revisions`, account.key, revisionBody("# Second"))
    t.equal(revised.status, 201)
    const afterRevision = await documentOf(server, account.key, documentId)
    t.ok(afterRevision.lastActivityAt > before.lastActivityAt, "a revision moves lastActivityAt")
    t.ok(afterRevision.retention.expiresAt > before.retention.expiresAt, "and retention.expiresAt")
    t.equal(millisBetween(afterRevision.lastActivityAt, afterRevision.retention.expiresAt), WINDOW_MS)
    const secondPreview = await preview(server, account.key, documentId, revised.body.revision.id)
    t.equal(secondPreview.status, 200)
    const afterPreview = await documentOf(server, account.key, documentId)
    t.ok(afterPreview.lastActivityAt > afterRevision.lastActivityAt, "a preview moves lastActivityAt")
    t.ok(afterPreview.retention.expiresAt > afterRevision.retention.expiresAt, "and retention.expiresAt")

    await t.test("then the final, and with it the shared bytes", (t) =>
      expectExpired(t, server, database, account.key, finalLink, { ...shared, kept: false })
    )
    t.equal((await documentOf(server, account.key, documentId)).status, "active", "the document is still active within its window")

    const deleted = await until("the lapsed document to be deleted", async () => {
      const document = await documentOf(server, account.key, documentId)
      return document.status === "deleted" && document
    })
    t.ok(Date.now() >= Date.parse(afterPreview.retention.expiresAt), "not before its window lapsed")
    t.ok(deleted.retention.deleteRequestedAt && deleted.retention.deletedAt, "deleteRequestedAt and deletedAt are set")
    const listed = await requestJson(server, "GET", "/api/v2/documents", { token: account.key })
    t.notOk(
      listed.body.documents.some((document: any) => document.id === documentId),
      "the list leaves it out"
    )
    const refused = await mutate(server, "POST", `/api/v2/documents/${documentId}/revisions`, account.key, revisionBody("# Third"))
    expectError(t, refused, 409, "invalid_state_transition", "a revision of the deleted document")
    t.equal(refused.body.error.details.currentState, "deleted")
    expectError(t, await preview(server, account.key, documentId, revisionId), 409, "invalid_state_transition", "a preview of it")
    const secondArtifact = (await getJob(server, account.key, secondPreview.body.job.id)).body.artifact
    t.equal(secondArtifact.status, "deleted", "its artifacts show deleted")
    expectError(t, await mintLink(server, account.key, secondArtifact.id), 410, "artifact_expired", "a link to its artifact")
    t.equal((await download(server, secondArtifact.downloadPath, account.key)).status, 410, "its artifact: 410")
  })
})
