/**
 * Renders reused by their manifest (contract section 11: equal manifests mean equal bytes). Before
 * rendering a job, the supervisor asks for an available artifact of the same owner whose render
 * had the manifest this job would have. The manifest needs the set of embedded images, which only
 * parsing finds; but images embed only from data: URIs in the source, so the set is a function of
 * the source, and the artifact is found by the manifest without it (`RenderPlan.reuseKey`). The
 * job's provenance is then its own (request, channel, options as sent) with the asset set of the
 * render that made the bytes, and with that render's engine and compiler binary, which made them;
 * its manifest must equal the artifact's, or the job is rendered as usual.
 *
 * Never across owners: how fast a job ends would tell whether another owner holds the document.
 */
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { completeProvenance } from "../render/provenance-hashes.ts"
import type { RenderPlan } from "../render/renderer.ts"
import type { Job } from "./job.ts"
import { JobStore } from "./job-store.ts"
import type { Success } from "./lifecycle.ts"

/** The success of `job` over the bytes of an available artifact of its owner with the same manifest, if there is one. */
export const reuseFor = (job: Job, plan: RenderPlan): Effect.Effect<Option.Option<Success>, never, ArtifactRepository | JobStore> =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(ArtifactRepository, (artifacts) => artifacts.findReusable(job.accountId, plan.reuseKey))
    if (Option.isNone(found)) return Option.none()
    const source = found.value
    const made = yield* Effect.flatMap(JobStore, (jobs) => jobs.find(source.jobId))
    if (Option.isNone(made)) return Option.none()
    const { provenance: madeBy, warnings } = made.value
    const provenance = completeProvenance(
      { ...plan.provenance, engineVersion: madeBy.engineVersion, rendererReleaseChecksum: madeBy.rendererReleaseChecksum },
      madeBy.assetSetSha256
    )
    if (provenance.manifestSha256 !== source.manifestSha256) return Option.none()
    return Option.some({
      artifactId: randomUUID(),
      storageKey: source.storageKey,
      bytes: source.bytes,
      pageCount: source.pageCount,
      sha256: source.sha256,
      provenance,
      warnings,
      reuseKey: plan.reuseKey,
      sharesBytesOf: source.id
    })
  })
