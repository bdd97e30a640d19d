/**
 * The jobs table. Every write that follows a claim is fenced: it names the fencing token of the
 * claim and the `running` state, so a process whose lease lapsed (and whose job another process
 * has claimed since, with a new token) changes nothing.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { PublishingError } from "../http/api-error.ts"
import type { Provenance } from "../render/provenance.ts"
import type { RenderWarning } from "../render/warnings.ts"
import { fromRow, type EntitlementSnapshotValue, type Job, type JobRow, type Purpose, type RenderSpec } from "./job.ts"

export interface NewJob {
  readonly id: string
  readonly accountId: string
  readonly documentId: string | null
  readonly revisionId: string | null
  readonly purpose: Purpose
  readonly channel: string
  readonly renderSpec: RenderSpec
  readonly requestSha256: string
  readonly entitlement: EntitlementSnapshotValue
  readonly provenance: Provenance
}

/** A claim: the job and the token its later writes must carry. */
export interface Claim {
  readonly job: Job
  readonly fencingToken: number
}

const json = (value: unknown) => JSON.stringify(value)

export class JobStore extends Effect.Service<JobStore>()("pressroom/JobStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<JobRow>) => Option.map(Option.fromNullable(rows[0]), fromRow)

    return {
      insert: (job: NewJob) =>
        sql<JobRow>`
          insert into jobs (id, account_id, document_id, revision_id, purpose, channel, status, render_request,
                            request_sha256, entitlement, provenance, accepted_at, queued_at)
          values (${job.id}, ${job.accountId}, ${job.documentId}, ${job.revisionId}, ${job.purpose}, ${job.channel},
                  'queued', ${json(job.renderSpec)}::jsonb, ${job.requestSha256}, ${json(job.entitlement)}::jsonb,
                  ${json(job.provenance)}::jsonb, now(), now())
          returning *`.pipe(Effect.map((rows) => fromRow(rows[0]!)), Effect.orDie),

      find: (jobId: string) => sql<JobRow>`select * from jobs where id = ${jobId}`.pipe(Effect.map(one), Effect.orDie),

      /** The job, locked for the rest of the caller's transaction. */
      lock: (jobId: string) => sql<JobRow>`select * from jobs where id = ${jobId} for update`.pipe(Effect.map(one), Effect.orDie),

      /** Claims the oldest due queued job, if any, under a new lease and fencing token. */
      claim: (owner: string, leaseMs: number) =>
        sql<JobRow>`
          update jobs
          set status = 'running', attempt_count = attempt_count + 1, fencing_token = fencing_token + 1,
              lease_owner = ${owner}, lease_expires_at = now() + ${leaseMs} * interval '1 millisecond',
              started_at = coalesce(started_at, now())
          where id = (
            select id from jobs where status = 'queued' and next_attempt_at <= now()
            order by next_attempt_at, accepted_at
            limit 1
            for update skip locked
          )
          returning *`.pipe(
          Effect.map((rows) => Option.map(one(rows), (job): Claim => ({ job, fencingToken: job.fencingToken }))),
          Effect.orDie
        ),

      /** Extends a lease; none when the claim is no longer ours. Also says whether a cancel was asked for. */
      heartbeat: (jobId: string, fencingToken: number, leaseMs: number) =>
        sql<{ cancel_requested: boolean }>`
          update jobs set lease_expires_at = now() + ${leaseMs} * interval '1 millisecond'
          where id = ${jobId} and fencing_token = ${fencingToken} and status = 'running'
          returning cancel_requested_at is not null as cancel_requested`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => ({ cancelRequested: row.cancel_requested }))),
          Effect.orDie
        ),

      markSucceeded: (claim: Claim, result: { artifactId: string; provenance: Provenance; warnings: ReadonlyArray<RenderWarning> }) =>
        sql`
          update jobs set status = 'succeeded', artifact_id = ${result.artifactId}, provenance = ${json(result.provenance)}::jsonb,
                          warnings = ${json(result.warnings)}::jsonb, error = null, completed_at = now(),
                          lease_expires_at = null
          where id = ${claim.job.id} and fencing_token = ${claim.fencingToken} and status = 'running'
          returning id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      /** Ends a claimed job as failed or cancelled (fenced). */
      markEnded: (claim: Claim, status: "failed" | "cancelled", error: PublishingError) =>
        sql`
          update jobs set status = ${status}, error = ${json(error)}::jsonb, completed_at = now(),
                          lease_expires_at = null
          where id = ${claim.job.id} and fencing_token = ${claim.fencingToken} and status = 'running'
          returning id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      /** Ends a job nobody holds (queued, or running under a lapsed lease), inside the caller's transaction after `lock`. */
      markEndedUnclaimed: (jobId: string, status: "failed" | "cancelled", error: PublishingError) =>
        sql`
          update jobs set status = ${status}, error = ${json(error)}::jsonb, completed_at = now(),
                          lease_owner = null, lease_expires_at = null
          where id = ${jobId}`.pipe(Effect.asVoid, Effect.orDie),

      /** Puts a claimed job back in the queue (fenced), due after `delayMs`. */
      requeue: (claim: Claim, delayMs: number) =>
        sql`
          update jobs set status = 'queued', lease_owner = null, lease_expires_at = null,
                          next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
          where id = ${claim.job.id} and fencing_token = ${claim.fencingToken} and status = 'running'
          returning id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      requestCancel: (jobId: string) =>
        sql`update jobs set cancel_requested_at = coalesce(cancel_requested_at, now()) where id = ${jobId}`.pipe(Effect.asVoid, Effect.orDie),

      /** Running jobs whose lease lapsed, locked for the rescuer's transaction (skipping any another rescuer holds). */
      lapsed: sql<JobRow>`
        select * from jobs where status = 'running' and lease_expires_at < now()
        order by lease_expires_at limit 50 for update skip locked`.pipe(Effect.map((rows) => rows.map(fromRow)), Effect.orDie),

      /** Re-queues a job whose lease lapsed: the fencing token moves on, so the lost holder can no longer write it. */
      requeueLapsed: (jobId: string) =>
        sql`
          update jobs set status = 'queued', lease_owner = null, lease_expires_at = null, next_attempt_at = now(),
                          fencing_token = fencing_token + 1
          where id = ${jobId}`.pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
