/**
 * The arithmetic of units (contract section 6), free of the database so that it can be checked
 * on its own: monthly allowances by plan, calendar months in UTC, credit packs, and which pool a
 * reservation draws from.
 */
import type { Plan } from "./plan.ts"
import type { EntitlementSource, Usage } from "./entitlement.ts"

/** Units in one credit pack; they never expire. */
export const PACK_UNITS = 250

/** The most packs one purchase adds (250,000 units): a bound that catches a typo, not a business rule. */
export const MAX_PACKS_PER_PURCHASE = 1000

/** The admin plan's allowance: 2^53 − 1, "unlimited" in a number every JSON client reads exactly. */
export const UNLIMITED = Number.MAX_SAFE_INTEGER

const PLAN_ALLOWANCE: Readonly<Record<Plan, number>> = { free: 25, monthly: 500, yearly: 1000, credits: 0, admin: UNLIMITED }

/** Units per calendar month: the account's custom allowance when it has one, else its plan's. */
export const monthlyAllowance = (plan: Plan, monthlyUnits: number | null): number => monthlyUnits ?? PLAN_ALLOWANCE[plan]

/** The first instant (UTC) of the calendar month `now` falls in. */
export const periodStartOf = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))

/** The first instant (UTC) of the day `now` falls in: the period of the web channel's daily pool. */
export const dayStartOf = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))

/** Only a `free` account has the web channel's daily pool (contract section 12). */
export const hasWebDailyPool = (plan: Plan): boolean => plan === "free"

/** Today's units of the web channel's daily pool: committed and reserved. Released units count nowhere. */
export interface DailyTally {
  readonly committed: number
  readonly reserved: number
}

/** What is left of a daily pool of `units` per day. */
export const dailyLeft = (units: number, tally: DailyTally): number => Math.max(0, units - tally.committed - tally.reserved)

/** Units counted against an account: this month's allowance, and its credit packs of all time. Released units count nowhere. */
export interface Tally {
  readonly allowanceCommitted: number
  readonly allowanceReserved: number
  readonly creditAdded: number
  readonly creditCommitted: number
  readonly creditReserved: number
}

/** Where a reservation's units come from; `web_daily` only ever for a final job of the web channel. */
export type Pool = "allowance" | "credit_pack" | "web_daily"

const left = (allowance: number, tally: Tally) => ({
  allowance: Math.max(0, allowance - tally.allowanceCommitted - tally.allowanceReserved),
  credit: Math.max(0, tally.creditAdded - tally.creditCommitted - tally.creditReserved)
})

/**
 * The pool `units` are reserved from: the monthly allowance first, then credit packs; none when
 * neither holds them all. A reservation never straddles the two pools (one row, one source); with
 * the one-unit jobs of the contract the question does not arise.
 */
export const poolFor = (allowance: number, tally: Tally, units: number): Pool | undefined => {
  const available = left(allowance, tally)
  return available.allowance >= units ? "allowance" : available.credit >= units ? "credit_pack" : undefined
}

/** The pool the account's next unit would come from, or would if it had one left: its allowance when it has one, else packs. */
export const nextPool = (allowance: number, tally: Tally): Pool =>
  poolFor(allowance, tally, 1) ?? (allowance > 0 ? "allowance" : "credit_pack")

const ALLOWANCE_SOURCE: Readonly<Record<Plan, EntitlementSource>> = {
  free: "free_trial",
  monthly: "api_monthly",
  yearly: "subscription",
  // A credits account has an allowance only when an operator gave it a custom monthly one.
  credits: "api_monthly",
  admin: "admin"
}

/** The snapshot `source` of a unit from `pool` (contract section 6). */
export const sourceOf = (plan: Plan, pool: Pool): EntitlementSource => (pool === "allowance" ? ALLOWANCE_SOURCE[plan] : pool)

export const usageOf = (allowance: number, tally: Tally, periodStart: Date): Usage => {
  const available = left(allowance, tally)
  return {
    periodStart: periodStart.toISOString(),
    used: tally.allowanceCommitted + tally.creditCommitted,
    reserved: tally.allowanceReserved + tally.creditReserved,
    remaining: available.allowance + available.credit,
    creditUnits: available.credit
  }
}
