/**
 * A preview or publication of a document's revision, on whichever channel asked for it: the REST
 * API (`rest_v2`) and the dashboard (`web`) admit the same job through the same services, and
 * differ only in the channel their provenance records (contract sections 11 and 12).
 */
import { type Duration, Effect } from "effect"
import type { Principal } from "../accounts/principal.ts"
import { Jobs } from "../jobs/jobs.ts"
import type { Channel } from "../render/provenance.ts"
import type { RenderRequest } from "./api.ts"
import { Documents } from "./documents.ts"
import { renderSpecOf } from "./revision-request.ts"

export interface RenderJobInput {
  readonly principal: Principal
  readonly documentId: string
  readonly request: RenderRequest
  readonly purpose: "preview" | "final"
  readonly channel: Extract<Channel, "rest_v2" | "web" | "mcp_v2">
  /** What identifies the request (its idempotency hash), recorded in the job's provenance. */
  readonly requestSha256: string
  /** How long to wait for the job to end: the synchronous threshold (`syncThresholdMs`). */
  readonly threshold: Duration.Duration
}

/** Admits the revision's render as a job and awaits it up to the synchronous threshold: the job once terminal, or as it then stands. */
export const renderJob = (input: RenderJobInput) =>
  Effect.gen(function* () {
    const documents = yield* Documents
    const jobs = yield* Jobs
    const { revision } = yield* documents.forRender(input.principal, input.documentId, input.request.revisionId)
    const spec = yield* renderSpecOf(revision, input.request)
    // A client that stops waiting leaves the job to run: its result stays readable afterwards.
    return yield* jobs.admitAndAwait(
      {
        principal: input.principal,
        purpose: input.purpose,
        channel: input.channel,
        spec,
        requestSha256: input.requestSha256,
        documentId: input.documentId,
        revisionId: revision.id
      },
      input.threshold,
      () => Effect.void
    )
  })
