/** Artifact rows (specification 2.11): one per succeeded job, with the SHA-256 and size of its bytes (artifact.ts). */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Config, Effect, type Option, Schema } from "effect"
import { type Artifact, ArtifactRow } from "./artifact.ts"

export interface NewArtifact {
  readonly id: string
  readonly accountId: string
  readonly jobId: string
  readonly revisionId: string | null
  readonly purpose: "preview" | "final"
  readonly filename: string
  readonly bytes: number
  readonly pageCount: number
  readonly sha256: string
  readonly storageKey: string
}

/** Lifetimes after finalisation (contract section 1): previews 15 minutes, finals seven days. */
const lifetime = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be at least 1`, validation: (n) => n >= 1 })
  )

export const retentionConfig = Config.all({
  previewTtlSeconds: lifetime("PRESSROOM_PREVIEW_TTL_SECONDS", 900),
  finalTtlSeconds: lifetime("PRESSROOM_FINAL_TTL_SECONDS", 604_800)
})

/** The storage key of an artifact's bytes: its id, so that nothing a client sends reaches a path. */
export const storageKeyOf = (artifactId: string) => `${artifactId}.pdf`

export class ArtifactRepository extends Effect.Service<ArtifactRepository>()("pressroom/ArtifactRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const retention = yield* retentionConfig
    const findById = SqlSchema.findOne({
      Request: Schema.UUID,
      Result: ArtifactRow,
      execute: (artifactId) => sql`select * from artifacts where id = ${artifactId}`
    })
    return {
      insert: (artifact: NewArtifact) => {
        const ttl = artifact.purpose === "preview" ? retention.previewTtlSeconds : retention.finalTtlSeconds
        return sql`
          insert into artifacts (id, account_id, job_id, revision_id, status, filename, bytes, page_count, sha256,
                                 storage_key, created_at, finalized_at, expires_at)
          values (${artifact.id}, ${artifact.accountId}, ${artifact.jobId}, ${artifact.revisionId}, 'available',
                  ${artifact.filename}, ${artifact.bytes}, ${artifact.pageCount}, ${artifact.sha256},
                  ${artifact.storageKey}, now(), now(), now() + ${ttl} * interval '1 second')
          returning expires_at`.pipe(
          Effect.map((rows) => (rows[0] as { expires_at: Date }).expires_at),
          Effect.orDie
        )
      },
      /** Marks every available artifact past its `expiresAt` as expired; returns their storage keys, whose bytes must go. */
      expireDue: sql<{ storage_key: string }>`
        update artifacts set status = 'expired'
        where id in (select id from artifacts where status = 'available' and expires_at <= now() limit 500 for update skip locked)
        returning storage_key`.pipe(
        Effect.map((rows) => rows.map((row) => row.storage_key)),
        Effect.orDie
      ),

      /** Withdraws the artifacts of `jobIds` from use (their document is being deleted): no download or link serves them. */
      withdraw: (jobIds: ReadonlyArray<string>) =>
        jobIds.length === 0
          ? Effect.void
          : sql`
              update artifacts set status = 'deleting', delete_requested_at = coalesce(delete_requested_at, now())
              where job_id in ${sql.in(jobIds)} and status in ('available', 'expired')`.pipe(Effect.asVoid, Effect.orDie),

      /** Marks the artifacts of `jobIds` deleted; returns the storage keys whose bytes must go. */
      markDeleted: (jobIds: ReadonlyArray<string>) =>
        jobIds.length === 0
          ? Effect.succeed([] as ReadonlyArray<string>)
          : sql<{ storage_key: string }>`
              update artifacts set status = 'deleted', delete_requested_at = coalesce(delete_requested_at, now()), deleted_at = now()
              where job_id in ${sql.in(jobIds)} and status <> 'deleted'
              returning storage_key`.pipe(
              Effect.map((rows) => rows.map((row) => row.storage_key)),
              Effect.orDie
            ),

      find: (artifactId: string): Effect.Effect<Option.Option<Artifact>> => Effect.orDie(findById(artifactId))
    } as const
  })
}) {}
