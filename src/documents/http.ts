/**
 * The document endpoints, each admitted by `Admission` (scope, rate class, and for a mutation its
 * Idempotency-Key), then an operation of operations.ts answered as a response; previews and
 * publications are jobs of channel `rest_v2`, awaited up to the synchronous threshold.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, type Schema } from "effect"
import { Admission } from "../admission/admission.ts"
import { PressroomApi } from "../http/api.ts"
import { JobResponses } from "../jobs/job-response.ts"
import type { Jobs } from "../jobs/jobs.ts"
import { syncThresholdMs } from "../jobs/sync-threshold.ts"
import type { Cursors } from "../shared/cursor.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { DeletionResponse, DocumentResponse, RevisionCreated } from "./api.ts"
import { documentRetention } from "./document.ts"
import { Documents } from "./documents.ts"
import { createDocument, createRevision, getDocument, listDocuments, renderRevision } from "./operations.ts"

/** A response built here rather than by the endpoint, so that `Idempotency` can save it with its headers. */
const json = <A, I>(schema: Schema.Schema<A, I>, body: NoInfer<A>, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.schemaJson(schema)(body, { status, headers }).pipe(Effect.orDie)

export const DocumentsHandlers = HttpApiBuilder.group(PressroomApi, "documents", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const documents = yield* Documents
    const responses = yield* JobResponses
    const threshold = Duration.millis(yield* syncThresholdMs)
    const context = yield* Effect.context<Documents | Jobs | Cursors>()

    return handlers
      .handle("create", ({ headers, payload }) =>
        admission.mutate(
          ["documents.render", "documents.preview"],
          "write",
          { operation: "documents.create", key: headers["idempotency-key"], pathParams: {}, body: payload },
          (principal) =>
            Effect.flatMap(createDocument(principal, payload), (created) =>
              json(DocumentResponse, created, 201, { location: created.links.self })
            ).pipe(Effect.provide(context))
        )
      )
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(admission.admit("documents.read", "read"), (principal) => listDocuments(principal, urlParams)).pipe(
          Effect.provide(context)
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(admission.admit("documents.read", "read"), (principal) => getDocument(principal, path.documentId)).pipe(
          Effect.provide(context)
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
            Effect.flatMap(createRevision(principal, path.documentId, payload), (created) => json(RevisionCreated, created, 201)).pipe(
              Effect.provide(context)
            )
        )
      )
      .handle("createPreview", ({ headers, path, payload }) =>
        admission.mutate(
          "documents.preview",
          "preview",
          { operation: "documents.preview", key: headers["idempotency-key"], pathParams: { documentId: path.documentId }, body: payload },
          (principal, requestSha256) =>
            renderRevision(principal, path.documentId, payload, "preview", "rest_v2", requestSha256, threshold).pipe(
              Effect.flatMap((job) => responses.response(job)),
              Effect.provide(context)
            )
        )
      )
      .handle("createPublication", ({ headers, path, payload }) =>
        admission.mutate(
          "documents.render",
          "publish",
          { operation: "documents.publish", key: headers["idempotency-key"], pathParams: { documentId: path.documentId }, body: payload },
          (principal, requestSha256) =>
            renderRevision(principal, path.documentId, payload, "final", "rest_v2", requestSha256, threshold).pipe(
              Effect.flatMap((job) => responses.response(job)),
              Effect.provide(context)
            )
        )
      )
  })
)
