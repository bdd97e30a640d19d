/**
 * The artifact store in `artifact_blobs`, on each database: bytes come back exactly, a second put
 * replaces the first, a missing key or a database fault is StorageUnavailable, and removal is
 * idempotent. The platform's store is this one on PostgreSQL and the local files when embedded.
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { join } from "node:path"
import t from "tap"
import { makeDatabaseStore } from "../../src/artifacts/database-store.ts"
import { ArtifactStore } from "../../src/artifacts/store.ts"
import { ArtifactStoreLive } from "../../src/platform.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"

const every = (effect: Effect.Effect<unknown, unknown>) => Effect.either(effect)

await forEachDatabase(t, async (t, database) => {
  await t.test("put, get, put again, remove", async (t) => {
    const pdf = randomBytes(3 * 1024 * 1024)
    const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    const result = await runWith(
      database,
      Effect.gen(function* () {
        const store = yield* makeDatabaseStore
        yield* store.put("a.pdf", pdf)
        yield* store.put("b.pdf", allBytes)
        const first = yield* store.get("a.pdf")
        const every256 = yield* store.get("b.pdf")
        yield* store.put("a.pdf", allBytes)
        const replaced = yield* store.get("a.pdf")
        yield* store.remove("a.pdf")
        const removed = yield* every(store.get("a.pdf"))
        const removedAgain = yield* every(store.remove("a.pdf"))
        const missing = yield* every(store.get("never.pdf"))
        return { first, every256, replaced, removed, removedAgain, missing, other: yield* store.get("b.pdf") }
      }).pipe(Effect.orDie)
    )
    t.ok(Buffer.from(result.first).equals(pdf), "3 MiB come back exactly")
    t.same(Buffer.from(result.every256), Buffer.from(allBytes), "every byte value")
    t.same(Buffer.from(result.replaced), Buffer.from(allBytes), "a second put replaces the bytes")
    t.equal(result.removed._tag, "Left")
    t.match(result.removed, { left: { _tag: "StorageUnavailable" } }, "a removed key is unavailable")
    t.equal(result.removedAgain._tag, "Right", "removing a missing key succeeds")
    t.match(result.missing, { left: { _tag: "StorageUnavailable" } }, "so is a key never stored")
    t.same(Buffer.from(result.other), Buffer.from(allBytes), "other keys untouched")
  })

  await t.test("a database fault is StorageUnavailable", async (t) => {
    const result = await runWith(
      database,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* makeDatabaseStore
        yield* store.put("c.pdf", Uint8Array.of(1, 2, 3))
        yield* sql`alter table artifact_blobs rename to artifact_blobs_gone`
        const outcomes = {
          put: yield* every(store.put("d.pdf", Uint8Array.of(4))),
          get: yield* every(store.get("c.pdf")),
          remove: yield* every(store.remove("c.pdf"))
        }
        yield* sql`alter table artifact_blobs_gone rename to artifact_blobs`
        return outcomes
      }).pipe(Effect.orDie)
    )
    for (const [operation, outcome] of Object.entries(result)) {
      t.match(outcome, { left: { _tag: "StorageUnavailable" } }, operation)
    }
  })

  await t.test("the platform's store: in the database on PostgreSQL, in files when embedded", async (t) => {
    const config = ConfigProvider.fromMap(new Map(Object.entries(database.env)))
    const stored = await runWith(
      database,
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        yield* store.put("chosen.pdf", Uint8Array.of(37, 80, 68, 70))
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ key: string }>`select key from artifact_blobs where key = 'chosen.pdf'`
      }).pipe(Effect.provide(ArtifactStoreLive.pipe(Layer.provide(Layer.setConfigProvider(config)))), Effect.orDie)
    )
    const file = database.env.PRESSROOM_DATA_DIR ? join(database.env.PRESSROOM_DATA_DIR, "artifacts", "chosen.pdf") : undefined
    if (database.kind === "postgres") {
      t.same(stored, [{ key: "chosen.pdf" }], "a row of artifact_blobs")
    } else {
      t.same(stored, [], "no row")
      t.ok(file && existsSync(file), "a file under PRESSROOM_DATA_DIR/artifacts")
    }
  })
})
