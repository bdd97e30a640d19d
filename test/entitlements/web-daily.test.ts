/**
 * The web channel's daily pool (contract section 12) in process, on each database, on a clock
 * stopped either side of a UTC midnight: a free account's finals from the dashboard take today's
 * units first (`web_daily`), reserved, committed and released like any other and counted apart
 * from the month; then the month's; a new day brings the pool back. Other channels and plans never
 * touch it.
 */
import { SqlClient } from "@effect/sql"
import t from "tap"
import { ConfigProvider, Duration, Effect, Either, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { Accounts } from "../../src/accounts/accounts.ts"
import type { Notifications } from "../../src/db/notifications.ts"
import { Ledger } from "../../src/entitlements/ledger.ts"
import type { Plan } from "../../src/entitlements/plan.ts"
import type { Channel } from "../../src/render/provenance.ts"
import { clockAt } from "../helpers/clock.ts"
import { forEachDatabase } from "../helpers/database.ts"
import type { TestContext } from "../helpers/tap.ts"

type Services = Ledger | Accounts | SqlClient.SqlClient | Notifications

const beforeMidnight = clockAt("2026-03-10T23:59:59.999Z")
const afterMidnight = clockAt("2026-03-11T00:00:00.000Z")

t.test("the web channel's daily pool", (t) =>
  forEachDatabase(t, async (t: TestContext, database) => {
    const runtime = ManagedRuntime.make(Layer.mergeAll(Ledger.Default, Accounts.Default).pipe(Layer.provideMerge(database.layer)))
    t.teardown(() => runtime.dispose())
    const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)

    const newAccount = (plan: Plan) =>
      run(
        Effect.map(
          Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "Web daily", plan, monthlyUnits: null })),
          (a) => a.id
        )
      )

    const at = <A, E>(clock: typeof beforeMidnight, use: (ledger: Ledger) => Effect.Effect<A, E, Services>) =>
      run(Effect.withClock(Effect.flatMap(Ledger, use), clock))
    /** A final job's reservation on `channel`, as Jobs makes it; its job id and snapshot source. */
    const reserve = async (clock: typeof beforeMidnight, accountId: string, channel: Channel) => {
      const jobId = randomUUID()
      const snapshot = await at(clock, (ledger) => ledger.reserve({ accountId, jobId, units: 1, channel }))
      return { jobId, source: snapshot.source }
    }

    await t.test("a free account: today's units first, settled like any other, apart from the month; a new day refills", async (t) => {
      const accountId = await newAccount("free")
      const usage = (clock: typeof beforeMidnight) => at(clock, (ledger) => ledger.usage(accountId))
      t.same(await usage(beforeMidnight), {
        periodStart: "2026-03-01T00:00:00.000Z",
        used: 0,
        reserved: 0,
        remaining: 25,
        creditUnits: 0,
        webDaily: { used: 0, remaining: 3 }
      })
      t.equal((await at(beforeMidnight, (ledger) => ledger.snapshot(accountId, 0, "web"))).source, "web_daily", "a web preview's snapshot")
      t.equal((await at(beforeMidnight, (ledger) => ledger.snapshot(accountId, 0, "rest_v2"))).source, "free_trial", "a REST preview's")

      const first = [await reserve(beforeMidnight, accountId, "web"), await reserve(beforeMidnight, accountId, "web")]
      const third = await reserve(beforeMidnight, accountId, "web")
      t.same(
        [...first, third].map((job) => job.source),
        ["web_daily", "web_daily", "web_daily"]
      )
      t.match(await usage(beforeMidnight), { used: 0, reserved: 0, remaining: 25, webDaily: { used: 0, remaining: 0 } }, "reserved")

      const monthly = await reserve(beforeMidnight, accountId, "web")
      t.equal(monthly.source, "free_trial", "with the day's units all reserved, the month's")
      await at(beforeMidnight, (ledger) =>
        Effect.all([ledger.commit(first[0]!.jobId), ledger.commit(first[1]!.jobId), ledger.release(third.jobId)])
      )
      t.match(
        await usage(beforeMidnight),
        { used: 0, reserved: 1, remaining: 24, webDaily: { used: 2, remaining: 1 } },
        "two committed, one released"
      )

      const again = await reserve(beforeMidnight, accountId, "web")
      t.equal(again.source, "web_daily", "a released unit of the day is taken again")
      const rest = await reserve(beforeMidnight, accountId, "rest_v2")
      t.equal(rest.source, "free_trial", "another channel never draws on the day's pool")
      await at(beforeMidnight, (ledger) =>
        Effect.all([ledger.commit(again.jobId), ledger.commit(monthly.jobId), ledger.commit(rest.jobId)])
      )
      t.same(await usage(beforeMidnight), {
        periodStart: "2026-03-01T00:00:00.000Z",
        used: 2,
        reserved: 0,
        remaining: 23,
        creditUnits: 0,
        webDaily: { used: 3, remaining: 0 }
      })
      t.equal(
        (await at(beforeMidnight, (ledger) => ledger.snapshot(accountId, 0, "web"))).source,
        "free_trial",
        "spent: the next would be the month's"
      )

      t.same(
        await usage(afterMidnight),
        {
          periodStart: "2026-03-01T00:00:00.000Z",
          used: 2,
          reserved: 0,
          remaining: 23,
          creditUnits: 0,
          webDaily: { used: 0, remaining: 3 }
        },
        "after midnight (UTC) the day's pool is whole again; the month's figures are unchanged"
      )
      const nextDay = await reserve(afterMidnight, accountId, "web")
      t.equal(nextDay.source, "web_daily")
      t.equal(
        (await at(afterMidnight, (ledger) => ledger.snapshot(accountId, 0, "web"))).capturedAt,
        "2026-03-11T00:00:00.000Z",
        "on the ledger's clock"
      )
      t.match(await usage(beforeMidnight), { webDaily: { used: 3, remaining: 0 } }, "yesterday's pool keeps yesterday's units")
    })

    await t.test("with one unit of the day left, 10 concurrent web reservations take it once", async (t) => {
      const accountId = await newAccount("free")
      for (let i = 0; i < 2; i++) await reserve(beforeMidnight, accountId, "web")
      const outcomes = await run(
        Effect.withClock(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const ledger = yield* Ledger
            return yield* Effect.forEach(
              Array.from({ length: 10 }),
              () =>
                sql
                  .withTransaction(
                    Effect.zipLeft(
                      ledger.reserve({ accountId, jobId: randomUUID(), units: 1, channel: "web" }),
                      Effect.sleep(Duration.millis(10))
                    )
                  )
                  .pipe(Effect.catchTag("SqlError", Effect.die), Effect.either),
              { concurrency: "unbounded" }
            )
          }),
          beforeMidnight
        )
      )
      const sources = outcomes.filter(Either.isRight).map((outcome) => outcome.right.source)
      t.equal(sources.filter((source) => source === "web_daily").length, 1, "one from the day's pool")
      t.equal(sources.filter((source) => source === "free_trial").length, 9, "the others from the month's")
    })

    await t.test("other plans have no daily pool and no webDaily in their usage", async (t) => {
      const accountId = await newAccount("monthly")
      t.equal((await reserve(beforeMidnight, accountId, "web")).source, "api_monthly")
      const usage = await at(beforeMidnight, (ledger) => ledger.usage(accountId))
      t.same(usage, { periodStart: "2026-03-01T00:00:00.000Z", used: 0, reserved: 1, remaining: 499, creditUnits: 0 })
    })

    await t.test("PRESSROOM_WEB_DAILY_UNITS sets the day's pool; 0 turns it off", async (t) => {
      /** A ledger that read `units` from its environment, on this test's database. */
      const configured = (units: string) => {
        const ledger = Ledger.Default.pipe(
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PRESSROOM_WEB_DAILY_UNITS", units]]))))
        )
        return <A, E>(use: (ledger: Ledger) => Effect.Effect<A, E, Services>) =>
          run(Effect.withClock(Effect.flatMap(Ledger, use), beforeMidnight).pipe(Effect.provide(ledger)))
      }
      const accountId = await newAccount("free")
      const one = configured("1")
      const sources = []
      for (let i = 0; i < 2; i++)
        sources.push((await one((ledger) => ledger.reserve({ accountId, jobId: randomUUID(), units: 1, channel: "web" }))).source)
      t.same(sources, ["web_daily", "free_trial"])
      const none = configured("0")
      const other = await newAccount("free")
      t.equal(
        (await none((ledger) => ledger.reserve({ accountId: other, jobId: randomUUID(), units: 1, channel: "web" }))).source,
        "free_trial"
      )
      t.match(await none((ledger) => ledger.usage(other)), { webDaily: { used: 0, remaining: 0 } })
    })
  })
)
