/**
 * The document operations as values, for every channel that offers them: the REST handlers
 * (http.ts) answer them as responses, the MCP tools (src/mcp/) as tool results. Each one is
 * called after admission (scope, rate class, and for a mutation its idempotency key).
 */
import { type Duration, Effect } from "effect"
import type { Principal } from "../accounts/principal.ts"
import { Jobs } from "../jobs/jobs.ts"
import type { Channel } from "../render/provenance.ts"
import { Cursors } from "../shared/cursor.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { DEFAULT_PAGE, pageOf } from "../shared/pagination.ts"
import type {
  CreateDocumentRequest,
  CreateRevisionRequest,
  DocumentDetailResponse,
  DocumentListResponse,
  DocumentResponse,
  RenderRequest,
  RevisionCreated
} from "./api.ts"
import { toDocumentResource, toRevisionRecord } from "./document.ts"
import { Documents } from "./documents.ts"
import { checkRevision, checkTitle, renderSpecOf } from "./revision-request.ts"

export const linksOf = (documentId: string) => {
  const self = `/api/v2/documents/${documentId}`
  return { self, revisions: `${self}/revisions`, preview: `${self}/previews`, publish: `${self}/publishes` }
}

/** A document with its first revision. */
export const createDocument = (principal: Principal, request: CreateDocumentRequest) =>
  Effect.gen(function* () {
    const title = yield* checkTitle(request.title)
    const revision = yield* checkRevision(request.revision, "revision.")
    const created = yield* (yield* Documents).create(principal, { taskId: request.taskId, title, revision })
    return {
      contractVersion: CONTRACT_VERSION,
      document: toDocumentResource(created.document),
      links: linksOf(created.document.id),
      revision: toRevisionRecord(created.revision)
    } satisfies typeof DocumentResponse.Type
  })

/** A new revision of an active document. */
export const createRevision = (principal: Principal, documentId: string, request: CreateRevisionRequest) =>
  Effect.gen(function* () {
    const input = yield* checkRevision(request)
    const { document, revision } = yield* (yield* Documents).revise(principal, documentId, input)
    const links = linksOf(document.id)
    return {
      contractVersion: CONTRACT_VERSION,
      documentId: document.id,
      revision: toRevisionRecord(revision),
      links: { document: links.self, preview: links.preview, publish: links.publish }
    } satisfies typeof RevisionCreated.Type
  })

export const getDocument = (principal: Principal, documentId: string) =>
  Effect.gen(function* () {
    const { document, latestRevision } = yield* (yield* Documents).detail(principal, documentId)
    return {
      contractVersion: CONTRACT_VERSION,
      document: toDocumentResource(document),
      latestRevision: latestRevision && toRevisionRecord(latestRevision),
      links: linksOf(document.id)
    } satisfies typeof DocumentDetailResponse.Type
  })

/** One page of the owner's documents, newest first, after `cursor`. */
export const listDocuments = (principal: Principal, query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const cursors = yield* Cursors
    const limit = query.limit ?? DEFAULT_PAGE
    const after = query.cursor === undefined ? null : yield* cursors.decode(principal.accountId, query.cursor)
    const page = pageOf(yield* (yield* Documents).list(principal, limit + 1, after), limit, (position) =>
      cursors.encode(principal.accountId, position)
    )
    return {
      contractVersion: CONTRACT_VERSION,
      documents: page.items.map(({ document }) => toDocumentResource(document)),
      pagination: page.pagination
    } satisfies typeof DocumentListResponse.Type
  })

/**
 * A preview or publication: the revision's render, admitted as a job of `channel` and awaited up
 * up to `threshold` (the synchronous threshold). The job as it stands then; a client that stops waiting leaves the
 * job to run, and its result stays readable as the job.
 */
export const renderRevision = (
  principal: Principal,
  documentId: string,
  request: RenderRequest,
  purpose: "preview" | "final",
  channel: Channel,
  requestSha256: string,
  threshold: Duration.Duration
) =>
  Effect.gen(function* () {
    const documents = yield* Documents
    // Read inside the admission's transaction, the document stays locked until its job is
    // written: a deletion either waits and then cancels the job, or commits first and this is 409.
    const admitting = Effect.gen(function* () {
      const { revision } = yield* documents.forRender(principal, documentId, request.revisionId)
      const spec = yield* renderSpecOf(revision, request)
      return { principal, purpose, channel, spec, requestSha256, documentId, revisionId: revision.id } as const
    })
    return yield* (yield* Jobs).admitAndAwait(admitting, threshold, () => Effect.void)
  })
