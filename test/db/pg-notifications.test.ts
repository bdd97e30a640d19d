/**
 * Notifications on PostgreSQL survive a lost connection: when the database goes away (every
 * connection dropped, new ones refused) and comes back, the listener reconnects by itself, says
 * that it resumed, and hears what is sent afterwards. PostgreSQL only: PGlite has no connection
 * to lose.
 */
import { Effect, Fiber, Queue, Redacted, Stream } from "effect"
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

    /** Until the listener's session is connected and listening (its last statement was the LISTEN). */
    const listening = async () => {
      for (let i = 0; i < 1500; i++) {
        const { rows } = await sender.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle' and query like 'LISTEN %'"
        )
        if (rows[0].n === 1) return
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      throw new Error("the listener never listened")
    }

    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const notifications = yield* PgNotifications.make(Redacted.make(proxy.through(database.env.DATABASE_URL!)))
          const heard = yield* Queue.unbounded<string>()
          yield* notifications.listen("pressroom_test").pipe(
            Stream.runForEach((payload) => Queue.offer(heard, payload)),
            Effect.forkScoped
          )
          const resumed = yield* notifications.resumed.pipe(Stream.take(1), Stream.runDrain, Effect.fork)
          yield* Effect.promise(listening)
          yield* Effect.promise(() => notify("before"))
          t.equal(yield* Queue.take(heard).pipe(Effect.timeout("10 seconds")), "before", "heard while connected")

          proxy.cut()
          yield* Effect.promise(() => notify("while away"))
          yield* Effect.promise(async () => {
            while (proxy.refused() === 0) await new Promise((resolve) => setTimeout(resolve, 20))
          }).pipe(Effect.timeout("10 seconds"))
          t.equal(resumed.unsafePoll(), null, "not resumed while the database refuses it")
          proxy.restore()
          yield* Fiber.join(resumed).pipe(Effect.timeout("10 seconds"))
          // Resumed is said once the fresh connection listens again.
          t.pass("resumed once the database is back")

          yield* Effect.promise(() => notify("after"))
          t.equal(yield* Queue.take(heard).pipe(Effect.timeout("10 seconds")), "after", "heard after; what was sent while away is lost")
          t.equal(yield* Queue.size(heard), 0, "and nothing else")
        })
      )
    )
  })
}
