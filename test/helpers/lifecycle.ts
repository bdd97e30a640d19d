/**
 * What the v2 lifecycle tests share: documents that keep a render busy, waiting for a condition a
 * client can observe, and where an artifact's bytes could still be (a file of the local store, or
 * a row of `artifact_blobs` on PostgreSQL).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { runWith, type TestDatabase } from "./database.ts"

/**
 * 186,000 characters of one table: it takes far longer to typeset than a few seconds, so it holds
 * the one render worker until it is cancelled or passes the server's PRESSROOM_RENDER_TIMEOUT_MS
 * (then it fails with rendering_failed, the document's fault).
 */
export const slowTable = `| a | b | c | d |\n|---|---|---|---|\n${"| xx yy | zz ww | 12.5 | *e* |\n".repeat(6000)}`

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it answers something truthy, or throws after `timeoutMs` naming `what`. */
export const until = async <A>(what: string, check: () => Promise<A>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/**
 * Whether any copy of the artifact's bytes is left: a file of the local store under the server's
 * data folder, or (PostgreSQL) a row of `artifact_blobs`. Read while the server runs, which only
 * PostgreSQL allows; on PGlite only the folder is looked at.
 */
export const storedCopies = async (database: TestDatabase, dataDir: string, artifactId: string): Promise<number> => {
  const folder = join(dataDir, "artifacts")
  const files = existsSync(folder) ? readdirSync(folder).filter((name) => name.includes(artifactId)).length : 0
  if (database.kind !== "postgres") return files
  const rows = await runWith(
    database,
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select 1 from artifact_blobs where key like ${`%${artifactId}%`}`).pipe(Effect.orDie)
  )
  return files + rows.length
}
