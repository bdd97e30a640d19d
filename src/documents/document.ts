/**
 * A managed document and its revisions (specification 2.4 to 2.6). `Document` and `Revision` are
 * the domain's views, decoded from rows of `documents` and `revisions`; `DocumentResource` and
 * `RevisionRecord` are what the API shows of them.
 */
import { Schema } from "effect"
import { LOCALES } from "../render/locales.ts"
import { Sha256 } from "../render/provenance.ts"
import { Retention } from "../shared/retention.ts"
import { column } from "../shared/rows.ts"

export const DocumentStatus = Schema.Literal("active", "deleting", "deleted")
export type DocumentStatus = typeof DocumentStatus.Type

export const Document = Schema.Struct({
  id: Schema.UUID,
  accountId: column(Schema.UUID, "account_id"),
  taskId: column(Schema.String, "task_id"),
  title: Schema.NullOr(Schema.String),
  locale: Schema.Literal(...LOCALES),
  status: DocumentStatus,
  latestRevisionId: column(Schema.NullOr(Schema.UUID), "latest_revision_id"),
  createdAt: column(Schema.DateFromSelf, "created_at"),
  updatedAt: column(Schema.DateFromSelf, "updated_at"),
  lastActivityAt: column(Schema.DateFromSelf, "last_activity_at"),
  expiresAt: column(Schema.DateFromSelf, "expires_at"),
  deleteRequestedAt: column(Schema.NullOr(Schema.DateFromSelf), "delete_requested_at"),
  deletedAt: column(Schema.NullOr(Schema.DateFromSelf), "deleted_at")
})
export type Document = typeof Document.Type

/** A document's Retention object: its source window, and its deletion. */
export const documentRetention = (document: Document): Retention => ({
  deleteRequestedAt: document.deleteRequestedAt,
  deletedAt: document.deletedAt,
  expiresAt: document.expiresAt,
  policy: "managed_default"
})

export const DocumentResource = Schema.Struct({
  id: Schema.UUID,
  taskId: Schema.String,
  title: Schema.NullOr(Schema.String),
  locale: Schema.Literal(...LOCALES),
  status: DocumentStatus,
  latestRevisionId: Schema.NullOr(Schema.UUID),
  retention: Retention,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  lastActivityAt: Schema.Date
}).annotations({ identifier: "Document" })

export const toDocumentResource = (document: Document): typeof DocumentResource.Type => ({
  id: document.id,
  taskId: document.taskId,
  title: document.title,
  locale: document.locale,
  status: document.status,
  latestRevisionId: document.latestRevisionId,
  retention: documentRetention(document),
  createdAt: document.createdAt,
  updatedAt: document.updatedAt,
  lastActivityAt: document.lastActivityAt
})

/** A revision's spec as it was submitted (specification 2.5), kept to render it and hashed as `specSha256`. */
export const StoredSpec = Schema.Struct({
  locale: Schema.String,
  templateId: Schema.String,
  options: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type StoredSpec = typeof StoredSpec.Type

export const Revision = Schema.Struct({
  id: Schema.UUID,
  documentId: column(Schema.UUID, "document_id"),
  parentRevisionId: column(Schema.NullOr(Schema.UUID), "parent_revision_id"),
  sequence: Schema.Int,
  /** Null once the document is deleted. */
  markdown: Schema.NullOr(Schema.String),
  sourceBytes: column(Schema.Int, "source_bytes"),
  sourceSha256: column(Sha256, "source_sha256"),
  spec: StoredSpec,
  specSha256: column(Sha256, "spec_sha256"),
  createdAt: column(Schema.DateFromSelf, "created_at")
})
export type Revision = typeof Revision.Type

export const RevisionRecord = Schema.Struct({
  id: Schema.UUID,
  documentId: Schema.UUID,
  parentRevisionId: Schema.NullOr(Schema.UUID),
  sequence: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  sourceBytes: Schema.Int,
  sourceSha256: Sha256,
  specSha256: Sha256,
  createdAt: Schema.Date
}).annotations({ identifier: "Revision" })

export const toRevisionRecord = (revision: Revision): typeof RevisionRecord.Type => ({
  id: revision.id,
  documentId: revision.documentId,
  parentRevisionId: revision.parentRevisionId,
  sequence: revision.sequence,
  sourceBytes: revision.sourceBytes,
  sourceSha256: revision.sourceSha256,
  specSha256: revision.specSha256,
  createdAt: revision.createdAt
})
