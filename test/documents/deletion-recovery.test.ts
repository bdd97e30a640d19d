/**
 * A deletion that a crash cut in half (contract section 5, retention): the process that accepted
 * the DELETE committed its first step (the document and its artifacts marked deleting) and died
 * before the second. The next process's sweeper finishes it exactly as DELETE would have: the
 * document is deleted, its artifacts answer 410 and their bytes are gone, and no revision keeps
 * its source. Black-box on each database; the crash is the first step's committed state, written
 * while no server runs.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { storedPdfs } from "../helpers/artifact-bytes.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { awaitJob, download, newDocument, publish } from "../helpers/v2.ts"

await forEachDatabase(t, async (t, database) => {
  const before = await startServer(t, database.env)
  const owner = await createAccount(before)
  const { documentId, revisionId } = await newDocument(before, owner.key)
  const admitted = await publish(before, owner.key, documentId, revisionId)
  // A first render on a loaded machine may outlast the synchronous threshold (202): its job is awaited then.
  const published = admitted.status === 202 ? await awaitJob(before, owner.key, admitted.body.job.id) : admitted
  t.equal(published.status, 200)
  const artifact = published.body.artifact
  t.equal((await storedPdfs(before, database)).length, 1, "one PDF stored")
  await before.stop()

  // What the DELETE's first transaction commits when the document has no unfinished job.
  await runWith(
    database,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        sql`update documents set status = 'deleting', delete_requested_at = now(), updated_at = now() where id = ${documentId}`,
        sql`update artifacts set status = 'deleting', delete_requested_at = now()
            where job_id in (select id from jobs where document_id = ${documentId})`
      )
    ).pipe(Effect.orDie)
  )

  const after = await startServer(t, { ...database.env, PRESSROOM_SWEEP_INTERVAL_MS: "200" })
  const deleted = await until("the sweeper to finish the deletion", async () => {
    const document = (await requestJson(after, "GET", `/api/v2/documents/${documentId}`, { token: owner.key })).body.document
    return document.status === "deleted" && document
  })
  t.ok(deleted.retention.deletedAt, "the document is deleted, with its deletedAt")
  const answer = await download(after, artifact.downloadPath, owner.key)
  expectError(t, { status: answer.status, headers: answer.headers, body: answer.error }, 410, "artifact_expired", "its artifact")
  t.same(await storedPdfs(after, database), [], "no PDF bytes left")
  await after.stop()
  const sources = await runWith(
    database,
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ n: number }>`select count(markdown)::int as n from revisions where document_id = ${documentId}`
    ).pipe(Effect.orDie)
  )
  t.equal(sources[0]!.n, 0, "no revision keeps its source")
})
