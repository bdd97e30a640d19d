/**
 * migrations/0011_deleted_means_gone.sql on each database: what earlier versions left of a deleted
 * document (its title, its jobs' render requests and the warnings quoting it, saved idempotency
 * outcomes repeating either) is removed, and what a live document keeps is left alone.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { columnsHolding } from "../helpers/table-scan.ts"

/** The migration's statements after its two functions (which the test database already has). */
const cleanup = readFileSync(join(packageRoot, "migrations", "0011_deleted_means_gone.sql"), "utf8").split(/\n(?=update documents)/)[1]!

/** A document as an earlier version left it, deleted (or still active) with its words everywhere. */
const legacyDocument = (accountId: string, word: string, status: "deleted" | "active") =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const documentId = randomUUID()
    const warnings = JSON.stringify([{ code: "math_reference_unknown", message: `no formula has the label eq:${word}`, line: 3 }])
    yield* sql`
      insert into documents (id, account_id, task_id, title, locale, status, created_at, updated_at, last_activity_at, expires_at, deleted_at)
      values (${documentId}, ${accountId}, 'task', ${`Title ${word}`}, 'en', ${status}, now(), now(), now(), now(), now())`
    yield* sql`
      insert into revisions (id, document_id, sequence, markdown, source_bytes, source_sha256, spec, spec_sha256, created_at)
      values (${randomUUID()}, ${documentId}, 1, ${status === "deleted" ? null : `# ${word}`}, 10, ${"a".repeat(64)},
              '{"locale":"en","templateId":"resume"}'::jsonb, ${"b".repeat(64)}, now())`
    yield* sql`
      insert into jobs (id, account_id, document_id, revision_id, purpose, channel, status, render_request, request_sha256,
                        entitlement, provenance, warnings, accepted_at, queued_at)
      select ${randomUUID()}, ${accountId}, ${documentId}, null, 'preview', 'rest_v2', 'succeeded',
             jsonb_build_object('markdown', ${`# ${word}`}::text), ${"c".repeat(64)}, '{}'::jsonb, '{}'::jsonb, ${warnings}::jsonb, now(), now()`
    yield* sql`
      insert into idempotency_records (account_id, operation, key, request_sha256, state, response_status, response_headers, response_body, expires_at)
      values (${accountId}, 'documents.preview', ${randomUUID()}, ${"d".repeat(64)}, 'completed', 200, '{}'::jsonb,
              ${JSON.stringify({ document: { id: documentId, title: `Title ${word}` }, warnings: JSON.parse(warnings) })},
              now() + interval '1 day')`
    return documentId
  }).pipe(Effect.orDie)

await forEachDatabase(t, async (t, database) => {
  const found = await runWith(
    database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { accountId } = yield* Effect.orDie(insertAccountWithKey())
      yield* legacyDocument(accountId, "goneword", "deleted")
      yield* legacyDocument(accountId, "keptword", "active")
      yield* Effect.orDie(sql.unsafe(cleanup))
      const replay = yield* Effect.orDie(sql<{ body: string }>`
        select response_body as body from idempotency_records where account_id = ${accountId} and response_body not like '%keptword%'`)
      return { gone: yield* columnsHolding("goneword"), kept: yield* columnsHolding("keptword"), replay: JSON.parse(replay[0]!.body) }
    })
  )
  t.same(found.gone, [], "nothing of the deleted document is left")
  t.same(found.kept.sort(), [
    "documents.title",
    "idempotency_records.response_body",
    "jobs.render_request",
    "jobs.warnings",
    "revisions.markdown"
  ])
  t.match(
    found.replay,
    {
      document: { title: null },
      warnings: [{ code: "math_reference_unknown", line: 3, message: "removed with its document" }]
    },
    "the saved outcome keeps its shape"
  )
})
