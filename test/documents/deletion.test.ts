/**
 * Deleting documents (contract section 5), black-box on each database with
 * PRESSROOM_SYNC_THRESHOLD_MS=0: DELETE answers 202 accepted, a repeat already_deleting or
 * already_deleted; the document still answers GET with its status; revisions, previews and
 * publications on it are 409 invalid_state_transition; its artifacts are 410 on download, on a
 * new link and on a link minted before, and their bytes are gone; a job running at deletion ends
 * cancelled with its unit released. Once the server has stopped, the database holds neither the
 * revisions' source nor any job's copy of it.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import t from "tap"
import { createAccount, requestJson, usageOf } from "../helpers/api.ts"
import { storedPdfs } from "../helpers/artifact-bytes.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { slowDocument, until } from "../helpers/lifecycle.ts"
import { type RunningServer, startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { awaitJob, download, getJob, mutate, newDocument, preview, publish, renderBody, revisionBody } from "../helpers/v2.ts"

const remove = (server: RunningServer, key: string, documentId: string) => mutate(server, "DELETE", `/api/v2/documents/${documentId}`, key)

const documentOf = async (server: RunningServer, key: string, documentId: string) =>
  requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token: key })

const awaitDeleted = (server: RunningServer, key: string, documentId: string) =>
  until("the deletion to finish", async () => {
    const document = (await documentOf(server, key, documentId)).body.document
    return document.status === "deleted" && document
  })

/** Every way to work on the deleted document is 409 invalid_state_transition naming its state. */
const expectRefused = async (t: TestContext, server: RunningServer, key: string, documentId: string, revisionId: string) => {
  const base = `/api/v2/documents/${documentId}`
  for (const [what, path, body] of [
    ["a revision", `${base}/revisions`, revisionBody("# Too late")],
    ["a preview", `${base}/previews`, renderBody(revisionId)],
    ["a publication", `${base}/publishes`, renderBody(revisionId)]
  ] as const) {
    const refused = await mutate(server, "POST", path, key, body)
    expectError(t, refused, 409, "invalid_state_transition", what)
    t.ok(["deleting", "deleted"].includes(refused.body.error.details.currentState), `${what}: currentState`)
    t.same(refused.body.error.details.expectedStates, ["active"], `${what}: expectedStates`)
  }
}

await forEachDatabase(t, async (t, database) => {
  // A deletion that waits for a running job is finished when that job ends, not by a sweep: the
  // sweep interval is longer than the test.
  const server = await startServer(t, { ...database.env, PRESSROOM_SYNC_THRESHOLD_MS: "0", PRESSROOM_SWEEP_INTERVAL_MS: "600000" })
  const deletedDocuments: Array<string> = []

  await t.test("DELETE, its repeats, and what is left of the document", async (t) => {
    const account = await createAccount(server)
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: "# Secret plans\n\nNobody may read this." })
    deletedDocuments.push(documentId)
    const jobs = [
      (await preview(server, account.key, documentId, revisionId)).body.job.id,
      (await publish(server, account.key, documentId, revisionId)).body.job.id
    ]
    const artifacts = await Promise.all(jobs.map(async (jobId) => (await awaitJob(server, account.key, jobId)).body.artifact))
    t.ok(
      artifacts.every((artifact) => artifact?.status === "available"),
      "a preview and a final"
    )
    const link = await requestJson(server, "POST", `/api/v2/artifacts/${artifacts[1].id}/links`, { token: account.key })
    t.equal(link.status, 201)

    const deleted = await remove(server, account.key, documentId)
    t.equal(deleted.status, 202)
    t.same(Object.keys(deleted.body).sort(), ["contractVersion", "documentId", "retention", "status"], "a DeletionResponse")
    t.match(deleted.body, { contractVersion: "publishing.lifecycle.v1", documentId, status: "accepted" })
    t.not(deleted.body.retention.deleteRequestedAt, null, "deleteRequestedAt is set")

    const repeated = await remove(server, account.key, documentId)
    t.equal(repeated.status, 202)
    t.ok(["already_deleting", "already_deleted"].includes(repeated.body.status), `a repeat: ${repeated.body.status}`)
    const document = await awaitDeleted(server, account.key, documentId)
    t.not(document.retention.deletedAt, null, "deletedAt is set")
    t.equal((await remove(server, account.key, documentId)).body.status, "already_deleted", "a repeat once finished")
    const detail = await documentOf(server, account.key, documentId)
    t.equal(detail.status, 200, "GET still answers")
    t.equal(detail.body.latestRevision.id, revisionId, "with its latest revision's record")

    await expectRefused(t, server, account.key, documentId, revisionId)
    for (const artifact of artifacts) {
      t.equal((await getJob(server, account.key, artifact.jobId)).body.artifact.status, "deleted", "the JobResponse shows it deleted")
      const downloaded = await download(server, artifact.downloadPath, account.key)
      t.equal(downloaded.error?.error.code, "artifact_expired", `download: ${downloaded.status} artifact_expired`)
      t.equal(downloaded.status, 410)
      expectError(
        t,
        await requestJson(server, "POST", `/api/v2/artifacts/${artifact.id}/links`, { token: account.key }),
        410,
        "artifact_expired",
        "a new link"
      )
    }
    const linked = await download(server, link.body.href)
    t.equal(linked.status, 410, "a link minted before: 410")
    t.equal(linked.error?.error.code, "artifact_expired")
    const stored = await storedPdfs(server, database)
    t.notOk(
      artifacts.some((artifact) => stored.some((key) => key.includes(artifact.id))),
      "no bytes of its artifacts remain"
    )
  })

  await t.test("deletion while a job runs: the job ends cancelled, its unit released, no bytes kept", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 5 })
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: slowDocument })
    deletedDocuments.push(documentId)
    const storedBefore = await storedPdfs(server, database)
    const jobId = (await publish(server, account.key, documentId, revisionId)).body.job.id as string
    await until("the job to run", async () => (await getJob(server, account.key, jobId)).body.job.status === "running")
    t.match(await usageOf(server, account.accountId), { reserved: 1 })

    const deleted = await remove(server, account.key, documentId)
    t.equal(deleted.status, 202)
    t.equal(deleted.body.status, "accepted")
    const deletedAt = Date.now()
    const ended = await awaitJob(server, account.key, jobId, 15_000)
    t.comment(`the job ended ${Date.now() - deletedAt} ms after the deletion`)
    t.match(ended.body.job, { status: "cancelled", artifactId: null, error: { code: "job_cancelled" } })
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 0, remaining: 5 }, "its unit is released")
    await awaitDeleted(server, account.key, documentId)
    t.comment(`the document was deleted ${Date.now() - deletedAt} ms after the request`)
    await expectRefused(t, server, account.key, documentId, revisionId)
    t.same(await storedPdfs(server, database), storedBefore, "no artifact bytes were kept")
  })

  await t.test("the database holds no source of a deleted document", async (t) => {
    await server.stop()
    const rows = await runWith(
      database,
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ revisions: number; sources: number; copies: number; jobs: number }>`
          select (select count(*)::int from revisions where document_id in ${sql.in(deletedDocuments)}) as revisions,
                 (select count(markdown)::int from revisions where document_id in ${sql.in(deletedDocuments)}) as sources,
                 (select count(*)::int from jobs where document_id in ${sql.in(deletedDocuments)}
                    and coalesce(render_request ->> 'markdown', '') <> '') as copies,
                 (select count(*)::int from jobs where document_id in ${sql.in(deletedDocuments)}) as jobs`
      ).pipe(Effect.orDie)
    )
    t.match(rows[0], { revisions: 2, sources: 0, jobs: 3, copies: 0 }, "revisions keep no markdown, jobs no copy of it")
  })
})
