/**
 * The document endpoints, each admitted by `Admission` (scope, rate class, and for a mutation its
 * Idempotency-Key), then a call of `Documents`; previews and publications are jobs of channel
 * `rest_v2` (render-job.ts), awaited up to the synchronous threshold.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, type Schema } from "effect"
import type { Principal } from "../accounts/principal.ts"
import { Admission } from "../admission/admission.ts"
import { PressroomApi } from "../http/api.ts"
import { JobResponses } from "../jobs/job-response.ts"
import { syncThresholdMs } from "../jobs/sync-threshold.ts"
import { Cursors } from "../shared/cursor.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { DEFAULT_PAGE, pageOf } from "../shared/pagination.ts"
import { DeletionResponse, DocumentResponse, type RenderRequest, RevisionCreated } from "./api.ts"
import { type Document, documentRetention, type Revision, toDocumentResource, toRevisionRecord } from "./document.ts"
import { Documents } from "./documents.ts"
import { renderJob } from "./render-job.ts"
import { checkRevision, checkTitle } from "./revision-request.ts"

const linksOf = (documentId: string) => {
  const self = `/api/v2/documents/${documentId}`
  return { self, revisions: `${self}/revisions`, preview: `${self}/previews`, publish: `${self}/publishes` }
}

/** A response built here rather than by the endpoint, so that `Idempotency` can save it with its headers. */
const json = <A, I>(schema: Schema.Schema<A, I>, body: NoInfer<A>, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.schemaJson(schema)(body, { status, headers }).pipe(Effect.orDie)

export const DocumentsHandlers = HttpApiBuilder.group(PressroomApi, "documents", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const documents = yield* Documents
    const responses = yield* JobResponses
    const cursors = yield* Cursors
    const threshold = Duration.millis(yield* syncThresholdMs)

    /** A preview or publication: the revision's render, a `rest_v2` job awaited up to the threshold. */
    const render = (
      principal: Principal,
      documentId: string,
      request: RenderRequest,
      purpose: "preview" | "final",
      requestSha256: string
    ) =>
      Effect.flatMap(
        renderJob({ principal, documentId, request, purpose, channel: "rest_v2", requestSha256, threshold }),
        responses.response
      )

    const revisionCreated = (document: Document, revision: Revision) => {
      const links = linksOf(document.id)
      return json(
        RevisionCreated,
        {
          contractVersion: CONTRACT_VERSION,
          documentId: document.id,
          revision: toRevisionRecord(revision),
          links: { document: links.self, preview: links.preview, publish: links.publish }
        },
        201
      )
    }

    return handlers
      .handle("create", ({ headers, payload }) =>
        admission.mutate(
          ["documents.render", "documents.preview"],
          "write",
          { operation: "documents.create", key: headers["idempotency-key"], pathParams: {}, body: payload },
          (principal) =>
            Effect.gen(function* () {
              const title = yield* checkTitle(payload.title)
              const revision = yield* checkRevision(payload.revision, "revision.")
              const created = yield* documents.create(principal, { taskId: payload.taskId, title, revision })
              return yield* json(
                DocumentResponse,
                {
                  contractVersion: CONTRACT_VERSION,
                  document: toDocumentResource(created.document),
                  links: linksOf(created.document.id),
                  revision: toRevisionRecord(created.revision)
                },
                201,
                { location: `/api/v2/documents/${created.document.id}` }
              )
            })
        )
      )
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const principal = yield* admission.admit("documents.read", "read")
          const limit = urlParams.limit ?? DEFAULT_PAGE
          const after = urlParams.cursor === undefined ? null : yield* cursors.decode(principal.accountId, urlParams.cursor)
          const page = pageOf(yield* documents.list(principal, limit + 1, after), limit, (position) =>
            cursors.encode(principal.accountId, position)
          )
          return {
            contractVersion: CONTRACT_VERSION,
            documents: page.items.map(({ document }) => toDocumentResource(document)),
            pagination: page.pagination
          } as const
        })
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(admission.admit("documents.read", "read"), (principal) =>
          Effect.map(documents.detail(principal, path.documentId), ({ document, latestRevision }) => ({
            contractVersion: CONTRACT_VERSION,
            document: toDocumentResource(document),
            latestRevision: latestRevision && toRevisionRecord(latestRevision),
            links: linksOf(document.id)
          }))
        )
      )
      .handle("delete", ({ headers, path }) =>
        admission.mutate(
          "documents.render",
          "write",
          { operation: "documents.delete", key: headers["idempotency-key"], pathParams: { documentId: path.documentId }, body: null },
          (principal) =>
            Effect.flatMap(documents.delete(principal, path.documentId), ({ document, status }) =>
              json(
                DeletionResponse,
                { contractVersion: CONTRACT_VERSION, documentId: document.id, retention: documentRetention(document), status },
                202
              )
            )
        )
      )
      .handle("createRevision", ({ headers, path, payload }) =>
        admission.mutate(
          ["documents.render", "documents.preview"],
          "write",
          { operation: "documents.revise", key: headers["idempotency-key"], pathParams: { documentId: path.documentId }, body: payload },
          (principal) =>
            Effect.gen(function* () {
              const input = yield* checkRevision(payload)
              const { document, revision } = yield* documents.revise(principal, path.documentId, input)
              return yield* revisionCreated(document, revision)
            })
        )
      )
      .handle("createPreview", ({ headers, path, payload }) =>
        admission.mutate(
          "documents.preview",
          "preview",
          { operation: "documents.preview", key: headers["idempotency-key"], pathParams: { documentId: path.documentId }, body: payload },
          (principal, requestSha256) => render(principal, path.documentId, payload, "preview", requestSha256)
        )
      )
      .handle("createPublication", ({ headers, path, payload }) =>
        admission.mutate(
          "documents.render",
          "publish",
          { operation: "documents.publish", key: headers["idempotency-key"], pathParams: { documentId: path.documentId }, body: payload },
          (principal, requestSha256) => render(principal, path.documentId, payload, "final", requestSha256)
        )
      )
  })
)
