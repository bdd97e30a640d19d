/**
 * A job (specification 2.8 and 3): one render of one request, and the states it moves through.
 * `Job` is the domain's view, with what the API may not show (the owner, the fencing token, the
 * render spec); `JobRow` decodes a row of the `jobs` table into it.
 */
import { Schema, Struct } from "effect"
import { EntitlementSnapshot } from "../entitlements/entitlement.ts"
import { Channel, Provenance } from "../render/provenance.ts"
import { RenderWarning } from "../render/common/warnings.ts"
import { PublishingError } from "../shared/errors.ts"
import { Retention } from "../shared/retention.ts"
import { column } from "../shared/rows.ts"

export const JobStatus = Schema.Literal("accepted", "queued", "running", "succeeded", "failed", "cancelled")
export type JobStatus = typeof JobStatus.Type

export const TERMINAL_STATUSES: ReadonlyArray<JobStatus> = ["succeeded", "failed", "cancelled"]
export const CANCELLABLE_STATUSES: ReadonlyArray<JobStatus> = ["accepted", "queued", "running"]
export const isTerminal = (status: JobStatus) => TERMINAL_STATUSES.includes(status)

export const Purpose = Schema.Literal("preview", "final")
export type Purpose = typeof Purpose.Type

/** What a job renders, fixed at admission. */
export const RenderSpec = Schema.Struct({
  markdown: Schema.String,
  templateId: Schema.String,
  locale: Schema.String,
  /** The options as the client sent them (their JCS hash is `optionsSha256`). */
  options: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** A custom template's paper and font family. */
  overrides: Schema.optional(Schema.Struct({ paper: Schema.optional(Schema.String), fontFamily: Schema.optional(Schema.String) })),
  filename: Schema.String
})
export type RenderSpec = typeof RenderSpec.Type

export const Job = Schema.Struct({
  id: Schema.UUID,
  accountId: Schema.UUID,
  documentId: Schema.NullOr(Schema.UUID),
  revisionId: Schema.NullOr(Schema.UUID),
  artifactId: Schema.NullOr(Schema.UUID),
  purpose: Purpose,
  channel: Channel,
  status: JobStatus,
  attemptCount: Schema.Int,
  renderSpec: RenderSpec,
  requestSha256: Schema.String,
  entitlement: EntitlementSnapshot,
  provenance: Provenance,
  warnings: Schema.Array(RenderWarning),
  error: Schema.NullOr(PublishingError),
  fencingToken: Schema.Int,
  cancelRequestedAt: Schema.NullOr(Schema.DateFromSelf),
  acceptedAt: Schema.DateFromSelf,
  queuedAt: Schema.NullOr(Schema.DateFromSelf),
  startedAt: Schema.NullOr(Schema.DateFromSelf),
  completedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type Job = typeof Job.Type

/** A row of `jobs` (its JSON columns parsed by the driver) decoded into a `Job`; the row's other columns are ignored. */
export const JobRow = Schema.Struct({
  ...Job.fields,
  accountId: column(Job.fields.accountId, "account_id"),
  documentId: column(Job.fields.documentId, "document_id"),
  revisionId: column(Job.fields.revisionId, "revision_id"),
  artifactId: column(Job.fields.artifactId, "artifact_id"),
  attemptCount: column(Job.fields.attemptCount, "attempt_count"),
  renderSpec: column(Job.fields.renderSpec, "render_request"),
  requestSha256: column(Job.fields.requestSha256, "request_sha256"),
  fencingToken: column(Job.fields.fencingToken, "fencing_token"),
  cancelRequestedAt: column(Job.fields.cancelRequestedAt, "cancel_requested_at"),
  acceptedAt: column(Job.fields.acceptedAt, "accepted_at"),
  queuedAt: column(Job.fields.queuedAt, "queued_at"),
  startedAt: column(Job.fields.startedAt, "started_at"),
  completedAt: column(Job.fields.completedAt, "completed_at")
})

/** What the API shows of a job as the domain holds it (its times it shows as timestamps). */
const SHOWN = [
  "id",
  "documentId",
  "revisionId",
  "artifactId",
  "purpose",
  "status",
  "attemptCount",
  "acceptedAt",
  "queuedAt",
  "startedAt",
  "completedAt",
  "requestSha256",
  "entitlement",
  "provenance",
  "error"
] as const

/**
 * The job as the API shows it (specification 2.8): the domain's job without what only the service
 * may see (owner, channel, render spec, fencing token; its warnings the JobResponse carries beside
 * it), its times as timestamps, its output format and its retention.
 */
export const JobResource = Schema.Struct({
  ...Job.pick(...SHOWN).fields,
  acceptedAt: Schema.Date,
  queuedAt: Schema.NullOr(Schema.Date),
  startedAt: Schema.NullOr(Schema.Date),
  completedAt: Schema.NullOr(Schema.Date),
  outputFormat: Schema.Literal("pdf"),
  retention: Retention
}).annotations({ identifier: "Job" })
export type JobResource = typeof JobResource.Type

export const toJobResource = (job: Job, retention: Retention): JobResource => ({
  ...Struct.pick(job, ...SHOWN),
  outputFormat: "pdf",
  retention
})
