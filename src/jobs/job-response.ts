/**
 * A job as a JobResponse (specification 2.13), and its HTTP status at admission and cancel: 200
 * when the job has ended, 202 while it is still going (contract section 6).
 *
 * A job's retention is its artifact's when it has one. Without one (queued, running, failed,
 * cancelled), it is the lifetime the artifact would have had, counted from the job's end (or its
 * admission): the job's record is shown as long as its output would have been.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { artifactRetention, toArtifactSummary } from "../artifacts/artifact.ts"
import { retentionConfig } from "../artifacts/config.ts"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import type { Retention } from "../shared/retention.ts"
import { JobResponse } from "./api-schemas.ts"
import { isTerminal, type Job, toJobResource } from "./job.ts"

export class JobResponses extends Effect.Service<JobResponses>()("pressroom/JobResponses", {
  effect: Effect.gen(function* () {
    const artifacts = yield* ArtifactRepository
    const lifetimes = yield* retentionConfig

    const withoutArtifact = (job: Job): Retention => {
      const seconds = job.purpose === "preview" ? lifetimes.previewTtlSeconds : lifetimes.finalTtlSeconds
      const from = job.completedAt ?? job.acceptedAt
      return { deleteRequestedAt: null, deletedAt: null, expiresAt: new Date(from.getTime() + seconds * 1000), policy: "managed_default" }
    }

    const body = (job: Job) =>
      Effect.gen(function* () {
        const artifact = job.artifactId === null ? Option.none() : yield* artifacts.find(job.artifactId)
        const retention = Option.match(artifact, { onNone: () => withoutArtifact(job), onSome: artifactRetention })
        return {
          contractVersion: CONTRACT_VERSION,
          job: toJobResource(job, retention),
          artifact: Option.match(artifact, { onNone: () => null, onSome: (found) => toArtifactSummary(found, artifactRetention(found)) }),
          links: { cancel: `/api/v2/jobs/${job.id}/cancel`, self: `/api/v2/jobs/${job.id}` },
          warnings: job.warnings
        } satisfies JobResponse
      })

    return {
      body,
      /** The response a handler returns (built here so that `Idempotency` can save it): 200 when the job has ended, else 202. */
      response: (job: Job, status: 200 | 202 = isTerminal(job.status) ? 200 : 202) =>
        Effect.flatMap(body(job), (shown) => HttpServerResponse.schemaJson(JobResponse)(shown, { status })).pipe(Effect.orDie)
    } as const
  })
}) {}
