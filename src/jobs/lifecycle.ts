/**
 * How a job ends, each as one transaction (specification section 3, contract section 6): the
 * job's terminal state, its unit committed (success) or released (failure, cancel), the artifact
 * row, and for a job of the document lifecycle the outbox event, whose `completedAt` is the job's
 * (the job's trigger tells whoever awaits it). Writes after a claim
 * are fenced; when the fence refuses, nothing of the transaction is written.
 */
import { SqlClient } from "@effect/sql"
import { Data, Effect, Option } from "effect"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { Ledger } from "../entitlements/ledger.ts"
import type { PublishingError } from "../shared/errors.ts"
import type { Provenance } from "../render/provenance.ts"
import type { RenderWarning } from "../render/common/warnings.ts"
import { Outbox } from "../webhooks/outbox.ts"
import { type EventArtifact, jobEventData, sendsEvents } from "./events.ts"
import * as JobErrors from "./job-errors.ts"
import type { Job } from "./job.ts"
import { type Claim, JobStore } from "./job-store.ts"

/** What a job's success records: its artifact over stored bytes, and the job's provenance and warnings. */
export interface Success {
  readonly artifactId: string
  readonly storageKey: string
  readonly bytes: number
  readonly pageCount: number
  readonly sha256: string
  readonly provenance: Provenance
  readonly warnings: ReadonlyArray<RenderWarning>
  /** The key a later job of the same owner may reuse these bytes by (src/jobs/reuse.ts), null if none. */
  readonly reuseKey: string | null
  /** A reuse: the artifact whose bytes this one shares, which must still be available (and is held so until the end). */
  readonly sharesBytesOf?: string
}

/** The artifact a reuse would share bytes with stopped being available before the transaction held it. */
class SourceGone extends Data.TaggedError("SourceGone") {}

export class JobLifecycle extends Effect.Service<JobLifecycle>()("pressroom/JobLifecycle", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* JobStore
    const ledger = yield* Ledger
    const artifacts = yield* ArtifactRepository
    const outbox = yield* Outbox

    /** Settles an ended job's unit and, for a job of the document lifecycle, writes its event. */
    const settled = (job: Job, error: PublishingError | null, artifact?: EventArtifact) =>
      Effect.gen(function* () {
        if (job.status === "succeeded") yield* ledger.commit(job.id)
        else yield* ledger.release(job.id)
        if (!sendsEvents(job)) return
        const status = job.status as "succeeded" | "failed" | "cancelled"
        yield* outbox.append({
          accountId: job.accountId,
          jobId: job.id,
          type: `job.${status}`,
          data: jobEventData(job, { status, error, artifact })
        })
      })

    /** Ends a claimed job as failed or cancelled; a failure of a job whose cancel was asked for ends it cancelled. */
    const end = (claim: Claim, status: "failed" | "cancelled", error: PublishingError): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        const ended = yield* store.markEnded(claim, status, error)
        if (Option.isSome(ended)) {
          yield* settled(ended.value, error)
          return true
        }
        return status === "failed" ? yield* end(claim, "cancelled", JobErrors.cancelled()) : false
      })

    return {
      /**
       * Records a job's success over bytes stored under `success.storageKey`: "claim_lost" when the
       * fence refuses, "cancelled" when a cancel was asked for meanwhile (the job ends cancelled
       * instead: its document's deletion, or its owner, won), "source_gone" when the artifact a
       * reuse shares bytes with is no longer available (nothing is written then either).
       */
      succeed: (claim: Claim, success: Success) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const job = claim.job
              const won = yield* store.markSucceeded(claim, {
                artifactId: success.artifactId,
                provenance: success.provenance,
                warnings: success.warnings
              })
              if (Option.isNone(won))
                return (yield* end(claim, "cancelled", JobErrors.cancelled())) ? ("cancelled" as const) : ("claim_lost" as const)
              // The job's row is locked first, as a document's deletion locks it (its cancel) before
              // its artifacts (their withdrawal): taken in the other order, the two could deadlock.
              if (success.sharesBytesOf !== undefined && !(yield* artifacts.holdAvailable(success.sharesBytesOf))) {
                return yield* new SourceGone()
              }
              const expiresAt = yield* artifacts.insert({
                id: success.artifactId,
                accountId: job.accountId,
                jobId: job.id,
                revisionId: job.revisionId,
                purpose: job.purpose,
                filename: job.renderSpec.filename,
                bytes: success.bytes,
                pageCount: success.pageCount,
                sha256: success.sha256,
                storageKey: success.storageKey,
                manifestSha256: success.provenance.manifestSha256,
                reuseKey: success.reuseKey
              })
              yield* settled(won.value, null, {
                id: success.artifactId,
                bytes: success.bytes,
                pageCount: success.pageCount,
                sha256: success.sha256,
                filename: job.renderSpec.filename,
                expiresAt: expiresAt.toISOString()
              })
              return "succeeded" as const
            })
          )
          .pipe(
            // Failing rolls the job's success back with the transaction.
            Effect.catchTag("SourceGone", () => Effect.succeed("source_gone" as const)),
            Effect.orDie
          ),

      /** Ends a claimed job as failed or cancelled (cancelled when a cancel was asked for); false when the claim was lost. */
      end: (claim: Claim, status: "failed" | "cancelled", error: PublishingError) =>
        sql.withTransaction(end(claim, status, error)).pipe(Effect.orDie),

      /** Ends a job nobody holds; call inside a transaction that has locked it. */
      endUnclaimed: (job: Job, status: "failed" | "cancelled", error: PublishingError) =>
        Effect.flatMap(store.markEndedUnclaimed(job.id, status, error), (ended) => settled(ended, error))
    } as const
  })
}) {}
