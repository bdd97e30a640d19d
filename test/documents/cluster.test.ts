/**
 * The v2 lifecycle on a cluster: two `pressroom serve` processes on one PostgreSQL, each with its
 * own data folder and the same PRESSROOM_SERVER_KEY, as an operator runs them on two machines.
 * A publication admitted on one and rendered on the other downloads from both; a link and a
 * cursor made by one work on the other; when the process rendering a publication is killed with
 * SIGKILL, the other finishes it as attempt 2, its unit is committed once and the PDF downloads.
 * PGlite is one process by design, so this runs on PostgreSQL only.
 */
import { execFileSync } from "node:child_process"
import pg from "pg"
import t from "tap"
import { createAccount, requestJson, usageOf } from "../helpers/api.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { sectionsMarkdown, slowDocument, until } from "../helpers/lifecycle.ts"
import { pdfText } from "../helpers/pdf.ts"
import { type RunningServer, startServer } from "../helpers/server.ts"
import { awaitJob, download, mutate, newDocument, publish } from "../helpers/v2.ts"

if (!postgresServerUrl) {
  t.comment("PRESSROOM_TEST_DATABASE_URL is not set: the cluster tests need PostgreSQL and were skipped")
} else {
  const database = await freshDatabase("postgres")
  t.teardown(database.drop)
  const db = new pg.Client({ connectionString: database.env.DATABASE_URL })
  await db.connect()
  t.teardown(() => db.end())
  const query = async (text: string, values: Array<unknown> = []) => (await db.query(text, values)).rows

  // Threshold 0: every admission answers 202 at once, so a job's admitter and renderer can differ.
  // A short lease: a killed holder's job is rescued within seconds.
  const env = { ...database.env, PRESSROOM_SYNC_THRESHOLD_MS: "0", PRESSROOM_JOB_LEASE_MS: "2000", PRESSROOM_RENDER_TIMEOUT_MS: "120000" }

  /** Which process holds (or last held) the job: the pid in its lease owner. */
  const holderPid = async (jobId: string) => {
    const [row] = await query("select lease_owner from jobs where id = $1", [jobId])
    return Number(/\/(\d+)\//.exec(row?.lease_owner ?? "")?.[1])
  }
  const runningOn = (server: RunningServer, jobId: string) =>
    until(`job ${jobId} running on process ${server.process.pid}`, async () => {
      const [row] = await query("select status from jobs where id = $1", [jobId])
      return row?.status === "running" && (await holderPid(jobId)) === server.process.pid
    })

  // A holds its one render worker with a slow document, admitted before B exists: so A's next
  // admissions can only be rendered by B. No document holds a worker for long any more (issue
  // 37), so A compiles natively, in a child process, which is stopped where it is once the
  // render runs: the job stays running on A until it is cancelled, which ends that process.
  const a = await startServer(t, { ...env, PRESSROOM_RENDER_ENGINE: "native" })
  const owner = await createAccount(a, { plan: "yearly" })
  const busy = await newDocument(a, owner.key, { markdown: slowDocument })
  const busyJob = (
    await mutate(a, "POST", `/api/v2/documents/${busy.documentId}/previews`, owner.key, {
      revisionId: busy.revisionId,
      output: { filename: "busy.pdf", format: "pdf" }
    })
  ).body.job.id as string
  await runningOn(a, busyJob)
  const compilers = execFileSync("pgrep", ["-P", String(a.process.pid)], { encoding: "utf8" })
    .trim()
    .split("\n")
  if (compilers.length !== 1) throw new Error(`A should have one compiler process, not ${compilers.length}`)
  for (const pid of compilers) process.kill(Number(pid), "SIGSTOP")
  const b = await startServer(t, env)

  await t.test("a publication admitted on A and rendered on B downloads from both", async (t) => {
    const { documentId, revisionId } = await newDocument(a, owner.key, { markdown: "# Rendered elsewhere\n\nAdmitted on A." })
    const admitted = await publish(a, owner.key, documentId, revisionId)
    t.equal(admitted.status, 202)
    const ended = await awaitJob(a, owner.key, admitted.body.job.id)
    t.equal(ended.body.job.status, "succeeded")
    t.equal(await holderPid(admitted.body.job.id), b.process.pid, "B rendered it")
    const artifact = ended.body.artifact
    for (const [name, server] of [
      ["A", a],
      ["B", b]
    ] as const) {
      const got = await download(server, artifact.downloadPath, owner.key)
      t.equal(got.status, 200, `downloads from ${name}`)
      t.equal(got.headers.get("etag"), `"${artifact.sha256}"`)
      t.match(pdfText(got.bytes), /Rendered elsewhere Admitted on A\./, `the PDF from ${name} reads back`)
    }

    const link = await mutate(a, "POST", `/api/v2/artifacts/${artifact.id}/links`, owner.key)
    t.equal(link.status, 201)
    const onB = `${b.url}${new URL(link.body.href).pathname}`
    const got = await download(b, onB)
    t.equal(got.status, 200, "a link minted on A downloads from B without a key")
    t.equal(got.bytes.length, artifact.bytes)
    const head = await download(b, onB, undefined, "HEAD")
    t.equal(head.status, 200, "and answers HEAD there")
    t.equal(head.headers.get("content-length"), String(artifact.bytes))
  })

  await t.test("a cursor from A pages on B", async (t) => {
    const first = await requestJson(a, "GET", "/api/v2/documents?limit=1", { token: owner.key })
    t.equal(first.body.documents.length, 1)
    const cursor = first.body.pagination.nextCursor as string
    t.ok(cursor, "A gives a cursor")
    const next = await requestJson(b, "GET", `/api/v2/documents?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: owner.key })
    t.equal(next.status, 200)
    t.equal(next.body.documents.length, 1)
    t.not(next.body.documents[0].id, first.body.documents[0].id, "B answers the next page")
  })

  await t.test("SIGKILL of the process rendering a publication: the other finishes it as attempt 2, one unit", async (t) => {
    const before = await usageOf(a, owner.accountId)
    const { documentId, revisionId } = await newDocument(a, owner.key, { markdown: sectionsMarkdown(500) })
    const admitted = await publish(a, owner.key, documentId, revisionId)
    t.equal(admitted.status, 202)
    const jobId = admitted.body.job.id as string
    await runningOn(b, jobId)
    b.process.kill("SIGKILL")
    // Free A's worker: it rescues the publication once B's lease lapses.
    const cancelled = await mutate(a, "POST", `/api/v2/jobs/${busyJob}/cancel`, owner.key)
    t.ok([200, 202].includes(cancelled.status), "A's long preview is cancelled")

    const ended = await awaitJob(a, owner.key, jobId, 120_000)
    t.equal(ended.body.job.status, "succeeded")
    t.equal(await holderPid(jobId), a.process.pid, "A finished it")
    const [job] = await query("select attempt_count from jobs where id = $1", [jobId])
    t.equal(job.attempt_count, 2, "attempt 2")
    t.same(
      await query("select state from unit_reservations where job_id = $1", [jobId]),
      [{ state: "committed" }],
      "one unit, committed once"
    )
    t.match(await usageOf(a, owner.accountId), { used: before.used + 1, reserved: 0 }, "usage: one more used, none reserved")
    t.same(
      (await query("select id from artifacts where job_id = $1", [jobId])).map((row) => row.id),
      [ended.body.artifact.id],
      "one artifact, the job's"
    )
    const got = await download(a, ended.body.artifact.downloadPath, owner.key)
    t.equal(got.status, 200)
    t.equal(got.bytes.length, ended.body.artifact.bytes)
    t.match(pdfText(got.bytes), /SECTION 0 Paragraph 0 with emphasis/, "the PDF reads back")
  })
}
