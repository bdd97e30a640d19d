/**
 * Documents, revisions, previews and publications (specification sections 2.4 to 2.7, 2.13, 2.14,
 * 4; contract section 5). Request bodies are strict (an unknown property is 400); content values
 * (template, locale, colours, markdown length, filename, format) are plain strings here and checked
 * by the handler, because the contract answers them with 422.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../accounts/security.ts"
import { IdempotencyKeyHeader } from "../idempotency/key.ts"
import { JobResponse } from "../jobs/api-schemas.ts"
import { TEMPLATE_IDS } from "../render/catalog.ts"
import { LOCALES } from "../render/locales.ts"
import { RenderOptions } from "../render/common/options.ts"
import { CONTRACT_VERSION, withErrors } from "../shared/error-responses.ts"
import {
  Forbidden,
  IdempotencyConflict,
  InvalidStateTransition,
  NotFound,
  QuotaExhausted,
  RateLimited,
  ServiceUnavailable
} from "../shared/errors.ts"
import { looseFields, oneOf, strict } from "../shared/request-values.ts"
import { ListParams, Pagination } from "../shared/pagination.ts"
import { Retention } from "../shared/retention.ts"
import { CommonMarkText } from "../shared/text.ts"
import { DocumentResource, RevisionRecord } from "./document.ts"

const contractVersion = Schema.Literal(CONTRACT_VERSION)

// Specification 2.5 lists three options for a revision; creativeAccent is v1's and a custom template's.
const { creativeAccent: _, ...revisionOptions } = RenderOptions.fields

export const RevisionOptions = Schema.Struct(looseFields(revisionOptions)).annotations({ identifier: "RevisionOptions", ...strict })

export const RevisionSpec = Schema.Struct({
  locale: oneOf(LOCALES),
  templateId: oneOf(TEMPLATE_IDS),
  options: Schema.optional(RevisionOptions).annotations({ description: "default {}" })
}).annotations({ identifier: "RevisionSpec", ...strict })

export const CreateRevisionRequest = Schema.Struct({
  // Read as CommonMark reads it (a NUL or an unpaired surrogate becomes U+FFFD): the revision
  // stores, hashes and renders that text. Its length (1 to 200,000) is content: 422.
  markdown: Schema.String.annotations({ description: "1 to 200,000 characters" }).pipe(Schema.compose(CommonMarkText)),
  parentRevisionId: Schema.NullOr(Schema.UUID),
  spec: RevisionSpec
}).annotations({ identifier: "CreateRevisionRequest", ...strict })
export type CreateRevisionRequest = typeof CreateRevisionRequest.Type

export const TaskId = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(100),
  Schema.pattern(/^[a-z0-9][a-z0-9._-]*$/, { message: () => "must match ^[a-z0-9][a-z0-9._-]*$" })
)

export const CreateDocumentRequest = Schema.Struct({
  revision: CreateRevisionRequest,
  taskId: TaskId,
  title: Schema.NullOr(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(160)))
}).annotations({ identifier: "CreateDocumentRequest", ...strict })
export type CreateDocumentRequest = typeof CreateDocumentRequest.Type

export const RenderRequest = Schema.Struct({
  revisionId: Schema.UUID,
  output: Schema.Struct({
    filename: Schema.String.annotations({ description: "1 to 200 characters; the name of the downloaded PDF" }),
    format: oneOf(["pdf"])
  }).annotations({ ...strict })
}).annotations({ identifier: "RenderRequest", ...strict })
export type RenderRequest = typeof RenderRequest.Type

const documentPath = Schema.String.pipe(Schema.startsWith("/api/v2/documents/"))

export const DocumentLinks = Schema.Struct({
  self: documentPath,
  revisions: documentPath,
  preview: documentPath,
  publish: documentPath
}).annotations({ identifier: "DocumentLinks" })

export const DocumentResponse = Schema.Struct({
  contractVersion,
  document: DocumentResource,
  links: DocumentLinks,
  revision: RevisionRecord
}).annotations({ identifier: "DocumentResponse" })

export const DocumentDetailResponse = Schema.Struct({
  contractVersion,
  document: DocumentResource,
  latestRevision: Schema.NullOr(RevisionRecord),
  links: DocumentLinks
}).annotations({ identifier: "DocumentDetailResponse" })

export const DocumentListResponse = Schema.Struct({
  contractVersion,
  documents: Schema.Array(DocumentResource).pipe(Schema.maxItems(100)),
  pagination: Pagination
}).annotations({ identifier: "DocumentListResponse" })

export const RevisionCreated = Schema.Struct({
  contractVersion,
  documentId: Schema.UUID,
  revision: RevisionRecord,
  links: Schema.Struct({ document: documentPath, preview: documentPath, publish: documentPath })
}).annotations({ identifier: "RevisionCreated" })

export const DeletionResponse = Schema.Struct({
  contractVersion,
  documentId: Schema.UUID,
  retention: Retention,
  status: Schema.Literal("accepted", "already_deleting", "already_deleted")
}).annotations({ identifier: "DeletionResponse" })

const DocumentPath = Schema.Struct({ documentId: Schema.UUID })

const replayNote = "A replay of the same Idempotency-Key and body answers the saved response with Idempotency-Replayed: true."
const admissionNote =
  "200 when the job ended within the synchronous threshold (PRESSROOM_SYNC_THRESHOLD_MS), 202 while it is still going; poll links.self."

export class DocumentsApi extends HttpApiGroup.make("documents")
  .add(
    withErrors(
      HttpApiEndpoint.post("create", "/api/v2/documents")
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(CreateDocumentRequest)
        .addSuccess(DocumentResponse.annotations({ description: `Created; Location names the document. ${replayNote}` }), { status: 201 })
        .annotate(OpenApi.Summary, "Create a document with its first revision (scope documents.render or documents.preview)"),
      "v2",
      [Forbidden, IdempotencyConflict, RateLimited],
      [400, 413, 415, 422]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("list", "/api/v2/documents")
        .setUrlParams(ListParams)
        .addSuccess(DocumentListResponse.annotations({ description: "Newest first; deleted documents are left out." }))
        .annotate(OpenApi.Summary, "List documents (scope documents.read)"),
      "v2",
      [Forbidden, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("get", "/api/v2/documents/:documentId")
        .setPath(DocumentPath)
        .addSuccess(DocumentDetailResponse)
        .annotate(OpenApi.Summary, "Get a document (scope documents.read); a deleting or deleted one shows its status"),
      "v2",
      [Forbidden, NotFound, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.del("delete", "/api/v2/documents/:documentId")
        .setPath(DocumentPath)
        .setHeaders(IdempotencyKeyHeader)
        .addSuccess(
          DeletionResponse.annotations({
            description: `Deletion accepted (or already under way, or done). Unfinished jobs are cancelled; artifacts' bytes and the revisions' source are removed. ${replayNote}`
          }),
          { status: 202 }
        )
        .annotate(OpenApi.Summary, "Delete a document (scope documents.render)"),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("createRevision", "/api/v2/documents/:documentId/revisions")
        .setPath(DocumentPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(CreateRevisionRequest)
        .addSuccess(RevisionCreated.annotations({ description: `Created. ${replayNote}` }), { status: 201 })
        .annotate(OpenApi.Summary, "Create a revision (scope documents.render or documents.preview)"),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, RateLimited],
      [400, 413, 415, 422]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("createPreview", "/api/v2/documents/:documentId/previews")
        .setPath(DocumentPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(RenderRequest)
        .addSuccess(JobResponse.annotations({ description: `${admissionNote} ${replayNote}` }))
        .addSuccess(JobResponse, { status: 202 })
        .annotate(OpenApi.Summary, "Create a preview (scope documents.preview); never uses units"),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, RateLimited, ServiceUnavailable],
      [400, 413, 415, 422]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("createPublication", "/api/v2/documents/:documentId/publishes")
        .setPath(DocumentPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(RenderRequest)
        .addSuccess(JobResponse.annotations({ description: `${admissionNote} ${replayNote}` }))
        .addSuccess(JobResponse, { status: 202 })
        .annotate(OpenApi.Summary, "Create a final publication (scope documents.render); reserves one unit"),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, QuotaExhausted, RateLimited, ServiceUnavailable],
      [400, 413, 415, 422]
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Documents") {}
