/**
 * The artifact store on PostgreSQL: bytes in `artifact_blobs` (migration 0006), so that every
 * process of a cluster reads what any of them rendered, with no folder to share. Each operation is
 * one statement, hence atomic: a reader sees all of a PDF or none of it.
 */
import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { ArtifactStore, StorageUnavailable } from "./store.ts"

/** A database fault is transient for the store's callers, who retry (SqlError's message names no value). */
const unavailable = (what: string) => (error: SqlError.SqlError) => new StorageUnavailable({ message: `${what} failed: ${error.message}` })

export const makeDatabaseStore = Effect.map(SqlClient.SqlClient, (sql) => {
  // `bytea`: a Buffer from node-postgres, a Uint8Array from PGlite; a Buffer is a Uint8Array.
  const blob = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ bytes: Schema.Uint8ArrayFromSelf }),
    execute: (key) => sql`select bytes from artifact_blobs where key = ${key}`
  })
  return ArtifactStore.of({
    put: (key, bytes) =>
      sql`insert into artifact_blobs (key, bytes) values (${key}, ${bytes})
          on conflict (key) do update set bytes = excluded.bytes, created_at = now()`.pipe(
        Effect.asVoid,
        Effect.mapError(unavailable("artifact write"))
      ),
    get: (key) =>
      blob(key).pipe(
        Effect.catchTag("ParseError", Effect.die),
        Effect.mapError(unavailable("artifact read")),
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new StorageUnavailable({ message: "artifact read failed: no bytes stored" })),
            onSome: (row) => Effect.succeed(new Uint8Array(row.bytes))
          })
        )
      ),
    remove: (key) =>
      sql`delete from artifact_blobs where key = ${key}`.pipe(Effect.asVoid, Effect.mapError(unavailable("artifact removal")))
  })
})

export const DatabaseArtifactStoreLive = Layer.effect(ArtifactStore, makeDatabaseStore)
