/** What a job's entitlement looked like (specification 2.9) and an account's use of units (contract section 9). */
import { Schema } from "effect"
import { Plan } from "./plan.ts"
import { Timestamp } from "../shared/timestamp.ts"

export const EntitlementSource = Schema.Literal("free_trial", "web_daily", "api_monthly", "credit_pack", "subscription", "admin")
export type EntitlementSource = typeof EntitlementSource.Type

/** The entitlement a job was admitted under, captured at admission. */
export const EntitlementSnapshot = Schema.Struct({
  capturedAt: Timestamp,
  catalogVersion: Schema.String,
  plan: Plan,
  source: EntitlementSource,
  /** 0 for a preview, the disclosed unit count for a final job. */
  units: Schema.Int.pipe(Schema.between(0, 100))
}).annotations({ identifier: "EntitlementSnapshot" })
export type EntitlementSnapshot = typeof EntitlementSnapshot.Type

const UnitCount = Schema.Int.pipe(Schema.nonNegative())

/** A `free` account's web channel daily pool today (contract section 12); apart from the month's figures. */
export const WebDailyUsage = Schema.Struct({
  used: UnitCount.annotations({ description: "units of today's (UTC) daily pool committed by finished publications from the dashboard" }),
  remaining: UnitCount.annotations({ description: "units of today's daily pool a publication from the dashboard may still reserve" })
}).annotations({ identifier: "WebDailyUsage" })
export type WebDailyUsage = typeof WebDailyUsage.Type

/**
 * An account's units in the current calendar month (UTC). `used + reserved + remaining` is the
 * month's entitlement: the monthly allowance plus every credit-pack unit ever added. `used` and
 * `reserved` count this month's allowance units and credit-pack units of any month (packs never
 * expire). An unlimited account (the admin plan without a custom allowance) has an entitlement of
 * 2^53 − 1 units, the largest integer every JSON client reads exactly: `remaining` is that minus
 * what it used and reserved, and no account can use that many. Units of the web channel's daily
 * pool count in `webDaily` only.
 */
export const Usage = Schema.Struct({
  periodStart: Timestamp.annotations({ description: "the first instant of the current calendar month (UTC)" }),
  used: UnitCount.annotations({ description: "units committed by finished final jobs" }),
  reserved: UnitCount.annotations({ description: "units held by final jobs still running" }),
  remaining: UnitCount.annotations({ description: "units a final job may still reserve: the allowance's, then the credit packs'" }),
  creditUnits: UnitCount.annotations({ description: "credit-pack units neither used nor reserved" }),
  webDaily: Schema.optional(WebDailyUsage).annotations({
    description: "a free account's daily pool for publications from the dashboard; absent on other plans"
  })
}).annotations({ identifier: "Usage" })
export type Usage = typeof Usage.Type
