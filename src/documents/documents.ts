/**
 * Managed documents (specification 2.4 to 2.6, contract section 5): creation with a first
 * revision, revisions, reads, and deletion. A deletion has two steps. `delete` marks the document
 * `deleting`, cancels its unfinished jobs and withdraws its artifacts, in one transaction;
 * `finishDeletion` then, once no job of it is still running, removes its artifacts' bytes (those
 * no other artifact shares, src/artifacts/shared-bytes.ts), its title, its revisions' source and
 * every copy of its words (its jobs' render requests and warnings, saved idempotency outcomes),
 * and marks it `deleted`. The second step
 * runs right after the first, when the last running job of a deleting document ends (in every
 * process, which the row lock serialises), and again from the sweeper, which also finishes
 * deletions a crash interrupted and deletes documents whose source window lapsed.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Queue } from "effect"
import { randomUUID } from "node:crypto"
import { memberOf, type Principal } from "../accounts/principal.ts"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { unreferencedBytesRemover } from "../artifacts/shared-bytes.ts"
import { makeIdempotencyRecords } from "../idempotency/records.ts"
import * as JobErrors from "../jobs/job-errors.ts"
import { JobStore } from "../jobs/job-store.ts"
import { JobLifecycle } from "../jobs/lifecycle.ts"
import { JobSignals, SIGNALS } from "../jobs/signals.ts"
import { InvalidRequest, InvalidStateTransition, NotFound } from "../shared/errors.ts"
import { jcsSha256, sha256Hex } from "../shared/hash.ts"
import { documentWindowSeconds } from "./config.ts"
import type { Document, Revision, StoredSpec } from "./document.ts"
import type { CursorPosition } from "../shared/pagination.ts"
import { DocumentStore } from "./store.ts"

/** A revision as the client submits it, its content already checked (revision-request.ts). */
export interface RevisionInput {
  readonly markdown: string
  readonly parentRevisionId: string | null
  readonly spec: StoredSpec
}

export type DeletionStatus = "accepted" | "already_deleting" | "already_deleted"

const documentNotFound = new NotFound({ resource: "document" })

/** Work on a document is refused unless it is active (contract section 5). */
const requireActive = (document: Document) =>
  document.status === "active"
    ? Effect.void
    : Effect.fail(new InvalidStateTransition({ currentState: document.status, expectedStates: ["active"] }))

export class Documents extends Effect.Service<Documents>()("pressroom/Documents", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* DocumentStore
    const jobs = yield* JobStore
    const lifecycle = yield* JobLifecycle
    const artifacts = yield* ArtifactRepository
    const removeUnreferenced = yield* unreferencedBytesRemover
    const windowSeconds = yield* documentWindowSeconds
    const signals = yield* JobSignals
    const savedOutcomes = yield* makeIdempotencyRecords

    const owned = (principal: Principal, document: Option.Option<Document>) =>
      Option.isSome(document) && document.value.accountId === principal.accountId
        ? Effect.succeed(document.value)
        : Effect.fail(documentNotFound)

    const find = (principal: Principal, documentId: string) =>
      Effect.flatMap(store.find(documentId), (document) => owned(principal, document))

    /** A new revision, which records the member who made it (none for a key's, contract section 12). */
    const insertRevision = (principal: Principal, documentId: string, input: RevisionInput) =>
      store.insertRevision({
        id: randomUUID(),
        documentId,
        parentRevisionId: input.parentRevisionId,
        markdown: input.markdown,
        sourceBytes: Buffer.byteLength(input.markdown, "utf8"),
        sourceSha256: sha256Hex(input.markdown),
        spec: input.spec,
        specSha256: jcsSha256(input.spec),
        createdByMemberId: memberOf(principal)
      })

    /** A revision of `document`, or 422: a revision of another document is not this one's (contract section 3). */
    const revisionOf = (document: Document, revisionId: string, field: string) =>
      Effect.flatMap(store.findRevision(revisionId), (revision) =>
        Option.isSome(revision) && revision.value.documentId === document.id
          ? Effect.succeed(revision.value)
          : Effect.fail(InvalidRequest.unprocessable(`${field}: not a revision of this document`, field))
      )

    /**
     * Marks the document deleting, cancels its unfinished jobs and withdraws its artifacts; the
     * caller holds its lock. Its jobs are locked and decided on as they then stand: a queued one
     * ends cancelled here; a running one is asked to stop, and the fence of its success
     * transaction (which waits for these locks) then refuses it, so it ends cancelled too. No job
     * can be admitted meanwhile: admission locks the document first (forRender).
     */
    const beginDeletion = (document: Document) =>
      Effect.gen(function* () {
        const marked = yield* store.markDeleting(document.id)
        const owned = yield* jobs.lockOfDocument(document.id)
        for (const job of owned) {
          if (job.status === "running") yield* jobs.requestCancel(job.id)
          else if (job.status === "queued" || job.status === "accepted") {
            yield* lifecycle.endUnclaimed(job, "cancelled", JobErrors.cancelled())
          }
        }
        yield* artifacts.withdraw(owned.map((job) => job.id))
        return marked
      })

    /**
     * Finishes a deletion once none of the document's jobs runs: bytes, source and copies go, in
     * one transaction (bytes kept in the database go with it; a file removed before a crash is
     * removed again, harmlessly, on the next pass). Answers the document as it then stands.
     */
    const finishDeletion = (documentId: string) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const document = Option.getOrThrow(yield* store.lock(documentId))
          if (document.status !== "deleting") return document
          const owned = yield* jobs.ofDocument(documentId)
          if (owned.some((job) => job.status === "running" || job.status === "queued" || job.status === "accepted")) return document
          // Jobs before artifacts: the lock order (ARCHITECTURE.md, "Invariants").
          yield* jobs.scrubSource(documentId)
          const keys = yield* artifacts.markDeleted(owned.map((job) => job.id))
          yield* removeUnreferenced(keys)
          yield* savedOutcomes.scrubDocument(document.accountId, documentId)
          return yield* store.markDeleted(documentId)
        })
      )

    // A job of a deleting document that ends may be the last one the deletion waits for.
    const ended = yield* signals.subscribe(SIGNALS.jobEnded)
    yield* Queue.take(ended).pipe(
      Effect.flatMap(jobs.find),
      Effect.flatMap((job) =>
        Option.isSome(job) && job.value.documentId !== null ? store.find(job.value.documentId) : Effect.succeed(Option.none())
      ),
      Effect.flatMap((document) =>
        Option.isSome(document) && document.value.status === "deleting" ? finishDeletion(document.value.id) : Effect.void
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("deletion left to the sweeper", cause)),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      find,

      /** The document and its latest revision. */
      detail: (principal: Principal, documentId: string) =>
        Effect.gen(function* () {
          const document = yield* find(principal, documentId)
          const latest = document.latestRevisionId === null ? Option.none() : yield* store.findRevision(document.latestRevisionId)
          return { document, latestRevision: Option.getOrNull(latest) }
        }),

      /** Creates a document with its first revision, in one transaction. */
      create: (principal: Principal, input: { taskId: string; title: string | null; revision: RevisionInput }) =>
        Effect.gen(function* () {
          if (input.revision.parentRevisionId !== null) {
            return yield* Effect.fail(
              InvalidRequest.unprocessable(
                "revision.parentRevisionId: a new document has no revisions yet; send null",
                "revision.parentRevisionId"
              )
            )
          }
          return yield* sql.withTransaction(
            Effect.gen(function* () {
              const created = yield* store.insertDocument({
                id: randomUUID(),
                accountId: principal.accountId,
                taskId: input.taskId,
                title: input.title,
                locale: input.revision.spec.locale,
                windowSeconds,
                createdByMemberId: memberOf(principal)
              })
              const revision = yield* insertRevision(principal, created.id, input.revision)
              const document = Option.getOrThrow(yield* store.find(created.id))
              return { document, revision }
            })
          )
        }).pipe(Effect.catchTag("SqlError", Effect.die)),

      /** Adds a revision; its parent, when named, must be one of the document's own (422). */
      revise: (principal: Principal, documentId: string, input: RevisionInput) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const document = yield* Effect.flatMap(store.lock(documentId), (found) => owned(principal, found))
              yield* requireActive(document)
              if (input.parentRevisionId !== null) yield* revisionOf(document, input.parentRevisionId, "parentRevisionId")
              const revision = yield* insertRevision(principal, documentId, input)
              yield* store.touch(documentId, windowSeconds)
              return { document: Option.getOrThrow(yield* store.find(documentId)), revision }
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die)),

      /**
       * The document and revision a preview or publication renders: the document active (409),
       * the revision its own (422). Moves the document's window forward. Runs inside the
       * admission's transaction and locks the document for the rest of it, as `delete` does.
       */
      forRender: (principal: Principal, documentId: string, revisionId: string) =>
        Effect.gen(function* () {
          const document = yield* Effect.flatMap(store.lock(documentId), (found) => owned(principal, found))
          yield* requireActive(document)
          const revision: Revision = yield* revisionOf(document, revisionId, "revisionId")
          yield* store.touch(documentId, windowSeconds)
          return { document, revision }
        }),

      list: (principal: Principal, limit: number, after: CursorPosition | null) => store.list(principal.accountId, limit, after),

      /** DELETE: 202 with `accepted`, or `already_deleting` / `already_deleted` for a repeat (contract section 5). */
      delete: (principal: Principal, documentId: string) =>
        Effect.gen(function* () {
          const begun = yield* sql.withTransaction(
            Effect.gen(function* () {
              const document = yield* Effect.flatMap(store.lock(documentId), (found) => owned(principal, found))
              if (document.status === "deleted") return { status: "already_deleted" as DeletionStatus, document }
              if (document.status === "deleting") return { status: "already_deleting" as DeletionStatus, document }
              return { status: "accepted" as DeletionStatus, document: yield* beginDeletion(document) }
            })
          )
          if (begun.status !== "accepted") return begun
          const finished = yield* finishDeletion(documentId).pipe(
            Effect.catchAll((error) => Effect.as(Effect.logWarning("deletion left to the sweeper", error), begun.document))
          )
          return { status: begun.status, document: finished }
        }).pipe(Effect.catchTag("SqlError", Effect.die)),

      /**
       * The sweeper's part: documents whose window lapsed are deleted as DELETE would, and
       * deletions still pending are finished. Safe in every process at once (row locks).
       */
      sweep: Effect.gen(function* () {
        const due = yield* store.due
        for (const { id, status } of due) {
          if (status === "active") {
            yield* sql.withTransaction(
              Effect.gen(function* () {
                const document = Option.getOrThrow(yield* store.lock(id))
                if (document.status === "active" && document.expiresAt.getTime() <= Date.now()) yield* beginDeletion(document)
              })
            )
          }
          yield* finishDeletion(id).pipe(Effect.catchAll((error) => Effect.logWarning("deletion not finished yet", error)))
        }
      }).pipe(Effect.catchTag("SqlError", Effect.die))
    } as const
  })
}) {}
