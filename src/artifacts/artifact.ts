/**
 * An artifact (specification 2.11): the PDF of one succeeded job, its bytes in the artifact store
 * under `storageKey`. `Artifact` is the domain's view, `ArtifactRow` decodes a row of `artifacts`
 * into it, and `ArtifactSummary` is what the API shows of it.
 */
import { Schema, Struct } from "effect"
import { Sha256 } from "../render/provenance.ts"
import { Retention } from "../shared/retention.ts"
import { column } from "../shared/rows.ts"

export const ArtifactStatus = Schema.Literal("available", "expired", "deleting", "deleted")

export const Artifact = Schema.Struct({
  id: Schema.UUID,
  accountId: Schema.UUID,
  jobId: Schema.UUID,
  revisionId: Schema.NullOr(Schema.UUID),
  status: ArtifactStatus,
  filename: Schema.String,
  bytes: Schema.Int,
  pageCount: Schema.Int,
  sha256: Sha256,
  storageKey: Schema.String,
  createdAt: Schema.DateFromSelf,
  finalizedAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  deleteRequestedAt: Schema.NullOr(Schema.DateFromSelf),
  deletedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type Artifact = typeof Artifact.Type

export const ArtifactRow = Schema.Struct({
  ...Artifact.fields,
  accountId: column(Artifact.fields.accountId, "account_id"),
  jobId: column(Artifact.fields.jobId, "job_id"),
  revisionId: column(Artifact.fields.revisionId, "revision_id"),
  pageCount: column(Artifact.fields.pageCount, "page_count"),
  storageKey: column(Artifact.fields.storageKey, "storage_key"),
  createdAt: column(Artifact.fields.createdAt, "created_at"),
  finalizedAt: column(Artifact.fields.finalizedAt, "finalized_at"),
  expiresAt: column(Artifact.fields.expiresAt, "expires_at"),
  deleteRequestedAt: column(Artifact.fields.deleteRequestedAt, "delete_requested_at"),
  deletedAt: column(Artifact.fields.deletedAt, "deleted_at")
})

/** An artifact's Retention object: its lifetime after finalisation, and its deletion. */
export const artifactRetention = (artifact: Artifact): Retention => ({
  deleteRequestedAt: artifact.deleteRequestedAt,
  deletedAt: artifact.deletedAt,
  expiresAt: artifact.expiresAt,
  policy: "managed_default"
})

/** What the API shows of an artifact as the domain holds it (its times it shows as timestamps). */
const SHOWN = ["id", "jobId", "revisionId", "status", "filename", "bytes", "pageCount", "sha256", "createdAt", "finalizedAt"] as const

export const ArtifactSummary = Schema.Struct({
  ...Artifact.pick(...SHOWN).fields,
  createdAt: Schema.Date,
  finalizedAt: Schema.Date,
  format: Schema.Literal("pdf"),
  contentType: Schema.Literal("application/pdf"),
  downloadPath: Schema.String.pipe(Schema.pattern(/^\/api\/v2\/artifacts\/[0-9a-f-]+\/download$/)),
  retention: Retention
}).annotations({ identifier: "ArtifactSummary" })
export type ArtifactSummary = typeof ArtifactSummary.Type

export const toArtifactSummary = (artifact: Artifact, retention: Retention): ArtifactSummary => ({
  ...Struct.pick(artifact, ...SHOWN),
  format: "pdf",
  contentType: "application/pdf",
  downloadPath: `/api/v2/artifacts/${artifact.id}/download`,
  retention
})
