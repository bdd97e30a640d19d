/**
 * The unit ledger in process, on each database: concurrent reservations never take more than is
 * left; used + reserved + remaining is the entitlement before, during and after commit and
 * release; the allowance goes first, then credit packs, which outlive the month; a new month
 * brings a fresh allowance; custom allowances; the admin plan's unlimited entitlement; snapshots.
 */
import { SqlClient } from "@effect/sql"
import t from "tap"
import { Duration, Effect, Either, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { Accounts } from "../../src/accounts/accounts.ts"
import type { Plan } from "../../src/entitlements/plan.ts"
import type { Notifications } from "../../src/db/notifications.ts"
import { UNLIMITED } from "../../src/entitlements/allowance.ts"
import type { Usage } from "../../src/entitlements/entitlement.ts"
import { Ledger } from "../../src/entitlements/ledger.ts"
import { type PressroomError, publishingError } from "../../src/shared/errors.ts"
import { CATALOG_VERSION } from "../../src/render/catalog.ts"
import { clockAt } from "../helpers/clock.ts"
import { forEachDatabase } from "../helpers/database.ts"
import type { TestContext } from "../helpers/tap.ts"

type Services = Ledger | Accounts | SqlClient.SqlClient | Notifications

/** The refusal as a client would read it. */
const refusal = <A>(outcome: Either.Either<A, PressroomError>) => {
  if (Either.isRight(outcome)) throw new Error("expected a refusal")
  return publishingError(outcome.left)
}

/** used + reserved + remaining: must always be the allowance plus every credit unit added. */
const entitlementOf = (usage: Usage) => usage.used + usage.reserved + usage.remaining

t.test("Ledger", (t) =>
  forEachDatabase(t, async (t: TestContext, database) => {
    const runtime = ManagedRuntime.make(Layer.mergeAll(Ledger.Default, Accounts.Default).pipe(Layer.provideMerge(database.layer)))
    t.teardown(() => runtime.dispose())
    const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)

    const newAccount = (plan: Plan, monthlyUnits: number | null = null) =>
      run(
        Effect.map(
          Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "Ledger test", plan, monthlyUnits })),
          (account) => account.id
        )
      )
    const ledger = <A, E>(use: (ledger: Ledger) => Effect.Effect<A, E, Services>) => run(Effect.flatMap(Ledger, use))
    /** `reserve` as the job supervisor calls it: inside its own transaction. */
    const reserve = async (accountId: string) => {
      const jobId = randomUUID()
      await ledger((ledger) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(ledger.reserve({ accountId, jobId, units: 1 })))
      )
      return jobId
    }
    const tryReserve = (accountId: string) =>
      run(Effect.either(Effect.flatMap(Ledger, (ledger) => ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }))))
    const usage = (accountId: string) => ledger((ledger) => ledger.usage(accountId))

    await t.test("with one unit left, 20 concurrent reservations admit exactly one", async (t) => {
      const accountId = await newAccount("monthly", 1)
      const outcomes = await run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ledger = yield* Ledger
          return yield* Effect.forEach(
            Array.from({ length: 20 }),
            () =>
              // Each holds its transaction open a moment after reserving, so that the others wait on its lock.
              sql
                .withTransaction(
                  Effect.zipLeft(ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }), Effect.sleep(Duration.millis(20)))
                )
                .pipe(Effect.catchTag("SqlError", Effect.die), Effect.either),
            { concurrency: "unbounded" }
          )
        })
      )
      t.equal(outcomes.filter(Either.isRight).length, 1, "one admitted")
      const refused = outcomes.filter(Either.isLeft).map(refusal)
      t.equal(refused.length, 19, "19 refused")
      t.ok(
        refused.every((error) => error.code === "quota_exhausted" && error.httpStatus === 402),
        "each with 402 quota_exhausted"
      )
      const rows = await run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ n: number }>`select count(*)::int as n from unit_reservations where account_id = ${accountId}`
        )
      )
      t.equal(rows[0]!.n, 1, "one reservation row")
      t.match(await usage(accountId), { used: 0, reserved: 1, remaining: 0 })
    })

    await t.test("a refused reservation inside the caller's transaction writes nothing, and a rolled-back one holds nothing", async (t) => {
      const accountId = await newAccount("free", 1)
      const rolledBack = await run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ledger = yield* Ledger
          return yield* sql.withTransaction(
            Effect.zipRight(ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }), Effect.fail("job insert failed" as const))
          )
        }).pipe(Effect.either)
      )
      t.same(rolledBack, Either.left("job insert failed"))
      t.equal((await usage(accountId)).remaining, 1, "the unit is still there")
      await reserve(accountId)
      t.equal(refusal(await tryReserve(accountId)).code, "quota_exhausted")
      t.match(await usage(accountId), { used: 0, reserved: 1, remaining: 0 })
    })

    await t.test(
      "used + reserved + remaining is the entitlement through reserve, commit and release; allowance first, then packs",
      async (t) => {
        const accountId = await newAccount("monthly", 3)
        const before = await ledger((ledger) => ledger.addCreditPacks(accountId, 1))
        const entitlement = 3 + 250
        t.match(before, { used: 0, reserved: 0, remaining: entitlement, creditUnits: 250 })

        const sources: Array<string> = []
        const jobs: Array<string> = []
        for (let i = 0; i < 5; i++) {
          const jobId = randomUUID()
          const snapshot = await ledger((ledger) => ledger.reserve({ accountId, jobId, units: 1 }))
          sources.push(snapshot.source)
          jobs.push(jobId)
          t.equal(entitlementOf(await usage(accountId)), entitlement, `invariant after reservation ${i + 1}`)
        }
        t.same(sources, ["api_monthly", "api_monthly", "api_monthly", "credit_pack", "credit_pack"], "the allowance first, then packs")
        t.match(await usage(accountId), { used: 0, reserved: 5, remaining: entitlement - 5, creditUnits: 248 })

        await ledger((ledger) => ledger.commit(jobs[0]!))
        await ledger((ledger) => ledger.commit(jobs[3]!))
        await ledger((ledger) => ledger.release(jobs[1]!))
        await ledger((ledger) => ledger.release(jobs[4]!))
        const settled = await usage(accountId)
        t.match(settled, { used: 2, reserved: 1, remaining: entitlement - 3, creditUnits: 249 })
        t.equal(entitlementOf(settled), entitlement, "invariant after commits and releases")

        // Settling again, the other way, or a job that reserved nothing changes nothing.
        await ledger((ledger) => ledger.commit(jobs[0]!))
        await ledger((ledger) => ledger.release(jobs[0]!))
        await ledger((ledger) => ledger.commit(jobs[1]!))
        await ledger((ledger) => ledger.commit(randomUUID()))
        await ledger((ledger) => ledger.release(randomUUID()))
        t.same(await usage(accountId), settled, "commit and release are idempotent and ignore other jobs")

        const next = await ledger((ledger) => ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }))
        t.equal(next.source, "api_monthly", "a released allowance unit is used again before packs")
      }
    )

    await t.test("a new month brings a fresh allowance; credit packs carry over", async (t) => {
      const accountId = await newAccount("free", 2)
      await ledger((ledger) => ledger.addCreditPacks(accountId, 1))
      const january = clockAt("2026-01-31T23:59:59.999Z")
      const inJanuary = <A, E>(use: (ledger: Ledger) => Effect.Effect<A, E>) => ledger((ledger) => Effect.withClock(use(ledger), january))
      for (let i = 0; i < 3; i++) {
        const jobId = randomUUID()
        await inJanuary((ledger) => Effect.zipRight(ledger.reserve({ accountId, jobId, units: 1 }), ledger.commit(jobId)))
      }
      const endOfJanuary = await inJanuary((ledger) => ledger.usage(accountId))
      t.same(endOfJanuary, {
        periodStart: "2026-01-01T00:00:00.000Z",
        used: 3,
        reserved: 0,
        remaining: 249,
        creditUnits: 249,
        webDaily: { used: 0, remaining: 3 }
      })

      const february = clockAt("2026-02-01T00:00:00.000Z")
      const startOfFebruary = await ledger((ledger) => Effect.withClock(ledger.usage(accountId), february))
      t.same(
        startOfFebruary,
        {
          periodStart: "2026-02-01T00:00:00.000Z",
          used: 1,
          reserved: 0,
          remaining: 251,
          creditUnits: 249,
          webDaily: { used: 0, remaining: 3 }
        },
        "January's allowance units are gone from the count; the pack unit used in January stays used"
      )
      t.equal(entitlementOf(startOfFebruary), 2 + 250)
      const snapshot = await ledger((ledger) => Effect.withClock(ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }), february))
      t.equal(snapshot.source, "free_trial", "February starts on its allowance")
      t.equal(snapshot.capturedAt, "2026-02-01T00:00:00.000Z", "the snapshot is taken on the ledger's clock")
    })

    await t.test("a custom monthly allowance replaces the plan's", async (t) => {
      const yearly = await newAccount("yearly", 2)
      t.equal((await usage(yearly)).remaining, 2)
      await reserve(yearly)
      await reserve(yearly)
      t.equal(refusal(await tryReserve(yearly)).code, "quota_exhausted")
      const none = await newAccount("monthly", 0)
      t.equal(refusal(await tryReserve(none)).code, "quota_exhausted", "a zero allowance refuses at once")
    })

    await t.test("plan allowances and snapshot sources", async (t) => {
      for (const [plan, allowance, source] of [
        ["free", 25, "free_trial"],
        ["monthly", 500, "api_monthly"],
        ["yearly", 1000, "subscription"]
      ] as const) {
        const accountId = await newAccount(plan)
        t.equal((await usage(accountId)).remaining, allowance, `${plan}: ${allowance} units a month`)
        const snapshot = await ledger((ledger) => ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }))
        t.match(snapshot, { plan, source, units: 1, catalogVersion: CATALOG_VERSION })
      }
      const credits = await newAccount("credits")
      t.equal(refusal(await tryReserve(credits)).code, "quota_exhausted", "credits: nothing without a pack")
      await ledger((ledger) => ledger.addCreditPacks(credits, 2))
      t.match(await usage(credits), { remaining: 500, creditUnits: 500 })
      t.equal((await ledger((ledger) => ledger.reserve({ accountId: credits, jobId: randomUUID(), units: 1 }))).source, "credit_pack")
    })

    await t.test("the admin plan is unlimited", async (t) => {
      const accountId = await newAccount("admin")
      for (let i = 0; i < 30; i++) await reserve(accountId)
      const snapshot = await ledger((ledger) => ledger.reserve({ accountId, jobId: randomUUID(), units: 1 }))
      t.match(snapshot, { plan: "admin", source: "admin" })
      const current = await usage(accountId)
      t.match(current, { used: 0, reserved: 31, remaining: UNLIMITED - 31, creditUnits: 0 })
      t.ok(Number.isSafeInteger(current.remaining), "remaining is an integer every JSON client reads exactly")
      const refused = refusal(await run(Effect.either(Effect.flatMap(Ledger, (ledger) => ledger.addCreditPacks(accountId, 1)))))
      t.equal(refused.httpStatus, 422, "credit packs would add nothing")
    })

    await t.test("a preview's snapshot reserves nothing", async (t) => {
      const accountId = await newAccount("free", 1)
      const preview = await ledger((ledger) => Effect.withClock(ledger.snapshot(accountId, 0), clockAt("2026-03-04T05:06:07.000Z")))
      t.same(preview, {
        capturedAt: "2026-03-04T05:06:07.000Z",
        catalogVersion: CATALOG_VERSION,
        plan: "free",
        source: "free_trial",
        units: 0
      })
      t.equal((await usage(accountId)).remaining, 1, "nothing reserved")
      const credits = await newAccount("credits")
      await ledger((ledger) => ledger.addCreditPacks(credits, 1))
      t.equal((await ledger((ledger) => ledger.snapshot(credits, 0))).source, "credit_pack", "the pool the next unit would come from")
    })

    await t.test("addCreditPacks refuses an unknown account and a count out of range", async (t) => {
      const unknown = refusal(await run(Effect.either(Effect.flatMap(Ledger, (ledger) => ledger.addCreditPacks(randomUUID(), 1)))))
      t.equal(unknown.httpStatus, 404)
      const accountId = await newAccount("monthly")
      for (const packs of [0, -1, 1.5, 1001]) {
        const refused = refusal(await run(Effect.either(Effect.flatMap(Ledger, (ledger) => ledger.addCreditPacks(accountId, packs)))))
        t.equal(refused.httpStatus, 400, `${packs} packs`)
      }
      t.equal((await usage(accountId)).creditUnits, 0, "nothing was added")
    })
  })
)
