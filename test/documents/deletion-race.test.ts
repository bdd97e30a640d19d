/**
 * A publication or preview racing the deletion of its document (issue 30), black-box against one
 * server per database. The deletion wins or loses cleanly: a render admitted after the deletion
 * committed is refused (409 invalid_state_transition, never 500); one admitted before, or running
 * when it commits, ends cancelled with its unit released, no artifact and no job.succeeded. On
 * PostgreSQL the orders are forced: a connection of the test holds the lock the racing
 * transactions wait on, and releases it once both are queued behind it (PostgreSQL grants a row
 * lock to its waiters in the order they came). A 50-round race runs on both databases; on PGlite
 * it cannot open a window, since the one connection runs one transaction at a time and admission
 * reads the document inside its own. Last, a deleted document's words (a marker in its Markdown,
 * a formula's \label, its title) are found in no text or JSON column of any table. Every account
 * is subscribed to all job events, so that "no job.succeeded delivered" is a claim a delivery
 * could break, and each cancelled job's job.cancelled is seen arriving.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import pg from "pg"
import t from "tap"
import { createAccount, type JsonResponse, requestJson, type TestAccount, usageOf } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { sectionsMarkdown, until } from "../helpers/lifecycle.ts"
import { columnsHolding } from "../helpers/table-scan.ts"
import type { RunningServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { awaitJob, download, getJob, mutate, newDocument, preview, publish } from "../helpers/v2.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

const MARKER = "zqxmarkerwq"

const remove = (server: RunningServer, key: string, documentId: string) => mutate(server, "DELETE", `/api/v2/documents/${documentId}`, key)

const awaitDeleted = (server: RunningServer, key: string, documentId: string) =>
  until("the deletion to finish", async () => {
    const response = await requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token: key })
    return response.body.document.status === "deleted"
  })

/** A render's answer in a race: the job it admitted, or a refusal that must be 409 invalid_state_transition. */
const admittedOrRefused = (t: TestContext, response: JsonResponse, what: string): string | undefined => {
  if (response.status === 409) {
    expectError(t, response, 409, "invalid_state_transition", `${what}: refused`)
    return undefined
  }
  t.ok([200, 202].includes(response.status), `${what}: admitted (${response.status})`)
  return response.body.job?.id
}

const EVENTS_PATH = "/race-events"

await forEachDatabase(t, async (t, database) => {
  const { server, receiver, subscribe } = await startWebhookServer(t, database, {
    PRESSROOM_SYNC_THRESHOLD_MS: "0",
    PRESSROOM_SWEEP_INTERVAL_MS: "600000"
  })
  /** Documents whose every job must have ended without success (but one, forced: see the end). */
  const raced: Array<string> = []
  /** Jobs of those documents that were admitted and ended cancelled: each owes a job.cancelled delivery. */
  const cancelled: Array<string> = []
  let markerDocument = ""

  /** An account subscribed to every job event. */
  const subscribedAccount = async (monthlyUnits: number) => {
    const account = await createAccount(server, { monthlyUnits })
    await subscribe(account, EVENTS_PATH)
    return account
  }

  /** A job of a deleted document, admitted before the deletion committed: it ended cancelled and left nothing. */
  const expectCancelled = async (t: TestContext, account: TestAccount, jobId: string, what: string) => {
    const ended = (await awaitJob(server, account.key, jobId)).body.job
    t.match(ended, { status: "cancelled", artifactId: null, error: { code: "job_cancelled" } }, `${what}: the job ends cancelled`)
    cancelled.push(jobId)
  }

  await t.test("on PostgreSQL, each order forced by a held lock", { skip: database.kind !== "postgres" }, async (t) => {
    // One connection holds the lock; another watches who waits (inside a transaction, the
    // statistics views show the snapshot taken at its first read).
    const [client, observer] = [0, 1].map(() => new pg.Client({ connectionString: database.env.DATABASE_URL }))
    for (const connection of [client!, observer!]) {
      await connection.connect()
      t.teardown(() => connection.end())
    }
    const account = await subscribedAccount(100)

    /** Waits until `count` statements matching `pattern` wait on a lock. */
    const waiting = (pattern: string, count: number) =>
      until(`${count} statements like ${pattern} waiting on a lock`, async () => {
        const { rows } = await observer!.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like $1",
          [pattern]
        )
        return rows[0].n >= count
      })
    const holding = async (lock: string, id: string) => {
      await client!.query("begin")
      await client!.query(lock, [id])
    }
    const DOCUMENT_LOCK = "%from documents where id = $1 for update%"

    for (const [name, render] of [
      ["a publication", publish],
      ["a preview", preview]
    ] as const) {
      await t.test(`${name} admitted first, then the deletion: the job ends cancelled`, async (t) => {
        const { documentId, revisionId } = await newDocument(server, account.key, { markdown: `# ${name} first` })
        raced.push(documentId)
        await holding("select 1 from documents where id = $1 for update", documentId)
        const admitted = render(server, account.key, documentId, revisionId)
        await waiting(DOCUMENT_LOCK, 1)
        const deleted = remove(server, account.key, documentId)
        await waiting(DOCUMENT_LOCK, 2)
        await client!.query("commit")
        const jobId = admittedOrRefused(t, await admitted, name)
        t.equal((await deleted).status, 202)
        t.ok(jobId, "the render was admitted before the deletion")
        await expectCancelled(t, account, jobId!, name)
      })

      await t.test(`the deletion first, then ${name}: 409 invalid_state_transition`, async (t) => {
        const { documentId, revisionId } = await newDocument(server, account.key, { markdown: `# Deletion before ${name}` })
        raced.push(documentId)
        await holding("select 1 from documents where id = $1 for update", documentId)
        const deleted = remove(server, account.key, documentId)
        await waiting(DOCUMENT_LOCK, 1)
        const admitted = render(server, account.key, documentId, revisionId)
        await waiting(DOCUMENT_LOCK, 2)
        await client!.query("commit")
        t.equal((await deleted).status, 202)
        t.equal(admittedOrRefused(t, await admitted, name), undefined, "refused")
      })
    }

    const SUCCESS = "%update jobs set status = 'succeeded'%"
    const JOBS_OF_DOCUMENT = "%from jobs where document_id = $1 order by id for update%"
    /** A publication whose render takes a few seconds, running; the test then holds its job's row. */
    const running = async (title: string) => {
      const { documentId, revisionId } = await newDocument(server, account.key, { markdown: `# ${title}\n\n${sectionsMarkdown(250)}` })
      raced.push(documentId)
      const jobId = (await publish(server, account.key, documentId, revisionId)).body.job.id as string
      await until("the render to run", async () => (await getJob(server, account.key, jobId)).body.job.status === "running")
      await holding("select 1 from jobs where id = $1 for update", jobId)
      return { documentId, jobId }
    }

    await t.test(
      "a running render that finishes first, then the deletion: it succeeded before, and its artifact goes with the document",
      async (t) => {
        const usedBefore = (await usageOf(server, account.accountId)).used
        const { documentId, jobId } = await running("Finishes first")
        await waiting(SUCCESS, 1)
        const deleted = remove(server, account.key, documentId)
        await waiting(JOBS_OF_DOCUMENT, 1)
        await client!.query("commit")
        t.equal((await deleted).status, 202)
        const ended = (await awaitJob(server, account.key, jobId)).body
        t.equal(ended.job.status, "succeeded", "its success committed before the deletion")
        t.equal((await usageOf(server, account.accountId)).used, usedBefore + 1, "its unit is charged: the render was done")
        await awaitDeleted(server, account.key, documentId)
        const gone = await download(server, `/api/v2/artifacts/${ended.job.artifactId}/download`, account.key)
        t.equal(gone.status, 410, "but its artifact went with the document")
      }
    )

    await t.test("the deletion, then a running render that finishes: the success is refused and the job ends cancelled", async (t) => {
      const usedBefore = (await usageOf(server, account.accountId)).used
      const { documentId, jobId } = await running("Deleted while rendering")
      const deleted = remove(server, account.key, documentId)
      await waiting(JOBS_OF_DOCUMENT, 1)
      await waiting(SUCCESS, 1)
      await client!.query("commit")
      t.equal((await deleted).status, 202)
      await expectCancelled(t, account, jobId, "the running render")
      t.match(await usageOf(server, account.accountId), { used: usedBefore, reserved: 0 }, "no unit charged, none held")
    })
  })

  await t.test("50 rounds of a render and a deletion sent at once: no success, no unit, no artifact, no 500", async (t) => {
    const account = await subscribedAccount(100)
    const answers = new Map<number, number>()
    const admitted: Array<string> = []
    for (let round = 0; round < 50; round++) {
      // Each round's Markdown is its own, so that no render is reused from an earlier one.
      const { documentId, revisionId } = await newDocument(server, account.key, { markdown: `# Round ${round}\n\nRaced.` })
      raced.push(documentId)
      const render = round % 2 === 0 ? publish : preview
      const [rendered, deleted] = await Promise.all([
        render(server, account.key, documentId, revisionId),
        remove(server, account.key, documentId)
      ])
      for (const status of [rendered.status, deleted.status]) answers.set(status, (answers.get(status) ?? 0) + 1)
      t.equal(deleted.status, 202, `round ${round}: DELETE 202`)
      const jobId = admittedOrRefused(t, rendered, `round ${round}`)
      if (jobId) admitted.push(jobId)
    }
    t.comment(`answers: ${JSON.stringify(Object.fromEntries(answers))}`)
    t.notOk(answers.has(500), "no 500")
    for (const jobId of admitted) await expectCancelled(t, account, jobId, `job ${jobId}`)
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 0 }, "no unit charged or held")
  })

  await t.test("a deleted document's marker, label and title are nowhere", async (t) => {
    const account = await subscribedAccount(10)
    const markdown = `# The ${MARKER} plan\n\nSecret ${MARKER} words.\n\n$$\nE = m \\label{eq:${MARKER}}\n$$\n\nSee \\eqref{eq:${MARKER}x}.\n`
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown, title: `Title ${MARKER}` })
    markerDocument = documentId
    for (const render of [preview, publish]) {
      const jobId = (await render(server, account.key, documentId, revisionId)).body.job.id as string
      const ended = (await awaitJob(server, account.key, jobId)).body
      t.equal(ended.job.status, "succeeded")
      t.match(JSON.stringify(ended.warnings), MARKER, "a warning quotes the document (its unknown label)")
    }
    t.equal((await remove(server, account.key, documentId)).status, 202)
    await awaitDeleted(server, account.key, documentId)
  })

  await t.test("what the receiver got: job.cancelled for each cancelled job, job.succeeded for none but the one allowed", async (t) => {
    // The one success allowed: on PostgreSQL, the render forced to finish before its deletion.
    const allowed = database.kind === "postgres" ? 1 : 0
    // Every cancelled job's event, the allowed success's and the marker document's two successes.
    const expected = cancelled.length + allowed + 2
    const received = (await receiver.awaitAt(EVENTS_PATH, expected)).map((delivery) => delivery.json)
    const ofRaced = received.filter((event) => raced.includes(event.data.job.documentId))
    t.same(
      ofRaced
        .filter((event) => event.type === "job.cancelled")
        .map((event) => event.data.job.id)
        .sort(),
      [...cancelled].sort(),
      "job.cancelled delivered for each cancelled job, once"
    )
    t.equal(ofRaced.filter((event) => event.type === "job.succeeded").length, allowed, "no job.succeeded but the allowed one")
    t.equal(ofRaced.length, cancelled.length + allowed, "no other event of a raced document")
  })

  await t.test("what the database keeps", async (t) => {
    await server.stop()
    const found = await runWith(database, columnsHolding(MARKER))
    t.same(found, [], `no text or JSON column of any table holds ${MARKER}`)
    const left = await runWith(
      database,
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ succeeded: number; committed: number; available: number; succeeded_events: number; deliveries: number }>`
          select (select count(*)::int from jobs where document_id in ${sql.in(raced)} and status = 'succeeded') as succeeded,
                 (select count(*)::int from unit_reservations u join jobs j on j.id = u.job_id
                    where j.document_id in ${sql.in(raced)} and u.state = 'committed') as committed,
                 (select count(*)::int from artifacts a join jobs j on j.id = a.job_id
                    where j.document_id in ${sql.in(raced)} and a.status = 'available') as available,
                 (select count(*)::int from outbox_events e join jobs j on j.id = e.job_id
                    where j.document_id in ${sql.in(raced)} and e.type = 'job.succeeded') as succeeded_events,
                 (select count(*)::int from webhook_deliveries d join jobs j on j.id = d.job_id
                    where j.document_id in ${sql.in(raced)} and d.event_type = 'job.succeeded') as deliveries`
      ).pipe(Effect.orDie)
    )
    // The one success allowed: on PostgreSQL, the render forced to finish before its deletion.
    const allowed = database.kind === "postgres" ? 1 : 0
    t.same(left[0], { succeeded: allowed, committed: allowed, available: 0, succeeded_events: allowed, deliveries: allowed })
    t.ok(markerDocument, "the marker document was made")
  })
})
