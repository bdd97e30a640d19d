/**
 * The jobs table. Every write that follows a claim is fenced: it names the fencing token of the
 * claim and the `running` state, so a process whose lease lapsed (and whose job another process
 * has claimed since, with a new token) changes nothing. Rows are decoded by `JobRow`; a row that
 * does not decode is a defect, as is a failing statement (no caller can act on either).
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { EntitlementSnapshot } from "../entitlements/entitlement.ts"
import type { Channel, Provenance } from "../render/provenance.ts"
import type { RenderWarning } from "../render/common/warnings.ts"
import type { PublishingError } from "../shared/errors.ts"
import { column } from "../shared/rows.ts"
import { claimFairly } from "./fair-claim.ts"
import { type Job, JobRow, JobStatus, type Purpose, type RenderSpec } from "./job.ts"

export interface NewJob {
  readonly id: string
  readonly accountId: string
  /** The member who made the job from the dashboard; null for an API key's. */
  readonly memberId?: string | null
  readonly documentId: string | null
  readonly revisionId: string | null
  readonly purpose: Purpose
  readonly channel: Channel
  readonly renderSpec: RenderSpec
  readonly requestSha256: string
  readonly entitlement: EntitlementSnapshot
  readonly provenance: Provenance
}

/** A claim: the job and the token its later writes must carry. */
export interface Claim {
  readonly job: Job
  readonly fencingToken: number
}

const json = (value: unknown) => JSON.stringify(value)

/** Whether a fenced write found the claim still ours. */
const applied = (rows: ReadonlyArray<unknown>) => rows.length === 1

/** The row a fenced ending wrote (its `completed_at` is the database's, which its event repeats), none when refused. */
const endedRow = (rows: ReadonlyArray<unknown>) =>
  Effect.transposeOption(Option.map(Option.fromNullable(rows[0]), Schema.decodeUnknown(JobRow)))

export class JobStore extends Effect.Service<JobStore>()("pressroom/JobStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const byId = (lock: boolean) =>
      SqlSchema.findOne({
        Request: Schema.UUID,
        Result: JobRow,
        execute: (jobId) => (lock ? sql`select * from jobs where id = ${jobId} for update` : sql`select * from jobs where id = ${jobId}`)
      })

    const insert = (job: NewJob) =>
      sql`
        insert into jobs (id, account_id, member_id, document_id, revision_id, purpose, channel, status, render_request,
                          request_sha256, entitlement, provenance, accepted_at, queued_at)
        values (${job.id}, ${job.accountId}, ${job.memberId ?? null}, ${job.documentId}, ${job.revisionId}, ${job.purpose}, ${job.channel},
                'queued', ${json(job.renderSpec)}::jsonb, ${job.requestSha256}, ${json(job.entitlement)}::jsonb,
                ${json(job.provenance)}::jsonb, now(), now())
        returning *`.pipe(
        Effect.flatMap(([row]) => Schema.decodeUnknown(JobRow)(row)),
        Effect.orDie
      )

    const claimNext = SqlSchema.findOne({
      Request: Schema.Struct({ owner: Schema.String, leaseMs: Schema.Int }),
      Result: JobRow,
      execute: ({ leaseMs, owner }) => claimFairly(sql, owner, leaseMs)
    })

    const ofDocumentLocked = SqlSchema.findAll({
      Request: Schema.UUID,
      Result: JobRow,
      // In one order, so that two transactions locking the same jobs cannot deadlock.
      execute: (documentId) => sql`select * from jobs where document_id = ${documentId} order by id for update`
    })

    const lapsed = SqlSchema.findAll({
      Request: Schema.Void,
      Result: JobRow,
      execute: () =>
        sql`
          select * from jobs where status = 'running' and lease_expires_at < now()
          order by lease_expires_at limit 50 for update skip locked`
    })

    const heartbeatOf = SqlSchema.findOne({
      Request: Schema.Struct({ jobId: Schema.String, fencingToken: Schema.Int, leaseMs: Schema.Number }),
      Result: Schema.Struct({ cancelRequested: column(Schema.Boolean, "cancel_requested") }),
      execute: ({ fencingToken, jobId, leaseMs }) =>
        sql`
          update jobs set lease_expires_at = now() + ${leaseMs} * interval '1 millisecond'
          where id = ${jobId} and fencing_token = ${fencingToken} and status = 'running'
          returning cancel_requested_at is not null as cancel_requested`
    })

    const statesOfDocument = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, status: JobStatus }),
      execute: (documentId) => sql`select id, status from jobs where document_id = ${documentId}`
    })

    return {
      insert: (job: NewJob): Effect.Effect<Job> => insert(job),

      find: (jobId: string): Effect.Effect<Option.Option<Job>> => Effect.orDie(byId(false)(jobId)),

      /** The job, locked for the rest of the caller's transaction. */
      lock: (jobId: string): Effect.Effect<Option.Option<Job>> => Effect.orDie(byId(true)(jobId)),

      /** Claims a due queued job, if any, fairly across owners (`fair-claim.ts`), under a new lease and fencing token. */
      claim: (owner: string, leaseMs: number): Effect.Effect<Option.Option<Claim>> =>
        claimNext({ owner, leaseMs }).pipe(Effect.map(Option.map((job) => ({ job, fencingToken: job.fencingToken }))), Effect.orDie),

      /** Extends a lease; none when the claim is no longer ours. Also says whether a cancel was asked for. */
      heartbeat: (jobId: string, fencingToken: number, leaseMs: number) => Effect.orDie(heartbeatOf({ jobId, fencingToken, leaseMs })),

      /**
       * Fenced, and refused too once a cancel was asked for (a user's, or its document's deletion):
       * a render that finishes after that must not succeed.
       */
      markSucceeded: (claim: Claim, result: { artifactId: string; provenance: Provenance; warnings: ReadonlyArray<RenderWarning> }) =>
        sql`
          update jobs set status = 'succeeded', artifact_id = ${result.artifactId}, provenance = ${json(result.provenance)}::jsonb,
                          warnings = ${json(result.warnings)}::jsonb, error = null, completed_at = now(),
                          lease_expires_at = null
          where id = ${claim.job.id} and fencing_token = ${claim.fencingToken} and status = 'running'
            and cancel_requested_at is null
          returning *`.pipe(Effect.flatMap(endedRow), Effect.orDie),

      /**
       * Ends a claimed job as failed or cancelled (fenced); a failure is refused once a cancel was
       * asked for, so that the caller ends the job cancelled instead. The job's row as ended, if so.
       */
      markEnded: (claim: Claim, status: "failed" | "cancelled", error: PublishingError) =>
        sql`
          update jobs set status = ${status}, error = ${json(error)}::jsonb, completed_at = now(),
                          lease_expires_at = null
          where id = ${claim.job.id} and fencing_token = ${claim.fencingToken} and status = 'running'
            ${sql.literal(status === "failed" ? "and cancel_requested_at is null" : "")}
          returning *`.pipe(Effect.flatMap(endedRow), Effect.orDie),

      /** Ends a job nobody holds (queued, or running under a lapsed lease), inside the caller's transaction after `lock`. */
      markEndedUnclaimed: (jobId: string, status: "failed" | "cancelled", error: PublishingError) =>
        sql`
          update jobs set status = ${status}, error = ${json(error)}::jsonb, completed_at = now(),
                          lease_owner = null, lease_expires_at = null
          where id = ${jobId}
          returning *`.pipe(
          Effect.flatMap(([row]) => Schema.decodeUnknown(JobRow)(row)),
          Effect.orDie
        ),

      /** Puts a claimed job back in the queue (fenced), due after `delayMs`. */
      requeue: (claim: Claim, delayMs: number) =>
        sql`
          update jobs set status = 'queued', lease_owner = null, lease_expires_at = null,
                          next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
          where id = ${claim.job.id} and fencing_token = ${claim.fencingToken} and status = 'running'
          returning id`.pipe(Effect.map(applied), Effect.orDie),

      /** The jobs of a document, with their states (deletion cancels those not yet ended). */
      ofDocument: (documentId: string) => Effect.orDie(statesOfDocument(documentId)),

      /** The jobs of a document, locked for the rest of the caller's transaction, which has locked the document. */
      lockOfDocument: (documentId: string): Effect.Effect<ReadonlyArray<Job>> => Effect.orDie(ofDocumentLocked(documentId)),

      /**
       * Removes the copy of a deleted document's source that its jobs kept for their renders, and
       * what their warnings quoted of it (migrations/0011_deleted_means_gone.sql).
       */
      scrubSource: (documentId: string) =>
        sql`
          update jobs set render_request = jsonb_set(render_request, '{markdown}', '""'::jsonb), warnings = scrub_warnings(warnings)
          where document_id = ${documentId}`.pipe(Effect.asVoid, Effect.orDie),

      requestCancel: (jobId: string) =>
        sql`update jobs set cancel_requested_at = coalesce(cancel_requested_at, now()) where id = ${jobId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** Running jobs whose lease lapsed, locked for the rescuer's transaction (skipping any another rescuer holds). */
      lapsed: Effect.orDie(lapsed(undefined)),

      /**
       * Re-queues a job whose lease lapsed, due after `delayMs`: the fencing token moves on, so the
       * lost holder can no longer write it.
       */
      requeueLapsed: (jobId: string, delayMs: number) =>
        sql`
          update jobs set status = 'queued', lease_owner = null, lease_expires_at = null,
                          next_attempt_at = now() + ${delayMs} * interval '1 millisecond',
                          fencing_token = fencing_token + 1
          where id = ${jobId}`.pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
