/**
 * A document's history as the dashboard shows it (contract section 12): its revisions, the jobs
 * made of them (status, error, warnings, provenance) and their artifacts, newest first. The
 * caller has already found the document as its owner's (`Documents.detail`): these read by
 * document only.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ArtifactRow } from "../artifacts/artifact.ts"
import { JobRow } from "../jobs/job.ts"
import { Revision } from "./document.ts"

/** The most jobs a page lists: a document previewed all day has many, and the newest matter. */
export const HISTORY_JOBS = 50

export class DocumentHistory extends Effect.Service<DocumentHistory>()("pressroom/DocumentHistory", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ByDocument = Schema.UUID

    const revisions = SqlSchema.findAll({
      Request: ByDocument,
      Result: Revision,
      execute: (documentId) => sql`select * from revisions where document_id = ${documentId} order by sequence desc`
    })
    const jobs = SqlSchema.findAll({
      Request: ByDocument,
      Result: JobRow,
      execute: (documentId) =>
        sql`select * from jobs where document_id = ${documentId} order by accepted_at desc, id desc limit ${HISTORY_JOBS}`
    })
    const artifacts = SqlSchema.findAll({
      Request: ByDocument,
      Result: ArtifactRow,
      execute: (documentId) => sql`
        select a.* from artifacts a join jobs j on j.id = a.job_id
        where j.document_id = ${documentId} order by a.created_at desc, a.id desc limit ${HISTORY_JOBS}`
    })

    return {
      of: (documentId: string) =>
        Effect.all({ revisions: revisions(documentId), jobs: jobs(documentId), artifacts: artifacts(documentId) }).pipe(Effect.orDie)
    } as const
  })
}) {}
