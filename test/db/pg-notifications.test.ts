/**
 * Notifications on PostgreSQL survive a lost connection: when the database goes away (every
 * connection dropped, new ones refused) and comes back, the listener reconnects by itself, says
 * that it resumed, and hears what is sent afterwards. PostgreSQL only: PGlite has no connection
 * to lose.
 */
import { Chunk, Effect, Fiber, Redacted, Stream } from "effect"
import pg from "pg"
import t from "tap"
import * as PgNotifications from "../../src/db/pg-notifications.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { startTcpProxy } from "../helpers/tcp-proxy.ts"

if (!postgresServerUrl) {
  t.comment("PRESSROOM_TEST_DATABASE_URL is not set: the notification reconnection test needs PostgreSQL and was skipped")
} else {
  t.test("a listener reconnects after the database went away, says so, and hears what follows", async (t) => {
    const database = await freshDatabase("postgres")
    t.teardown(database.drop)
    const proxy = await startTcpProxy(t, database.env.DATABASE_URL!)
    const sender = new pg.Client({ connectionString: database.env.DATABASE_URL })
    await sender.connect()
    t.teardown(() => sender.end())
    const notify = (payload: string) => sender.query("select pg_notify('pressroom_test', $1)", [payload])

    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const notifications = yield* PgNotifications.make(Redacted.make(proxy.through(database.env.DATABASE_URL!)))
          const heard = yield* notifications.listen("pressroom_test").pipe(Stream.take(2), Stream.runCollect, Effect.fork)
          const resumed = yield* notifications.resumed.pipe(Stream.take(1), Stream.runDrain, Effect.fork)
          yield* Effect.sleep("200 millis")
          yield* Effect.promise(() => notify("before"))
          yield* Effect.sleep("200 millis")

          proxy.cut()
          yield* Effect.promise(() => notify("while away"))
          yield* Effect.sleep("1 second")
          t.equal(resumed.unsafePoll(), null, "not resumed while the database is away")
          proxy.restore()
          yield* Fiber.join(resumed).pipe(Effect.timeout("10 seconds"))
          t.pass("resumed once the database is back")

          yield* Effect.promise(() => notify("after"))
          const payloads = yield* Fiber.join(heard).pipe(Effect.timeout("10 seconds"))
          t.same(Chunk.toArray(payloads), ["before", "after"], "heard before and after; what was sent while away is lost")
        })
      )
    )
  })
}
