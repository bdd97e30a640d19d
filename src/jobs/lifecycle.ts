/**
 * How a job ends, each as one transaction (specification section 3, contract section 6): the
 * job's terminal state, its unit committed (success) or released (failure, cancel), the artifact
 * row, and the outbox event (the job's trigger tells whoever awaits it). Writes after a claim
 * are fenced; when the fence refuses, nothing of the transaction is written.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { Ledger } from "../entitlements/ledger.ts"
import type { PublishingError } from "../shared/errors.ts"
import type { RenderResult } from "../render/renderer.ts"
import { Outbox } from "../webhooks/outbox.ts"
import { jobEventData } from "./events.ts"
import type { Job } from "./job.ts"
import { type Claim, JobStore } from "./job-store.ts"

export class JobLifecycle extends Effect.Service<JobLifecycle>()("pressroom/JobLifecycle", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* JobStore
    const ledger = yield* Ledger
    const artifacts = yield* ArtifactRepository
    const outbox = yield* Outbox

    const ended = (job: Job, status: "failed" | "cancelled", error: PublishingError) =>
      Effect.all(
        [
          ledger.release(job.id),
          outbox.append({ accountId: job.accountId, jobId: job.id, type: `job.${status}`, data: jobEventData(job, { status, error }) })
        ],
        { discard: true }
      )

    return {
      /** Records a successful render whose bytes are stored under `storageKey`; false when the claim was lost. */
      succeed: (claim: Claim, result: RenderResult, artifact: { id: string; storageKey: string }) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const job = claim.job
              const won = yield* store.markSucceeded(claim, {
                artifactId: artifact.id,
                provenance: result.provenance,
                warnings: result.warnings
              })
              if (!won) return false
              const expiresAt = yield* artifacts.insert({
                id: artifact.id,
                accountId: job.accountId,
                jobId: job.id,
                revisionId: job.revisionId,
                purpose: job.purpose,
                filename: job.renderSpec.filename,
                bytes: result.pdf.byteLength,
                pageCount: result.pageCount,
                sha256: result.sha256,
                storageKey: artifact.storageKey
              })
              yield* ledger.commit(job.id)
              yield* outbox.append({
                accountId: job.accountId,
                jobId: job.id,
                type: "job.succeeded",
                data: jobEventData(job, {
                  status: "succeeded",
                  error: null,
                  artifact: {
                    id: artifact.id,
                    bytes: result.pdf.byteLength,
                    pageCount: result.pageCount,
                    sha256: result.sha256,
                    filename: job.renderSpec.filename,
                    expiresAt: expiresAt.toISOString()
                  }
                })
              })
              return true
            })
          )
          .pipe(Effect.orDie),

      /** Ends a claimed job as failed or cancelled; false when the claim was lost. */
      end: (claim: Claim, status: "failed" | "cancelled", error: PublishingError) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const won = yield* store.markEnded(claim, status, error)
              if (won) yield* ended(claim.job, status, error)
              return won
            })
          )
          .pipe(Effect.orDie),

      /** Ends a job nobody holds; call inside a transaction that has locked it. */
      endUnclaimed: (job: Job, status: "failed" | "cancelled", error: PublishingError) =>
        Effect.zipRight(store.markEndedUnclaimed(job.id, status, error), ended(job, status, error))
    } as const
  })
}) {}
