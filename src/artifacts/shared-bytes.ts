/**
 * Bytes shared by reference. A job reused by its manifest (src/jobs/reuse.ts) gets its own
 * artifact row over the bytes of an earlier one, under the same `storage_key`; the bytes serve
 * every available row naming the key, and go only when none is left. Every path that takes
 * artifacts out of use (the sweep's expiry, a document's deletion, a claim lost after its bytes
 * were stored) hands the keys to `removeUnreferenced`, which removes only those no available row
 * names.
 *
 * Only `available` rows hold bytes: an expired, withdrawn (`deleting`) or deleted row is never
 * served again and never becomes available again, so keeping bytes for it would only delay their
 * removal. (Counting `deleting` rows would also leak: two documents sharing bytes, deleted at once,
 * would each see the other's row still `deleting` in its own transaction, and neither remove them.)
 *
 * Why no bytes go while a row may serve them, and none are left behind, with several processes on
 * one PostgreSQL (read committed; on PGlite transactions run one at a time):
 * - A new row names an existing key only through a reuse, which inserts it in a transaction that
 *   first holds an available row with that key under a share lock (`holdAvailable`). While it is
 *   held, the row cannot leave `available`: the sweep's `for update skip locked` passes it over,
 *   a document's withdrawal waits for the lock and then finds it still available. So the new row
 *   commits before the row it reused can leave `available`; and a reuse that waited on a row being
 *   expired or withdrawn finds it no longer available once the lock is granted, and renders.
 * - Every check here runs in a statement after the change that took its row out of `available`
 *   was committed (the sweep's expiry is a statement of its own; a withdrawal commits before
 *   `finishDeletion` marks the row deleted and hands its key here; a lost claim's key was never
 *   named by any row), and a read committed statement sees everything committed before it began.
 *   By the first point, a row reusing the key is then among what it sees, so bytes still served
 *   are kept; and of several rows leaving at once, the check that runs last sees them all gone,
 *   so the bytes do not outlive the last of them. One exception leaves bytes behind, never takes
 *   them early: a job of a document being deleted that succeeded after the withdrawal leaves
 *   `available` only in `finishDeletion`'s own transaction, and were the last other row sharing
 *   its bytes to leave at that very moment, each check would still see the other.
 * - Once no available row names a key, none ever will again (a reuse needs one to hold), so
 *   removing the bytes after the check cannot race a new holder.
 */
import { Effect, Either } from "effect"
import { ArtifactRepository } from "./repository.ts"
import { ArtifactStore, type StorageUnavailable } from "./store.ts"

/**
 * `removeUnreferenced(keys)` removes the bytes of those of `keys` that no available artifact
 * names; the others stay for the artifacts that still use them. Every key is tried; the first
 * failure is reported afterwards.
 */
export const unreferencedBytesRemover = Effect.gen(function* () {
  const artifacts = yield* ArtifactRepository
  const storage = yield* ArtifactStore
  return (keys: ReadonlyArray<string>): Effect.Effect<void, StorageUnavailable> =>
    Effect.gen(function* () {
      const unreferenced = yield* artifacts.unreferenced(keys)
      const removals = yield* Effect.forEach(unreferenced, (key) => Effect.either(storage.remove(key)))
      const failed = removals.find(Either.isLeft)
      if (failed) return yield* Effect.fail(failed.left)
    })
})
