/**
 * The artifact store on PostgreSQL: bytes in `artifact_blobs` (migration 0006), so that every
 * process of a cluster reads what any of them rendered, with no folder to share. Each operation is
 * one statement, hence atomic: a reader sees all of a PDF or none of it.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Layer } from "effect"
import { ArtifactStore, StorageUnavailable } from "./store.ts"

/** A database fault is transient for the store's callers, who retry (SqlError's message names no value). */
const unavailable = (what: string) => (error: SqlError.SqlError) => new StorageUnavailable({ message: `${what} failed: ${error.message}` })

export const makeDatabaseStore = Effect.map(SqlClient.SqlClient, (sql) =>
  ArtifactStore.of({
    put: (key, bytes) =>
      sql`insert into artifact_blobs (key, bytes) values (${key}, ${bytes})
          on conflict (key) do update set bytes = excluded.bytes, created_at = now()`.pipe(
        Effect.asVoid,
        Effect.mapError(unavailable("artifact write"))
      ),
    get: (key) =>
      sql<{ bytes: Uint8Array }>`select bytes from artifact_blobs where key = ${key}`.pipe(
        Effect.mapError(unavailable("artifact read")),
        Effect.flatMap(([row]) =>
          row
            ? Effect.succeed(new Uint8Array(row.bytes))
            : Effect.fail(new StorageUnavailable({ message: "artifact read failed: no bytes stored" }))
        )
      ),
    remove: (key) =>
      sql`delete from artifact_blobs where key = ${key}`.pipe(Effect.asVoid, Effect.mapError(unavailable("artifact removal")))
  })
)

export const DatabaseArtifactStoreLive = Layer.effect(ArtifactStore, makeDatabaseStore)
