/** Artifact rows (specification 2.11): one per succeeded job, with the SHA-256 and size of its bytes (artifact.ts). */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, type Option, Schema } from "effect"
import { column } from "../shared/rows.ts"
import { type Artifact, ArtifactRow } from "./artifact.ts"
import { retentionConfig } from "./config.ts"

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
  /** The manifest of the render that made the bytes, and the key a later job finds it by (src/jobs/reuse.ts). */
  readonly manifestSha256: string | null
  readonly reuseKey: string | null
}

/** An available artifact whose bytes a job of the same owner may reuse. */
export interface Reusable {
  readonly id: string
  readonly jobId: string
  readonly storageKey: string
  readonly bytes: number
  readonly pageCount: number
  readonly sha256: string
  readonly manifestSha256: string
}

/** A reusable artifact's row. */
const ReusableRow = Schema.Struct({
  id: Schema.String,
  jobId: column(Schema.String, "job_id"),
  storageKey: column(Schema.String, "storage_key"),
  bytes: Schema.Int,
  pageCount: column(Schema.Int, "page_count"),
  sha256: Schema.String,
  manifestSha256: column(Schema.String, "manifest_sha256")
})

/** Rows that name storage keys, whose bytes are held or must go. */
const StorageKeyRow = Schema.Struct({ storageKey: column(Schema.String, "storage_key") })
const storageKeys = (rows: ReadonlyArray<typeof StorageKeyRow.Type>) => rows.map((row) => row.storageKey)

/** An inserted artifact's row: when it expires. */
const decodeInserted = Schema.decodeUnknown(Schema.Struct({ expiresAt: column(Schema.DateFromSelf, "expires_at") }))

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
    const reusable = SqlSchema.findOne({
      Request: Schema.Struct({ accountId: Schema.String, reuseKey: Schema.String }),
      Result: ReusableRow,
      execute: ({ accountId, reuseKey }) => sql`
          select id, job_id, storage_key, bytes, page_count, sha256, manifest_sha256 from artifacts
          where account_id = ${accountId} and reuse_key = ${reuseKey} and status = 'available' and expires_at > now()
          order by expires_at desc limit 1`
    })
    const referenced = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: StorageKeyRow,
      execute: (keys) => sql`
              select distinct storage_key from artifacts where storage_key in ${sql.in(keys)} and status = 'available'`
    })
    const expire = SqlSchema.findAll({
      Request: Schema.Void,
      Result: StorageKeyRow,
      execute: () => sql`
        update artifacts set status = 'expired'
        where id in (select id from artifacts where status = 'available' and expires_at <= now() limit 500 for update skip locked)
        returning storage_key`
    })
    const deleteOf = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: StorageKeyRow,
      execute: (jobIds) => sql`
              update artifacts set status = 'deleted', delete_requested_at = coalesce(delete_requested_at, now()), deleted_at = now()
              where job_id in ${sql.in(jobIds)} and status <> 'deleted'
              returning storage_key`
    })
    return {
      insert: (artifact: NewArtifact) => {
        const ttl = artifact.purpose === "preview" ? retention.previewTtlSeconds : retention.finalTtlSeconds
        return sql`
          insert into artifacts (id, account_id, job_id, revision_id, status, filename, bytes, page_count, sha256,
                                 storage_key, manifest_sha256, reuse_key, created_at, finalized_at, expires_at)
          values (${artifact.id}, ${artifact.accountId}, ${artifact.jobId}, ${artifact.revisionId}, 'available',
                  ${artifact.filename}, ${artifact.bytes}, ${artifact.pageCount}, ${artifact.sha256},
                  ${artifact.storageKey}, ${artifact.manifestSha256}, ${artifact.reuseKey},
                  now(), now(), now() + ${ttl} * interval '1 second')
          returning expires_at`.pipe(
          Effect.flatMap(([row]) => decodeInserted(row)),
          Effect.map((row) => row.expiresAt),
          Effect.orDie
        )
      },
      /** The available artifact of `accountId` with `reuseKey` that lives longest, if any: never another owner's. */
      findReusable: (accountId: string, reuseKey: string): Effect.Effect<Option.Option<Reusable>> =>
        Effect.orDie(reusable({ accountId, reuseKey })),

      /**
       * Inside a transaction: whether the artifact is still available, holding it so (a share lock)
       * until the transaction ends, so that no expiry or deletion can take it, and with it its
       * bytes, meanwhile (shared-bytes.ts says why that is enough).
       */
      holdAvailable: (artifactId: string) =>
        sql`select id from artifacts where id = ${artifactId} and status = 'available' and expires_at > now() for share`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie
        ),

      /** Of `keys`, those no available artifact names: their bytes serve no one (shared-bytes.ts). */
      unreferenced: (keys: ReadonlyArray<string>) =>
        keys.length === 0
          ? Effect.succeed([] as ReadonlyArray<string>)
          : referenced(keys).pipe(
              Effect.map((rows) => {
                const held = new Set(storageKeys(rows))
                return [...new Set(keys)].filter((key) => !held.has(key))
              }),
              Effect.orDie
            ),

      /** Marks every available artifact past its `expiresAt` as expired; returns their storage keys, whose bytes must go. */
      expireDue: expire(undefined).pipe(Effect.map(storageKeys), Effect.orDie),

      /** Withdraws the artifacts of `jobIds` from use (their document is being deleted): no download or link serves them. */
      withdraw: (jobIds: ReadonlyArray<string>) =>
        jobIds.length === 0
          ? Effect.void
          : sql`
              update artifacts set status = 'deleting', delete_requested_at = coalesce(delete_requested_at, now())
              where job_id in ${sql.in(jobIds)} and status in ('available', 'expired')`.pipe(Effect.asVoid, Effect.orDie),

      /** Marks the artifacts of `jobIds` deleted; returns the storage keys whose bytes must go. */
      markDeleted: (jobIds: ReadonlyArray<string>) =>
        jobIds.length === 0 ? Effect.succeed([] as ReadonlyArray<string>) : deleteOf(jobIds).pipe(Effect.map(storageKeys), Effect.orDie),

      find: (artifactId: string): Effect.Effect<Option.Option<Artifact>> => Effect.orDie(findById(artifactId))
    } as const
  })
}) {}
