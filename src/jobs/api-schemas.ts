/** The JobResponse (specification 2.13): a job, its artifact, its links and its warnings. */
import { Schema } from "effect"
import { ArtifactSummary } from "../artifacts/artifact.ts"
import { MAX_WARNINGS, RenderWarning } from "../render/common/warnings.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { JobResource } from "./job.ts"

const jobPath = Schema.String.pipe(Schema.startsWith("/api/v2/jobs/"))

export const JobResponse = Schema.Struct({
  contractVersion: Schema.Literal(CONTRACT_VERSION),
  job: JobResource,
  artifact: Schema.NullOr(ArtifactSummary),
  links: Schema.Struct({ cancel: jobPath, self: jobPath }),
  warnings: Schema.Array(RenderWarning).pipe(Schema.maxItems(MAX_WARNINGS))
}).annotations({ identifier: "JobResponse" })
export type JobResponse = typeof JobResponse.Type
