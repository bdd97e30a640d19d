/**
 * The unit ledger (specification section 3, rules on units; contract section 6). A final job
 * reserves its units at admission, commits them once its artifact is finalised and releases them
 * when it fails or is cancelled. Reservations of one account serialise on its `accounts` row
 * (`select … for update`), so concurrent admissions can never reserve more than is left: under
 * PostgreSQL's default READ COMMITTED, the count that follows the lock sees every reservation
 * committed while it waited.
 *
 * `reserve`, `commit` and `release` join the caller's transaction: the job supervisor writes the
 * job and its reservation (or the job's terminal state and the settlement) atomically. `reserve`
 * joins the caller's transaction, or opens one when called outside any, so its lock is always
 * held until the reservation is written.
 *
 * The web channel's daily pool (contract section 12): a `free` account's final job from the
 * dashboard takes its unit from today's (UTC) pool of `PRESSROOM_WEB_DAILY_UNITS` while any is
 * left, then from the month's as on any channel. Such a reservation has source `web_daily` and the
 * day as its period; the month's figures never count it.
 */
import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Plan } from "./plan.ts"
import type { Channel } from "../render/provenance.ts"
import { CATALOG_VERSION } from "../render/catalog.ts"
import { InvalidRequest, NotFound, QuotaExhausted } from "../shared/errors.ts"
import { column } from "../shared/rows.ts"
import {
  type DailyTally,
  dailyLeft,
  dayStartOf,
  hasWebDailyPool,
  MAX_PACKS_PER_PURCHASE,
  monthlyAllowance,
  nextPool,
  PACK_UNITS,
  periodStartOf,
  type Pool,
  poolFor,
  sourceOf,
  type Tally,
  UNLIMITED,
  usageOf
} from "./allowance.ts"
import type { EntitlementSnapshot, Usage } from "./entitlement.ts"
import { webDailyUnits } from "./web-daily-config.ts"

export interface ReserveInput {
  readonly accountId: string
  readonly jobId: string
  /** The job's disclosed unit count: 1 to 100 (1 for every final job of the contract). */
  readonly units: number
  /** The job's channel: `web` draws on a free account's daily pool first. */
  readonly channel?: Channel
}

/** What the ledger reads of an account's row: its plan and custom monthly allowance. */
const AccountRow = Schema.Struct({ plan: Plan, monthlyUnits: column(Schema.NullOr(Schema.Int), "monthly_units") })
type AccountRow = typeof AccountRow.Type

/** The units of one account's month, by pool and state (the web daily pool's left out). */
const TallyRow = Schema.Struct({
  allowanceCommitted: column(Schema.Int, "allowance_committed"),
  allowanceReserved: column(Schema.Int, "allowance_reserved"),
  creditAdded: column(Schema.Int, "credit_added"),
  creditCommitted: column(Schema.Int, "credit_committed"),
  creditReserved: column(Schema.Int, "credit_reserved")
})

/** The units of one account's day in the web daily pool, by state. */
const DailyTallyRow = Schema.Struct({ committed: Schema.Int, reserved: Schema.Int })

/** The `date` a period is stored as. */
const periodDate = (periodStart: Date) => periodStart.toISOString().slice(0, 10)

const snapshotOf = (plan: Plan, pool: Pool, units: number, now: Date): EntitlementSnapshot => ({
  capturedAt: now.toISOString(),
  catalogVersion: CATALOG_VERSION,
  plan,
  source: sourceOf(plan, pool),
  units
})

const checkUnits = (units: number, minimum: number) =>
  Number.isInteger(units) && units >= minimum && units <= 100
    ? Effect.void
    : Effect.dieMessage(`a job's units must be an integer from ${minimum} to 100, got ${units}`)

export class Ledger extends Effect.Service<Ledger>()("pressroom/Ledger", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const dailyUnits = yield* webDailyUnits

    // The clock is Effect's, so that tests can move to another month.
    const currentTime = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /**
     * Runs `effect` in the caller's transaction when there is one (its lock then lasts until the
     * caller commits), else in a transaction of its own; a savepoint would add two statements to
     * every admission for nothing.
     */
    const ownTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction) ? effect : sql.withTransaction(effect)
      )

    // A row that does not decode is a defect; a failing statement is left to the caller, whose transaction it ends.
    const accountRow = (lock: boolean) =>
      SqlSchema.findAll({
        Request: Schema.String,
        Result: AccountRow,
        execute: (accountId) =>
          lock
            ? sql`select plan, monthly_units from accounts where id = ${accountId} for update`
            : sql`select plan, monthly_units from accounts where id = ${accountId}`
      })
    const readAccount = (accountId: string) => accountRow(false)(accountId).pipe(Effect.catchTag("ParseError", Effect.die))
    const lockAccount = (accountId: string) => accountRow(true)(accountId).pipe(Effect.catchTag("ParseError", Effect.die))

    /** The account behind a principal or a job: its absence is a bug of the caller, not a client error. */
    const existing = (rows: ReadonlyArray<AccountRow>, accountId: string) =>
      rows[0] ? Effect.succeed(rows[0]) : Effect.dieMessage(`no account ${accountId}`)

    const tally = SqlSchema.single({
      Request: Schema.Struct({ accountId: Schema.String, periodStart: Schema.DateFromSelf }),
      Result: TallyRow,
      execute: ({ accountId, periodStart }) => sql`
          select
            (select coalesce(sum(units), 0)::int from credit_packs where account_id = ${accountId}) as credit_added,
            coalesce(sum(units) filter (where source <> 'credit_pack' and state = 'committed'), 0)::int as allowance_committed,
            coalesce(sum(units) filter (where source <> 'credit_pack' and state = 'reserved'), 0)::int as allowance_reserved,
            coalesce(sum(units) filter (where source = 'credit_pack' and state = 'committed'), 0)::int as credit_committed,
            coalesce(sum(units) filter (where source = 'credit_pack' and state = 'reserved'), 0)::int as credit_reserved
          from unit_reservations
          where account_id = ${accountId} and state <> 'released' and source <> 'web_daily'
            and (source = 'credit_pack' or period_start = ${periodDate(periodStart)}::date)`
    })
    const tallyOf = (accountId: string, periodStart: Date): Effect.Effect<Tally, SqlError.SqlError> =>
      tally({ accountId, periodStart }).pipe(Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die }))

    const dailyTally = SqlSchema.single({
      Request: Schema.Struct({ accountId: Schema.String, now: Schema.DateFromSelf }),
      Result: DailyTallyRow,
      execute: ({ accountId, now }) => sql`
          select
            coalesce(sum(units) filter (where state = 'committed'), 0)::int as committed,
            coalesce(sum(units) filter (where state = 'reserved'), 0)::int as reserved
          from unit_reservations
          where account_id = ${accountId} and source = 'web_daily' and period_start = ${periodDate(dayStartOf(now))}::date`
    })
    const dailyTallyOf = (accountId: string, now: Date): Effect.Effect<DailyTally, SqlError.SqlError> =>
      dailyTally({ accountId, now }).pipe(Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die }))

    /** What is left today of the account's daily pool when `channel` draws on it, else 0. */
    const dailyLeftFor = (accountId: string, account: AccountRow, channel: Channel | undefined, now: Date) =>
      channel === "web" && hasWebDailyPool(account.plan)
        ? Effect.map(dailyTallyOf(accountId, now), (tally) => dailyLeft(dailyUnits, tally))
        : Effect.succeed(0)

    const usageIn = (accountId: string, account: AccountRow) =>
      Effect.gen(function* () {
        const now = yield* currentTime
        const periodStart = periodStartOf(now)
        const usage = usageOf(monthlyAllowance(account.plan, account.monthlyUnits), yield* tallyOf(accountId, periodStart), periodStart)
        if (!hasWebDailyPool(account.plan)) return usage
        const daily = yield* dailyTallyOf(accountId, now)
        return { ...usage, webDaily: { used: daily.committed, remaining: dailyLeft(dailyUnits, daily) } }
      })

    /**
     * Reserves `units` for the final job `jobId`: from today's web daily pool when the job is the
     * web channel's on a free account and the pool holds them, else from this month's allowance,
     * else from credit packs; 402 `quota_exhausted` when none has them. Run it inside the
     * transaction that writes the job.
     */
    const reserve = (input: ReserveInput): Effect.Effect<EntitlementSnapshot, QuotaExhausted> =>
      Effect.gen(function* () {
        yield* checkUnits(input.units, 1)
        const now = yield* currentTime
        const periodStart = periodStartOf(now)
        const account = yield* Effect.flatMap(lockAccount(input.accountId), (rows) => existing(rows, input.accountId))
        const daily = (yield* dailyLeftFor(input.accountId, account, input.channel, now)) >= input.units
        const pool: Pool | undefined = daily
          ? "web_daily"
          : poolFor(monthlyAllowance(account.plan, account.monthlyUnits), yield* tallyOf(input.accountId, periodStart), input.units)
        if (pool === undefined) return yield* Effect.fail(new QuotaExhausted())
        const source = pool === "allowance" ? (account.plan === "admin" ? "admin" : "allowance") : pool
        const period = pool === "web_daily" ? dayStartOf(now) : periodStart
        yield* sql`
          insert into unit_reservations (id, account_id, job_id, period_start, source, units, state)
          values (${randomUUID()}, ${input.accountId}, ${input.jobId}, ${periodDate(period)}::date, ${source}, ${input.units}, 'reserved')`
        return snapshotOf(account.plan, pool, input.units, now)
      }).pipe(ownTransaction, Effect.catchTag("SqlError", Effect.die))

    const settle = (jobId: string, state: "committed" | "released") =>
      sql`update unit_reservations set state = ${state}, settled_at = now() where job_id = ${jobId} and state = 'reserved'`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** The job's reserved units become used (its artifact is final). Nothing happens when it reserved none or was settled already. */
    const commit = (jobId: string): Effect.Effect<void> => settle(jobId, "committed")

    /** The job's reserved units return to the account (it failed or was cancelled). Nothing happens when it reserved none or was settled already. */
    const release = (jobId: string): Effect.Effect<void> => settle(jobId, "released")

    /**
     * The snapshot of a job that reserves nothing (a preview, `units` 0): the plan, and the pool
     * the account's next unit on `channel` would come from.
     */
    const snapshot = (accountId: string, units: number, channel?: Channel): Effect.Effect<EntitlementSnapshot> =>
      Effect.gen(function* () {
        yield* checkUnits(units, 0)
        const now = yield* currentTime
        const account = yield* Effect.flatMap(readAccount(accountId), (rows) => existing(rows, accountId))
        if ((yield* dailyLeftFor(accountId, account, channel, now)) > 0) return snapshotOf(account.plan, "web_daily", units, now)
        const tally = yield* tallyOf(accountId, periodStartOf(now))
        return snapshotOf(account.plan, nextPool(monthlyAllowance(account.plan, account.monthlyUnits), tally), units, now)
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /** The account's units this month (contract section 9). */
    const usage = (accountId: string): Effect.Effect<Usage> =>
      Effect.flatMap(readAccount(accountId), (rows) => existing(rows, accountId)).pipe(
        Effect.flatMap((account) => usageIn(accountId, account)),
        Effect.catchTag("SqlError", Effect.die)
      )

    /**
     * Adds `packs` credit packs of 250 units to the account; answers its usage afterwards. An
     * unlimited account is refused (422): packs would add nothing to it.
     */
    const addCreditPacks = (accountId: string, packs: number): Effect.Effect<Usage, InvalidRequest | NotFound> =>
      Effect.gen(function* () {
        if (!Number.isInteger(packs) || packs < 1 || packs > MAX_PACKS_PER_PURCHASE) {
          return yield* Effect.fail(InvalidRequest.malformed(`packs must be an integer from 1 to ${MAX_PACKS_PER_PURCHASE}`))
        }
        const [account] = yield* lockAccount(accountId)
        if (!account) return yield* Effect.fail(new NotFound({ resource: "account" }))
        if (monthlyAllowance(account.plan, account.monthlyUnits) === UNLIMITED) {
          return yield* Effect.fail(InvalidRequest.unprocessable("the account's entitlement is unlimited; credit packs would add nothing"))
        }
        yield* sql`
          insert into credit_packs (id, account_id, packs, units)
          values (${randomUUID()}, ${accountId}, ${packs}, ${packs * PACK_UNITS})`
        return yield* usageIn(accountId, account)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))

    const committedPerDay = SqlSchema.findAll({
      Request: Schema.Struct({ accountId: Schema.String, first: Schema.DateFromSelf }),
      Result: Schema.Struct({ day: Schema.String, units: Schema.Int }),
      execute: ({ accountId, first }) => sql`
          select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, sum(units)::int as units
          from unit_reservations
          where account_id = ${accountId} and state = 'committed' and created_at >= ${first}
          group by 1`
    })

    /**
     * Units used per UTC day over the `days` days that end today, oldest first, zeros included:
     * committed units of every pool, by the day their job reserved them (the dashboard's chart).
     */
    const unitsPerDay = (accountId: string, days: number): Effect.Effect<ReadonlyArray<{ readonly day: string; readonly units: number }>> =>
      Effect.gen(function* () {
        const today = Date.parse(periodDate(yield* currentTime))
        const first = new Date(today - (days - 1) * 86_400_000)
        const rows = yield* committedPerDay({ accountId, first })
        const byDay = new Map(rows.map((row) => [row.day, row.units]))
        return Array.from({ length: days }, (_, i) => {
          const day = periodDate(new Date(first.getTime() + i * 86_400_000))
          return { day, units: byDay.get(day) ?? 0 }
        })
      }).pipe(Effect.orDie)

    return { reserve, commit, release, snapshot, usage, addCreditPacks, unitsPerDay } as const
  })
}) {}
