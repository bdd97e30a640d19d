/** A job (specification 2.8 and 3): one render of one request, and the states it moves through. */
import type { Provenance } from "../render/provenance.ts"
import type { RenderWarning } from "../render/warnings.ts"
import type { PublishingError } from "../http/api-error.ts"

export const JOB_STATUSES = ["accepted", "queued", "running", "succeeded", "failed", "cancelled"] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

export const TERMINAL_STATUSES: ReadonlyArray<JobStatus> = ["succeeded", "failed", "cancelled"]
export const CANCELLABLE_STATUSES: ReadonlyArray<JobStatus> = ["accepted", "queued", "running"]
export const isTerminal = (status: JobStatus) => TERMINAL_STATUSES.includes(status)

export type Purpose = "preview" | "final"

/** What a job renders, fixed at admission. */
export interface RenderSpec {
  readonly markdown: string
  readonly templateId: string
  readonly locale: string
  /** The options as the client sent them (their JCS hash is `optionsSha256`). */
  readonly options: Record<string, unknown>
  /** A custom template's paper and font family. */
  readonly overrides?: { readonly paper?: string; readonly fontFamily?: string }
  readonly filename: string
}

export interface EntitlementSnapshotValue {
  readonly capturedAt: string
  readonly catalogVersion: string
  readonly plan: string
  readonly source: string
  readonly units: number
}

export interface Job {
  readonly id: string
  readonly accountId: string
  readonly documentId: string | null
  readonly revisionId: string | null
  readonly artifactId: string | null
  readonly purpose: Purpose
  readonly channel: string
  readonly status: JobStatus
  readonly attemptCount: number
  readonly renderSpec: RenderSpec
  readonly requestSha256: string
  readonly entitlement: EntitlementSnapshotValue
  readonly provenance: Provenance
  readonly warnings: ReadonlyArray<RenderWarning>
  readonly error: PublishingError | null
  readonly fencingToken: number
  readonly cancelRequestedAt: Date | null
  readonly acceptedAt: Date
  readonly queuedAt: Date | null
  readonly startedAt: Date | null
  readonly completedAt: Date | null
}

export interface JobRow {
  readonly id: string
  readonly account_id: string
  readonly document_id: string | null
  readonly revision_id: string | null
  readonly artifact_id: string | null
  readonly purpose: Purpose
  readonly channel: string
  readonly status: JobStatus
  readonly attempt_count: number
  readonly render_request: RenderSpec
  readonly request_sha256: string
  readonly entitlement: EntitlementSnapshotValue
  readonly provenance: Provenance
  readonly warnings: ReadonlyArray<RenderWarning>
  readonly error: PublishingError | null
  readonly fencing_token: number
  readonly cancel_requested_at: Date | null
  readonly accepted_at: Date
  readonly queued_at: Date | null
  readonly started_at: Date | null
  readonly completed_at: Date | null
}

export const fromRow = (row: JobRow): Job => ({
  id: row.id,
  accountId: row.account_id,
  documentId: row.document_id,
  revisionId: row.revision_id,
  artifactId: row.artifact_id,
  purpose: row.purpose,
  channel: row.channel,
  status: row.status,
  attemptCount: row.attempt_count,
  renderSpec: row.render_request,
  requestSha256: row.request_sha256,
  entitlement: row.entitlement,
  provenance: row.provenance,
  warnings: row.warnings,
  error: row.error,
  fencingToken: row.fencing_token,
  cancelRequestedAt: row.cancel_requested_at,
  acceptedAt: row.accepted_at,
  queuedAt: row.queued_at,
  startedAt: row.started_at,
  completedAt: row.completed_at
})
