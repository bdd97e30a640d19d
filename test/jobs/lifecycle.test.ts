/**
 * The job supervisor's logic in process, over the real platform on each database with a stub
 * renderer (test/helpers/stub-renderer.ts): a job renders once and charges one unit; a document
 * Typst refuses fails at once; a crashed worker is retried after the retry policy's backoff, and
 * a job whose every attempt crashes fails with its unit released; cancels end queued and running
 * jobs; a lapsed lease is re-queued after the backoff with a new fencing token, so its old holder
 * writes nothing. Real renders and real processes are tested in supervisor.test.ts and test/v1/.
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, Option, Schema } from "effect"
import t from "tap"
import type { Principal } from "../../src/accounts/principal.ts"
import { ArtifactSummary, toArtifactSummary } from "../../src/artifacts/artifact.ts"
import { ArtifactRepository } from "../../src/artifacts/repository.ts"
import { Ledger } from "../../src/entitlements/ledger.ts"
import { type Job, JobResource, toJobResource } from "../../src/jobs/job.ts"
import { JobStore } from "../../src/jobs/job-store.ts"
import { admittedProvenance, Jobs } from "../../src/jobs/jobs.ts"
import { JobLifecycle } from "../../src/jobs/lifecycle.ts"
import { rescueLapsedJobs } from "../../src/jobs/rescuer.ts"
import type { Channel } from "../../src/render/provenance.ts"
import { Outbox } from "../../src/webhooks/outbox.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase, type TestDatabase } from "../helpers/database.ts"
import { runtimeOf, stubPlatform } from "../helpers/platform.ts"
import type { TestContext } from "../helpers/tap.ts"

const config = ConfigProvider.fromMap(
  new Map([
    ["PRESSROOM_RENDER_WORKERS", "2"],
    ["PRESSROOM_JOB_LEASE_MS", "3000"]
  ])
)

// The retry policy as ARCHITECTURE.md and src/jobs/retry-policy.ts state it, written out here so
// that a change to the policy fails this test until both are changed: three attempts at most,
// 1 s before the second and 4 s before the third.
const MAX_ATTEMPTS = 3
const BACKOFF_MS = { 2: 1000, 3: 4000 } as const

const spec = (markdown: string) => ({ markdown, templateId: "clean", locale: "en", options: {}, filename: "document.pdf" })

/** A new owner with every scope, as an authenticated request's principal. */
const newOwner = Effect.map(
  Effect.orDie(insertAccountWithKey()),
  ({ accountId }): Principal => ({
    accountId,
    actor: { kind: "key", keyId: accountId },
    plan: "monthly",
    scopes: new Set(["documents.render"])
  })
)

/** The rows a job leaves: its units by state, its artifacts, its events. */
const traces = (jobId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const units = yield* sql<{ state: string }>`select state from unit_reservations where job_id = ${jobId}`
    const artifacts = yield* sql<{ id: string }>`select id from artifacts where job_id = ${jobId}`
    const events = yield* sql<{ type: string; completed_at: string; job_completed_at: Date }>`
      select e.type, e.payload->'job'->>'completedAt' as completed_at, j.completed_at as job_completed_at
      from outbox_events e join jobs j on j.id = e.job_id where e.job_id = ${jobId}`
    // An event's completedAt is the job's own, from the database's clock, as the API shows both (issue 30).
    if (events.some((event) => event.completed_at !== event.job_completed_at.toISOString())) {
      return yield* Effect.die(new Error(`job ${jobId}: its event's completedAt is not the job's`))
    }
    return { units: units.map((row) => row.state), artifacts: artifacts.length, events: events.map((row) => row.type) }
  }).pipe(Effect.orDie)

const withPlatform = async (t: TestContext, database: TestDatabase) => {
  const { layer, stub } = await stubPlatform(database, config)
  return { run: runtimeOf(t, layer), stub }
}

/** Admits a final job of `markdown` (of the document lifecycle unless `channel` says) and waits up to `waitMs` for it to end. */
const convert = (markdown: string, waitMs = 30_000, owner?: Principal, channel: Channel = "rest_v2") =>
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const principal = owner ?? (yield* newOwner)
    const job = yield* jobs.admitAndAwait(
      Effect.succeed({ principal, purpose: "final", channel, spec: spec(markdown), requestSha256: "0".repeat(64) } as const),
      `${waitMs} millis`,
      () => Effect.void
    )
    return { job, principal }
  })

t.test("jobs in process", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { run, stub } = await withPlatform(t, database)

    await t.test("a job renders once, commits its unit, stores one artifact and ends with one event", async (t) => {
      const { job } = await run(convert("# Hello"))
      t.equal(job.status, "succeeded")
      t.equal(job.attemptCount, 1)
      t.ok(job.artifactId, "it names its artifact")
      t.equal(job.provenance.rendererVersion, "stub", "the render's provenance replaced the admitted one")
      t.same(await run(traces(job.id)), { units: ["committed"], artifacts: 1, events: ["job.succeeded"] })
    })

    await t.test("one-call conversions and renders outside the service write no event (contract section 10)", async (t) => {
      for (const channel of ["rest_v1", "mcp_v1", "cli", "github_action", "internal"] as const) {
        const { job } = await run(convert(`# No event from ${channel}`, 30_000, undefined, channel))
        t.same(await run(traces(job.id)), { units: ["committed"], artifacts: 1, events: [] }, channel)
      }
      for (const channel of ["web", "mcp_v2"] as const) {
        const { job } = await run(convert(`# An event from ${channel}`, 30_000, undefined, channel))
        t.same(await run(traces(job.id)), { units: ["committed"], artifacts: 1, events: ["job.succeeded"] }, channel)
      }
    })

    await t.test("the job and its artifact as the API shows them have the fields of specification 2.8 and 2.11", async (t) => {
      const { job } = await run(convert("# Shown"))
      const artifact = Option.getOrThrow(await run(Effect.flatMap(ArtifactRepository, (artifacts) => artifacts.find(job.artifactId!))))
      const retention = { deleteRequestedAt: null, deletedAt: null, expiresAt: artifact.expiresAt, policy: "managed_default" as const }
      const shown = Schema.encodeSync(JobResource)(toJobResource(job, retention))
      t.same(Object.keys(shown).sort(), [
        "acceptedAt",
        "artifactId",
        "attemptCount",
        "completedAt",
        "documentId",
        "entitlement",
        "error",
        "id",
        "outputFormat",
        "provenance",
        "purpose",
        "queuedAt",
        "requestSha256",
        "retention",
        "revisionId",
        "startedAt",
        "status"
      ])
      t.match(shown, {
        outputFormat: "pdf",
        status: "succeeded",
        acceptedAt: /^\d{4}-\d\d-\d\dT/,
        retention: { policy: "managed_default" }
      })
      const summary = Schema.encodeSync(ArtifactSummary)(toArtifactSummary(artifact, retention))
      t.same(Object.keys(summary).sort(), [
        "bytes",
        "contentType",
        "createdAt",
        "downloadPath",
        "filename",
        "finalizedAt",
        "format",
        "id",
        "jobId",
        "pageCount",
        "retention",
        "revisionId",
        "sha256",
        "status"
      ])
      t.match(summary, {
        id: job.artifactId,
        jobId: job.id,
        status: "available",
        format: "pdf",
        contentType: "application/pdf",
        downloadPath: `/api/v2/artifacts/${job.artifactId}/download`
      })
    })

    await t.test("a document Typst refuses fails at once with rendering_failed and charges nothing", async (t) => {
      const { job } = await run(convert("reject"))
      t.equal(job.status, "failed")
      t.equal(job.attemptCount, 1, "not retried")
      t.match(job.error, { code: "rendering_failed", httpStatus: 422, category: "render", retryable: false })
      t.same(await run(traces(job.id)), { units: ["released"], artifacts: 0, events: ["job.failed"] })
    })

    await t.test("a crashed worker is retried after the policy's backoff; the unit is charged once", async (t) => {
      const started = Date.now()
      const { job } = await run(convert("crash 2"))
      const elapsed = Date.now() - started
      t.equal(job.status, "succeeded")
      t.equal(job.attemptCount, 3)
      t.equal(await run(stub.attemptsOf("crash 2")), 3)
      const backoff = BACKOFF_MS[2] + BACKOFF_MS[3]
      t.ok(elapsed >= backoff, `the attempts waited the backoff (${elapsed} ms, at least ${backoff})`)
      t.same(await run(traces(job.id)), { units: ["committed"], artifacts: 1, events: ["job.succeeded"] })
    })

    await t.test("a job whose every attempt crashes fails as internal_error with its unit released", async (t) => {
      const { job } = await run(convert("crash 99"))
      t.equal(job.status, "failed")
      t.equal(job.attemptCount, MAX_ATTEMPTS)
      t.match(job.error, { code: "internal_error", httpStatus: 500, retryable: true })
      t.same(await run(traces(job.id)), { units: ["released"], artifacts: 0, events: ["job.failed"] })
    })

    await t.test("a cancel ends a queued job at once and interrupts a running one; both release their unit", async (t) => {
      const ended = await run(
        Effect.gen(function* () {
          const jobs = yield* Jobs
          const owner = yield* newOwner
          // Both slots hold a render, so the third job waits in the queue.
          const running = yield* Effect.forEach(["hold", "hold"], (markdown) => convert(markdown, 300, owner))
          const { job: queued } = yield* convert("# Waits", 300, owner)
          const cancelledQueued = yield* jobs.cancel(owner, queued.id)
          const cancelledRunning = yield* jobs.cancel(owner, running[0]!.job.id)
          yield* jobs.cancel(owner, running[1]!.job.id)
          let held: Job = cancelledRunning
          for (let i = 0; i < 100 && held.status === "running"; i++) {
            yield* Effect.sleep("50 millis")
            held = Option.getOrThrow(yield* (yield* JobStore).find(held.id))
          }
          return { queuedBefore: queued.status, cancelledQueued, runningAtCancel: cancelledRunning.status, held }
        })
      )
      t.equal(ended.queuedBefore, "queued")
      t.equal(ended.cancelledQueued.status, "cancelled", "the queued job is cancelled at once")
      t.equal(ended.runningAtCancel, "running", "the running job is asked to stop")
      t.equal(ended.held.status, "cancelled", "and ends cancelled once its render is interrupted")
      t.match(ended.held.error, { code: "job_cancelled" })
      for (const job of [ended.cancelledQueued, ended.held]) {
        t.same(await run(traces(job.id)), { units: ["released"], artifacts: 0, events: ["job.cancelled"] })
      }
    })
  })
)

t.test("a lapsed lease", (t) =>
  forEachDatabase(t, async (t, database) => {
    // No supervisor here: the test plays the holder that vanished.
    const layer = JobLifecycle.Default.pipe(
      Layer.provideMerge(Layer.mergeAll(JobStore.Default, Ledger.Default, ArtifactRepository.Default, Outbox.Default)),
      Layer.provideMerge(database.layer)
    )
    const run = runtimeOf(t, layer)

    /** A final job whose holder's lease has lapsed on its `attempt`th attempt. */
    const lapsedJob = (attempt: number) =>
      Effect.gen(function* () {
        const store = yield* JobStore
        const sql = yield* SqlClient.SqlClient
        const principal = yield* newOwner
        const entitlement = yield* (yield* Ledger).snapshot(principal.accountId, 0)
        const job = yield* store.insert({
          id: crypto.randomUUID(),
          accountId: principal.accountId,
          documentId: null,
          revisionId: null,
          purpose: "final",
          channel: "rest_v2",
          renderSpec: spec("# Lapsed"),
          requestSha256: "0".repeat(64),
          entitlement,
          provenance: admittedProvenance(
            { principal, purpose: "final", channel: "rest_v2", spec: spec("# Lapsed"), requestSha256: "0".repeat(64) },
            "0".repeat(64)
          )
        })
        yield* Effect.orDie(sql`
          insert into unit_reservations (id, account_id, job_id, period_start, source, units, state)
          values (${crypto.randomUUID()}, ${principal.accountId}, ${job.id}, date_trunc('month', now())::date, 'allowance', 1, 'reserved')`)
        yield* Effect.orDie(sql`update jobs set attempt_count = ${attempt - 1} where id = ${job.id}`)
        const claim = Option.getOrThrow(yield* store.claim("a process that vanished", 1))
        yield* Effect.sleep("20 millis")
        return claim
      })

    await t.test("re-queues it after the backoff before its next attempt, under a new fencing token", async (t) => {
      const result = await run(
        Effect.gen(function* () {
          const store = yield* JobStore
          const sql = yield* SqlClient.SqlClient
          const claim = yield* lapsedJob(1)
          const requeued = yield* rescueLapsedJobs
          const [row] = yield* Effect.orDie(sql<{ status: string; fencing_token: number; due_in: number }>`
          select status, fencing_token, extract(epoch from next_attempt_at - now())::float8 as due_in from jobs where id = ${claim.job.id}`)
          const staleWrite = yield* store.markEnded(claim, "failed", {
            category: "internal",
            code: "internal_error",
            httpStatus: 500,
            message: "stale",
            retryable: true
          })
          return { row: row!, claim, staleWrite, requeued }
        })
      )
      t.same(
        result.requeued,
        [{ jobId: result.claim.job.id, delayMs: BACKOFF_MS[2] }],
        "reported re-queued, due after the backoff, for its process to wake a slot then"
      )
      t.equal(result.row.status, "queued")
      t.equal(result.row.fencing_token, result.claim.fencingToken + 1, "the fencing token moved on")
      const backoff = BACKOFF_MS[2] / 1000
      t.ok(result.row.due_in > backoff - 0.5 && result.row.due_in <= backoff, `due after the backoff (${result.row.due_in.toFixed(2)} s)`)
      t.ok(Option.isNone(result.staleWrite), "the vanished holder can no longer write the job")
    })

    await t.test("fails it, releasing its unit, when it was the last attempt", async (t) => {
      const result = await run(
        Effect.gen(function* () {
          const claim = yield* lapsedJob(MAX_ATTEMPTS)
          const requeued = yield* rescueLapsedJobs
          const job = Option.getOrThrow(yield* (yield* JobStore).find(claim.job.id))
          return { job, traces: yield* traces(job.id), requeued }
        })
      )
      t.same(result.requeued, [], "nothing re-queued")
      t.equal(result.job.status, "failed")
      t.match(result.job.error, { code: "internal_error" })
      t.same(result.traces, { units: ["released"], artifacts: 0, events: ["job.failed"] })
    })

    await t.test("cancels it when a cancel was waiting for it", async (t) => {
      const result = await run(
        Effect.gen(function* () {
          const store = yield* JobStore
          const claim = yield* lapsedJob(1)
          yield* store.requestCancel(claim.job.id)
          yield* rescueLapsedJobs
          return Option.getOrThrow(yield* store.find(claim.job.id))
        })
      )
      t.equal(result.status, "cancelled")
      t.match(result.error, { code: "job_cancelled" })
    })

    await t.test("a render that ends after a cancel was asked for ends the job cancelled: no unit, no artifact, no success", async (t) => {
      const success = (artifactId: string, provenance: Job["provenance"]) => ({
        artifactId,
        storageKey: `${artifactId}.pdf`,
        bytes: 10,
        pageCount: 1,
        sha256: "0".repeat(64),
        provenance,
        warnings: [],
        reuseKey: null
      })
      const results = await run(
        Effect.gen(function* () {
          const store = yield* JobStore
          const lifecycle = yield* JobLifecycle
          const ended = []
          for (const ending of ["succeed", "fail"] as const) {
            const claim = yield* lapsedJob(1)
            // A document's deletion (or its owner) asks while the render runs; the holder has not seen it.
            yield* store.requestCancel(claim.job.id)
            const outcome =
              ending === "succeed"
                ? yield* lifecycle.succeed(claim, success(crypto.randomUUID(), claim.job.provenance))
                : yield* lifecycle.end(claim, "failed", {
                    category: "render",
                    code: "rendering_failed",
                    httpStatus: 422,
                    message: "no",
                    retryable: false
                  })
            const job = Option.getOrThrow(yield* store.find(claim.job.id))
            ended.push({ ending, outcome, status: job.status, error: job.error?.code, traces: yield* traces(job.id) })
          }
          return ended
        })
      )
      t.same(results, [
        {
          ending: "succeed",
          outcome: "cancelled",
          status: "cancelled",
          error: "job_cancelled",
          traces: { units: ["released"], artifacts: 0, events: ["job.cancelled"] }
        },
        {
          ending: "fail",
          outcome: true,
          status: "cancelled",
          error: "job_cancelled",
          traces: { units: ["released"], artifacts: 0, events: ["job.cancelled"] }
        }
      ])
    })
  })
)
