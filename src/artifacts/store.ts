/**
 * Where artifact bytes live, behind an interface shaped like an object store (put, get, delete by
 * key) so an S3-compatible implementation can replace the local one. Rows about artifacts are in
 * the database; only bytes are here.
 */
import { Context, type Effect, Schema } from "effect"

/** The bytes cannot be read or written right now (a transient fault: retry). */
export class StorageUnavailable extends Schema.TaggedError<StorageUnavailable>()("StorageUnavailable", {
  message: Schema.String
}) {}

export class ArtifactStore extends Context.Tag("pressroom/ArtifactStore")<
  ArtifactStore,
  {
    /** Stores `bytes` under `key` atomically: a reader sees all of them or none. */
    readonly put: (key: string, bytes: Uint8Array) => Effect.Effect<void, StorageUnavailable>
    readonly get: (key: string) => Effect.Effect<Uint8Array, StorageUnavailable>
    /** Removes `key`; removing a missing key succeeds. */
    readonly remove: (key: string) => Effect.Effect<void, StorageUnavailable>
  }
>() {}
