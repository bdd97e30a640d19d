/**
 * The job supervisor with several server processes on one PostgreSQL (PGlite is one process by
 * design, so these run on PostgreSQL only): 50 jobs complete exactly once; a process killed
 * mid-render loses its job to another, which finishes it as attempt 2 and charges the unit once;
 * a process paused past its lease cannot write a stale result.
 */
import t from "tap"
import pg from "pg"
import { convert, createAccount } from "../helpers/api.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { sectionsMarkdown } from "../helpers/lifecycle.ts"
import { pdfText } from "../helpers/pdf.ts"
import { type RunningServer, startServer } from "../helpers/server.ts"

if (!postgresServerUrl) {
  t.comment("PRESSROOM_TEST_DATABASE_URL is not set: the multi-process supervisor tests need PostgreSQL and were skipped")
} else {
  const database = await freshDatabase("postgres")
  t.teardown(database.drop)
  const db = new pg.Client({ connectionString: database.env.DATABASE_URL })
  await db.connect()
  t.teardown(() => db.end())
  const env = {
    ...database.env,
    // Each process has a data folder of its own: the artifact bytes are in the database they share.
    PRESSROOM_JOB_LEASE_MS: "3000",
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "1000"
  }
  const query = async <T = any>(text: string, values: Array<unknown> = []) => (await db.query(text, values)).rows as Array<T>

  /** Waits until `predicate` holds for the rows of `text`. */
  const waitFor = async <T>(
    text: string,
    values: Array<unknown>,
    predicate: (rows: Array<T>) => boolean,
    what: string,
    timeoutMs = 60_000
  ) => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const rows = await query<T>(text, values)
      if (predicate(rows)) return rows
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`timed out waiting for ${what}`)
  }

  /** A document that takes the renderer a few seconds: long enough to interrupt mid-render. */
  const heavyMarkdown = sectionsMarkdown(1800).slice(0, 199_000)

  const runningOn = async (server: RunningServer) => {
    const [job] = await waitFor<{ id: string; lease_owner: string }>(
      "select id, lease_owner from jobs where status = 'running'",
      [],
      (rows) => rows.length === 1,
      "a running job"
    )
    t.match(job!.lease_owner, new RegExp(`/${server.process.pid}/`), "the job is held by the process we meant")
    return job!.id
  }

  const assertChargedOnce = async (t: any, jobId: string) => {
    const [job] = await query("select status, attempt_count, artifact_id from jobs where id = $1", [jobId])
    t.equal(job.status, "succeeded")
    t.equal(job.attempt_count, 2, "attemptCount is 2")
    t.same(
      await query("select state from unit_reservations where job_id = $1", [jobId]),
      [{ state: "committed" }],
      "one unit, committed once"
    )
    t.same(
      (await query("select id from artifacts where job_id = $1", [jobId])).map((row) => row.id),
      [job.artifact_id],
      "one artifact, the job's"
    )
    // A one-call conversion answers in its request: no event is written for it (contract section 10).
    t.equal((await query("select 1 from outbox_events where job_id = $1", [jobId])).length, 0, "no event")
  }

  const storedPdfs = async () => (await query<{ key: string }>("select key from artifact_blobs")).map((row) => row.key)

  await t.test("50 jobs on two processes complete exactly once", async (t) => {
    const [a, b] = await Promise.all([startServer(t, env), startServer(t, env)])
    const account = await createAccount(a, { plan: "yearly" })
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => convert(i % 2 === 0 ? a : b, account.key, { markdown: `# Job ${i}\n\nExactly once.` }))
    )
    t.same(
      responses.map((response) => response.status),
      Array(50).fill(200),
      "every conversion answered 200"
    )
    responses.forEach((response, i) => {
      if (!pdfText(response.pdf!).includes(`Job ${i}`)) t.fail(`conversion ${i} returned another job's PDF`)
    })
    const [summary] = await query(`
      select count(*)::int as jobs, count(*) filter (where attempt_count = 1)::int as first_attempt,
             count(distinct artifact_id)::int as artifacts, count(distinct lease_owner)::int as processes
      from jobs where status = 'succeeded'`)
    t.same(summary, { jobs: 50, first_attempt: 50, artifacts: 50, processes: 2 }, "50 jobs, each run once, by both processes")
    t.same(await query("select state, count(*)::int as n from unit_reservations group by state"), [{ state: "committed", n: 50 }])
    t.equal((await query("select 1 from outbox_events")).length, 0, "no event: conversions answer in their requests")
    t.equal((await storedPdfs()).length, 50, "one stored PDF per artifact")
    await Promise.all([a.stop(), b.stop()])
  })

  await t.test("a process killed mid-render: another finishes the job as attempt 2, the unit is charged once", async (t) => {
    const victim = await startServer(t, env)
    const account = await createAccount(victim, { plan: "yearly" })
    const request = convert(victim, account.key, { markdown: heavyMarkdown }).catch((error: Error) => error)
    const jobId = await runningOn(victim)
    victim.process.kill("SIGKILL")
    t.type(await request, Error, "the client of the killed process lost its connection")
    const survivor = await startServer(t, env)
    // The survivor's rescuer puts the job back in the queue, due after the backoff (1 s). Nothing
    // announces a job due later, so unless the rescuing process wakes a slot then, the job waits
    // for its slots' idle recheck, 30 s on. Its second claim leaves `next_attempt_at` as the
    // rescue set it: seen at the first look that finds attempt 2, however late that look comes.
    const [taken] = await waitFor<{ due: number; now: number }>(
      `select extract(epoch from next_attempt_at)::float8 * 1000 as due, extract(epoch from clock_timestamp())::float8 * 1000 as now
       from jobs where id = $1 and attempt_count = 2`,
      [jobId],
      (rows) => rows.length === 1,
      "the job taken up again"
    )
    const late = taken!.now - taken!.due
    t.ok(late < 10_000, `taken up again at most ${Math.round(late)} ms after its backoff ended, not at an idle recheck`)
    await waitFor(
      "select 1 from jobs where id = $1 and status = 'succeeded'",
      [jobId],
      (rows) => rows.length === 1,
      "the rescued job to succeed"
    )
    await assertChargedOnce(t, jobId)
    t.match(
      (await query("select lease_owner from jobs where id = $1", [jobId]))[0].lease_owner,
      new RegExp(`/${survivor.process.pid}/`),
      "the survivor finished it"
    )
    await survivor.stop()
  })

  await t.test("a process paused past its lease cannot commit a stale result", async (t) => {
    const sleeper = await startServer(t, env)
    const account = await createAccount(sleeper, { plan: "yearly" })
    const request = convert(sleeper, account.key, { markdown: heavyMarkdown })
    const jobId = await runningOn(sleeper)
    sleeper.process.kill("SIGSTOP")
    t.teardown(() => sleeper.process.kill("SIGCONT"))
    const other = await startServer(t, env)
    await waitFor(
      "select 1 from jobs where id = $1 and status = 'succeeded'",
      [jobId],
      (rows) => rows.length === 1,
      "the other process to finish the job"
    )
    const [finished] = await query("select artifact_id, fencing_token from jobs where id = $1", [jobId])
    sleeper.process.kill("SIGCONT")
    // The sleeper wakes with its render and its stale claim; its client then gets the job's PDF.
    const response = await request
    t.equal(response.status, 200, "the sleeper's client still gets the PDF")
    t.match(pdfText(response.pdf!), /Section 0/)
    t.same(
      await query("select artifact_id, fencing_token from jobs where id = $1", [jobId]),
      [finished],
      "the job is as the other process left it"
    )
    await assertChargedOnce(t, jobId)
    await Promise.all([sleeper.stop(), other.stop()])
    t.equal(
      (await storedPdfs()).length,
      Number((await query("select count(*)::int as n from artifacts"))[0].n),
      "no orphan PDF: the stale bytes were removed"
    )
  })
}
