/**
 * Where a test server's artifact bytes are, by database: files under its data folder when
 * embedded, rows of `artifact_blobs` on PostgreSQL (src/platform.ts, `ArtifactStoreLive`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runWith, type TestDatabase } from "./database.ts"
import type { RunningServer } from "./server.ts"
import type { TestContext } from "./tap.ts"

/** The storage keys of the PDFs `server` holds. */
export const storedPdfs = async (server: RunningServer, database: TestDatabase): Promise<ReadonlyArray<string>> => {
  if (database.kind === "pglite") return readdirSync(join(server.dataDir, "artifacts")).filter((name) => name.endsWith(".pdf"))
  const rows = await runWith(
    database,
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ key: string }>`select key from artifact_blobs`)
  )
  return rows.map((row) => row.key)
}

/**
 * Makes every artifact write of `server` fail until the test ends: the artifact folder becomes a
 * file, or `artifact_blobs` refuses every new row (a constraint no row meets, not checked
 * against the rows already there).
 */
export const breakArtifactWrites = async (t: TestContext, server: RunningServer, database: TestDatabase): Promise<void> => {
  if (database.kind === "pglite") {
    const artifactsDir = join(server.dataDir, "artifacts")
    rmSync(artifactsDir, { recursive: true, force: true })
    writeFileSync(artifactsDir, "not a folder")
    t.teardown(() => {
      rmSync(artifactsDir, { force: true })
      mkdirSync(artifactsDir, { recursive: true })
    })
    return
  }
  const alter = (statement: string) =>
    runWith(
      database,
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement))
    )
  await alter("alter table artifact_blobs add constraint test_unwritable check (false) not valid")
  t.teardown(() => alter("alter table artifact_blobs drop constraint test_unwritable"))
}
