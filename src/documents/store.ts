/**
 * The `documents` and `revisions` tables. Rows are decoded by the schemas of document.ts; a row
 * that does not decode is a defect, as is a failing statement (no caller can act on either).
 * Writes that belong together run inside the caller's transaction (`Documents`).
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, type Option, Schema } from "effect"
import { CursorPosition } from "../shared/pagination.ts"
import { Document, DocumentStatus, Revision, type StoredSpec } from "./document.ts"

export interface NewRevision {
  readonly id: string
  readonly documentId: string
  readonly parentRevisionId: string | null
  readonly markdown: string
  readonly sourceBytes: number
  readonly sourceSha256: string
  readonly spec: StoredSpec
  readonly specSha256: string
  /** The member who made it in the dashboard; null for a key's. */
  readonly createdByMemberId: string | null
}

/** A document of a list page, with its place in the list's order (`cursor.ts`). */
const Listed = Schema.Struct({ document: Schema.typeSchema(Document), position: CursorPosition })

const ListedRow = Schema.transform(Schema.Struct({ ...Document.fields, position_at: Schema.String }), Listed, {
  strict: true,
  decode: ({ position_at, ...document }) => ({ document, position: { createdAt: position_at, id: document.id } }),
  encode: ({ document, position }) => ({ ...document, position_at: position.createdAt })
})

const json = (value: unknown) => JSON.stringify(value)

export class DocumentStore extends Effect.Service<DocumentStore>()("pressroom/DocumentStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const documentById = (lock: boolean) =>
      SqlSchema.findOne({
        Request: Schema.UUID,
        Result: Document,
        execute: (id) => (lock ? sql`select * from documents where id = ${id} for update` : sql`select * from documents where id = ${id}`)
      })
    const revisionById = SqlSchema.findOne({
      Request: Schema.UUID,
      Result: Revision,
      execute: (id) => sql`select * from revisions where id = ${id}`
    })
    const listPage = SqlSchema.findAll({
      Request: Schema.Struct({
        accountId: Schema.UUID,
        limit: Schema.Int,
        after: Schema.NullOr(CursorPosition)
      }),
      Result: ListedRow,
      execute: ({ accountId, after, limit }) =>
        after === null
          ? sql`
              select *, created_at::text as position_at from documents where account_id = ${accountId} and status <> 'deleted'
              order by created_at desc, id desc limit ${limit}`
          : sql`
              select *, created_at::text as position_at from documents where account_id = ${accountId} and status <> 'deleted'
                and (created_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)
              order by created_at desc, id desc limit ${limit}`
    })
    const decodeDocument = (rows: ReadonlyArray<unknown>) => Schema.decodeUnknown(Document)(rows[0])
    const decodeRevision = (rows: ReadonlyArray<unknown>) => Schema.decodeUnknown(Revision)(rows[0])

    return {
      find: (id: string): Effect.Effect<Option.Option<Document>> => Effect.orDie(documentById(false)(id)),
      /** The document, locked for the rest of the caller's transaction. */
      lock: (id: string): Effect.Effect<Option.Option<Document>> => Effect.orDie(documentById(true)(id)),
      findRevision: (id: string): Effect.Effect<Option.Option<Revision>> => Effect.orDie(revisionById(id)),

      /** A page of the owner's documents, newest first, after `after` (exclusive), each with its position. */
      list: (accountId: string, limit: number, after: CursorPosition | null) => Effect.orDie(listPage({ accountId, limit, after })),

      insertDocument: (document: {
        id: string
        accountId: string
        taskId: string
        title: string | null
        locale: string
        windowSeconds: number
        createdByMemberId: string | null
      }) =>
        sql`
          insert into documents (id, account_id, task_id, title, locale, status, created_at, updated_at, last_activity_at, expires_at,
                                 created_by_member_id)
          values (${document.id}, ${document.accountId}, ${document.taskId}, ${document.title}, ${document.locale}, 'active',
                  now(), now(), now(),
                  now() + ${document.windowSeconds} * interval '1 second', ${document.createdByMemberId})
          returning *`.pipe(Effect.flatMap(decodeDocument), Effect.orDie),

      /** Adds the document's next revision (sequence 1, 2, 3 …) and makes it the latest; the document is locked by the caller. */
      insertRevision: (revision: NewRevision) =>
        sql`
          insert into revisions (id, document_id, parent_revision_id, sequence, markdown, source_bytes, source_sha256,
                                 spec, spec_sha256, created_at, created_by_member_id)
          values (${revision.id}, ${revision.documentId}, ${revision.parentRevisionId},
                  (select revision_count + 1 from documents where id = ${revision.documentId}),
                  ${revision.markdown}, ${revision.sourceBytes}, ${revision.sourceSha256},
                  ${json(revision.spec)}::jsonb, ${revision.specSha256}, now(), ${revision.createdByMemberId})
          returning *`.pipe(
          Effect.flatMap(decodeRevision),
          Effect.tap(
            (inserted) =>
              sql`
              update documents set latest_revision_id = ${inserted.id}, revision_count = ${inserted.sequence},
                                   locale = ${revision.spec.locale}, updated_at = now()
              where id = ${revision.documentId}`
          ),
          Effect.orDie
        ),

      /** Activity (a revision, a preview, a publication) moves the document's source window forward. */
      touch: (id: string, windowSeconds: number) =>
        sql`
          update documents set last_activity_at = now(), expires_at = now() + ${windowSeconds} * interval '1 second'
          where id = ${id} and status = 'active'`.pipe(Effect.asVoid, Effect.orDie),

      markDeleting: (id: string) =>
        sql`
          update documents set status = 'deleting', delete_requested_at = now(), updated_at = now()
          where id = ${id} and status = 'active' returning *`.pipe(Effect.flatMap(decodeDocument), Effect.orDie),

      /**
       * The last step of a deletion: the revisions' source and the title go (hashes and sizes
       * stay) and the document becomes deleted.
       */
      markDeleted: (id: string) =>
        Effect.zipRight(
          sql`update revisions set markdown = null where document_id = ${id}`,
          sql`update documents set status = 'deleted', title = null, deleted_at = now(), updated_at = now() where id = ${id} returning *`
        ).pipe(Effect.flatMap(decodeDocument), Effect.orDie),

      /** Active documents whose window lapsed, and deletions not yet finished (a crash, or jobs that were still running). */
      due: Effect.orDie(
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ id: Schema.String, status: DocumentStatus }),
          execute: () => sql`
        (select id, status from documents where status = 'active' and expires_at <= now() order by expires_at limit 100)
        union all
        (select id, status from documents where status = 'deleting' order by delete_requested_at limit 100)`
        })(undefined)
      )
    } as const
  })
}) {}

export type { Document, Revision }
