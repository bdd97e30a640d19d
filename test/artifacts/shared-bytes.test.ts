/**
 * What the safety of shared bytes rests on (src/artifacts/shared-bytes.ts), on PostgreSQL, where
 * transactions of several processes run at once (PGlite runs one at a time): an artifact held by a
 * reuse (`holdAvailable`, a share lock) is passed over by the sweep's expiry until the reuse ends,
 * and a reuse that meets an artifact being expired waits for it and then finds it gone.
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Fiber, Layer, Option, Schedule } from "effect"
import t from "tap"
import { ArtifactRepository } from "../../src/artifacts/repository.ts"
import { convert, createAccount } from "../helpers/api.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { startServer } from "../helpers/server.ts"

if (!postgresServerUrl) t.plan(0, "PRESSROOM_TEST_DATABASE_URL is not set; PGlite runs one transaction at a time")
else
  await t.test("postgres", async (t) => {
    const database = await freshDatabase("postgres")
    t.teardown(database.drop)
    const server = await startServer(t, database.env)
    const account = await createAccount(server)
    t.equal((await convert(server, account.key, { markdown: "# Held\n\nBytes a reuse holds." })).status, 200)
    await server.stop()

    const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient | ArtifactRepository>) =>
      Effect.runPromise(
        Effect.scoped(Effect.provide(Effect.orDie(effect), ArtifactRepository.Default.pipe(Layer.provideMerge(database.layer))))
      )
    const artifact = await run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; storage_key: string }>`select id, storage_key from artifacts`)
    )
    const { id, storage_key: key } = artifact[0]!
    const setAvailable = (expiresInMs: number) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`update artifacts set status = 'available', expires_at = now() + ${expiresInMs} * interval '1 millisecond' where id = ${id}`
      )

    /** Polls `check` (a query answering one row with `ok`) every 20 ms until it holds. */
    const pollUntil = (check: Effect.Effect<ReadonlyArray<{ ok: boolean }>, unknown, SqlClient.SqlClient>) =>
      check.pipe(
        Effect.repeat({ until: (rows) => rows[0]?.ok === true, schedule: Schedule.spaced("20 millis") }),
        Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the database never reached the state awaited") })
      )
    /** Until the database's clock has passed the artifact's expiresAt. */
    const pastExpiry = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      pollUntil(sql<{ ok: boolean }>`select expires_at <= now() as ok from artifacts where id = ${id}`)
    )
    /** Until a session of this database waits for a lock: the reuse, blocked by the expiry's row lock. */
    const blockedOnLock = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      pollUntil(sql<{ ok: boolean }>`
        select count(*) = 1 as ok from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)
    )

    /** Runs `statement` in a transaction left open until `commit` is run; `value` is what the statement answered. */
    const openTransaction = <A>(statement: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const answered = yield* Deferred.make<A>()
        const release = yield* Deferred.make<void>()
        const transaction = yield* sql
          .withTransaction(
            Effect.zipRight(
              Effect.flatMap(statement, (value) => Deferred.succeed(answered, value)),
              Deferred.await(release)
            )
          )
          .pipe(Effect.fork)
        return {
          value: yield* Deferred.await(answered),
          commit: Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(transaction))
        }
      })

    await t.test("an artifact held by a reuse is not expired until the reuse ends", async (t) => {
      const outcome = await run(
        Effect.gen(function* () {
          const artifacts = yield* ArtifactRepository
          yield* setAvailable(1_000)
          const reuse = yield* openTransaction(artifacts.holdAvailable(id))
          yield* pastExpiry // still held
          const expiredWhileHeld = yield* artifacts.expireDue
          const stillReferenced = yield* artifacts.unreferenced([key])
          yield* reuse.commit
          const expiredAfter = yield* artifacts.expireDue
          return { holds: reuse.value, expiredWhileHeld, stillReferenced, expiredAfter, unreferenced: yield* artifacts.unreferenced([key]) }
        })
      )
      t.equal(outcome.holds, true, "the reuse holds the available artifact")
      t.same(outcome.expiredWhileHeld, [], "the sweep passes it over while it is held")
      t.same(outcome.stillReferenced, [], "its bytes are still referenced")
      t.same(outcome.expiredAfter, [key], "once the reuse ended, the sweep expires it")
      t.same(outcome.unreferenced, [key], "and its bytes are no longer referenced")
    })

    await t.test("a reuse that meets an artifact being expired waits, then finds it gone", async (t) => {
      const outcome = await run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const artifacts = yield* ArtifactRepository
          yield* setAvailable(60_000)
          const expiry = yield* openTransaction(sql`update artifacts set status = 'expired' where id = ${id}`)
          const reuse = yield* sql.withTransaction(artifacts.holdAvailable(id)).pipe(Effect.fork)
          yield* blockedOnLock
          const answeredEarly = Option.isSome(yield* Fiber.poll(reuse))
          yield* expiry.commit
          return { answeredEarly, holds: yield* Fiber.join(reuse) }
        })
      )
      t.equal(outcome.answeredEarly, false, "the reuse waits for the expiry's transaction")
      t.equal(outcome.holds, false, "then finds the artifact no longer available, and renders instead")
    })
  })
