/** The `data` of a job's webhook event (specification section 6), written to the outbox with its terminal state. */
import type { PublishingError } from "../shared/errors.ts"
import { EVENT_CHANNELS } from "../webhooks/event-types.ts"
import type { Job } from "./job.ts"

/**
 * Whether the job writes a webhook event with its ending: only jobs of the document lifecycle do
 * (EVENT_CHANNELS). A one-call conversion answers in its request, and a render outside the
 * service has no subscriber: no event is written for either.
 */
export const sendsEvents = (job: Job) => (EVENT_CHANNELS as ReadonlyArray<string>).includes(job.channel)

export interface EventArtifact {
  readonly id: string
  readonly bytes: number
  readonly pageCount: number
  readonly sha256: string
  readonly filename: string
  readonly expiresAt: string
}

/** `job` as its ending transaction wrote it: `completedAt` is the database's, as the job's own. */
export const jobEventData = (
  job: Job,
  ended: { status: "succeeded" | "failed" | "cancelled"; error: PublishingError | null; artifact?: EventArtifact }
) => ({
  job: {
    id: job.id,
    documentId: job.documentId,
    revisionId: job.revisionId,
    purpose: job.purpose,
    status: ended.status,
    createdAt: job.acceptedAt.toISOString(),
    completedAt: job.completedAt!.toISOString(),
    error: ended.error,
    output: { filename: job.renderSpec.filename, format: "pdf" }
  },
  ...(ended.artifact
    ? {
        artifact: {
          bytes: ended.artifact.bytes,
          contentType: "application/pdf",
          expiresAt: ended.artifact.expiresAt,
          filename: ended.artifact.filename,
          format: "pdf",
          id: ended.artifact.id,
          pageCount: ended.artifact.pageCount,
          sha256: ended.artifact.sha256
        }
      }
    : {})
})
