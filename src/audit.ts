/**
 * The audit of a succeeded job (contract section 11, `pressroom audit`): its source rendered again
 * as the supervisor renders it, and every provenance hash recorded for it compared with the one
 * recomputed, together with the artifact's recorded SHA-256, its stored bytes and the re-rendered
 * bytes. Whatever prevents a comparison (the job did not succeed, the source or the bytes are gone,
 * the render fails) is a reason, and a report with a reason does not match.
 */
import { Effect, Either, Option } from "effect"
import type { Artifact } from "./artifacts/artifact.ts"
import { ArtifactRepository } from "./artifacts/repository.ts"
import { ArtifactStore } from "./artifacts/store.ts"
import { DocumentStore } from "./documents/store.ts"
import type { Provenance } from "./render/provenance.ts"
import type { RenderResult } from "./render/renderer.ts"
import { RenderService } from "./render/service.ts"
import { sha256Hex } from "./shared/hash.ts"
import type { Job } from "./jobs/job.ts"
import { JobStore } from "./jobs/job-store.ts"
import { renderRequestOf } from "./jobs/render-request.ts"

export interface AuditCheck {
  readonly name: string
  readonly recorded: string | null
  readonly actual: string | null
  readonly match: boolean
  /** Reported, never a mismatch: the engines are byte-identical by contract, so another compiler binary may have run. */
  readonly informational?: true
}

export interface AuditReport {
  readonly jobId: string
  /** Every check that counts matches, and nothing prevented one. */
  readonly match: boolean
  readonly checks: ReadonlyArray<AuditCheck>
  readonly reason?: string
}

/** The provenance compared, in the order of contract section 11 (rendererVersion first: a new release explains the rest). */
const PROVENANCE_CHECKS = [
  "rendererVersion",
  "sourceSha256",
  "optionsSha256",
  "renderOptionsSha256",
  "templateDefinitionSha256",
  "templateReleaseSha256",
  "fontSetSha256",
  "assetSetSha256",
  "catalogSha256",
  "manifestSha256",
  "rendererReleaseChecksum"
] as const satisfies ReadonlyArray<keyof Provenance>

const INFORMATIONAL: ReadonlySet<string> = new Set(["rendererReleaseChecksum"])

const check = (name: string, recorded: string | null, actual: string | null): AuditCheck => ({
  name,
  recorded,
  actual,
  match: recorded === actual,
  ...(INFORMATIONAL.has(name) ? { informational: true as const } : {})
})

const report = (jobId: string, checks: ReadonlyArray<AuditCheck>, reasons: ReadonlyArray<string>): AuditReport => ({
  jobId,
  match: reasons.length === 0 && checks.every((c) => c.match || c.informational),
  checks,
  ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {})
})

export const auditJob = (jobId: string) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(JobStore, (jobs) => jobs.find(jobId))
    if (Option.isNone(found)) return report(jobId, [], [`no job ${jobId}`])
    const job = found.value
    if (job.status !== "succeeded") return report(jobId, [], [`job ${jobId} is ${job.status}, not succeeded: it has no artifact to audit`])

    const reasons: Array<string> = []
    const checks: Array<AuditCheck> = []
    const source = yield* sourceOf(job)
    let rendered: RenderResult | undefined
    if (Either.isLeft(source)) reasons.push(source.left)
    else {
      const result = yield* Effect.either(Effect.flatMap(RenderService, (renderer) => renderer.render(renderRequestOf(job, source.right))))
      if (Either.isLeft(result)) reasons.push(`the render failed this time: ${result.left.message}`)
      else rendered = result.right
    }
    if (rendered) for (const name of PROVENANCE_CHECKS) checks.push(check(name, job.provenance[name], rendered.provenance[name]))

    const artifact = yield* artifactOf(job)
    if (Either.isLeft(artifact)) reasons.push(artifact.left)
    else {
      const stored = yield* storedSha256(artifact.right)
      if (Either.isLeft(stored)) reasons.push(stored.left)
      checks.push(check("storedBytesSha256", artifact.right.sha256, Either.getOrNull(stored)))
      if (rendered) checks.push(check("renderedBytesSha256", artifact.right.sha256, rendered.sha256))
    }
    return report(jobId, checks, reasons)
  })

/** The job's artifact row, which records the SHA-256 of the bytes when the job succeeded. */
const artifactOf = (job: Job): Effect.Effect<Either.Either<Artifact, string>, never, ArtifactRepository> =>
  job.artifactId === null
    ? Effect.succeed(Either.left("the job records no artifact"))
    : Effect.map(
        Effect.flatMap(ArtifactRepository, (artifacts) => artifacts.find(job.artifactId!)),
        Either.fromOption(() => `the artifact ${job.artifactId} has no row`)
      )

/** The SHA-256 of the artifact's bytes as the store holds them now, or why they cannot be read. */
const storedSha256 = ({ status, expiresAt, storageKey }: Artifact): Effect.Effect<Either.Either<string, string>, never, ArtifactStore> =>
  status !== "available"
    ? Effect.succeed(
        Either.left(
          `${status === "expired" ? `the artifact expired at ${expiresAt.toISOString()}` : `the artifact is ${status}`}: its bytes are gone`
        )
      )
    : Effect.flatMap(ArtifactStore, (store) => store.get(storageKey)).pipe(
        Effect.map(sha256Hex),
        Effect.mapError((error) => `the artifact's bytes cannot be read (${error.message})`),
        Effect.either
      )

/** The Markdown the job rendered: its revision's source (v2), which is gone once the document is deleted, else the source its request carried (v1). */
const sourceOf = (job: Job) =>
  Effect.gen(function* () {
    if (job.revisionId === null) return Either.right(job.renderSpec.markdown)
    const revision = yield* Effect.flatMap(DocumentStore, (documents) => documents.findRevision(job.revisionId!))
    const markdown = Option.isSome(revision) ? revision.value.markdown : null
    return markdown === null
      ? Either.left(`source gone: the source of revision ${job.revisionId} was deleted with its document`)
      : Either.right(markdown)
  })
