/**
 * The ledger's arithmetic without a database: calendar months in UTC, the order of the pools, and
 * used + reserved + remaining = allowance + credit units for every reachable tally.
 */
import fc from "fast-check"
import t from "tap"
import {
  monthlyAllowance,
  nextPool,
  PACK_UNITS,
  periodStartOf,
  poolFor,
  sourceOf,
  type Tally,
  UNLIMITED,
  usageOf
} from "../../src/entitlements/allowance.ts"

const empty: Tally = { allowanceCommitted: 0, allowanceReserved: 0, creditAdded: 0, creditCommitted: 0, creditReserved: 0 }

t.test("a period is the calendar month in UTC", async (t) => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["2026-01-31T23:59:59.999Z", "2026-01-01T00:00:00.000Z"],
    ["2026-02-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"],
    // Still 31 December in UTC, though already January in Berlin.
    ["2027-01-01T00:30:00+01:00", "2026-12-01T00:00:00.000Z"],
    // Already March in UTC, still February in New York.
    ["2028-02-29T22:00:00-05:00", "2028-03-01T00:00:00.000Z"]
  ]
  for (const [now, start] of cases) t.equal(periodStartOf(new Date(now)).toISOString(), start, now)
})

t.test("allowances by plan, and a custom one in their place", async (t) => {
  t.same(
    (["free", "monthly", "yearly", "credits", "admin"] as const).map((plan) => monthlyAllowance(plan, null)),
    [25, 500, 1000, 0, UNLIMITED]
  )
  t.equal(monthlyAllowance("free", 40), 40)
  t.equal(monthlyAllowance("admin", 3), 3, "an operator may cap even an admin account")
  t.equal(monthlyAllowance("yearly", 0), 0)
})

t.test("the allowance goes first, then packs, never a pool that cannot hold the whole reservation", async (t) => {
  t.equal(poolFor(2, empty, 1), "allowance")
  t.equal(poolFor(2, { ...empty, allowanceCommitted: 1, allowanceReserved: 1, creditAdded: PACK_UNITS }, 1), "credit_pack")
  t.equal(poolFor(2, { ...empty, allowanceCommitted: 2, creditAdded: PACK_UNITS, creditCommitted: 250 }, 1), undefined)
  t.equal(poolFor(1, { ...empty, creditAdded: PACK_UNITS }, 2), "credit_pack", "two units do not straddle the pools")
  t.equal(nextPool(0, empty), "credit_pack", "an account without an allowance draws on packs")
  t.equal(
    nextPool(25, { ...empty, allowanceCommitted: 25 }),
    "allowance",
    "an exhausted allowance is still where the next unit would come from"
  )
  t.equal(sourceOf("free", "allowance"), "free_trial")
  t.equal(sourceOf("yearly", "allowance"), "subscription")
  t.equal(sourceOf("monthly", "allowance"), "api_monthly")
  t.equal(sourceOf("admin", "allowance"), "admin")
  t.equal(sourceOf("free", "credit_pack"), "credit_pack")
})

t.test("used + reserved + remaining is the entitlement for every tally the ledger can reach", async () => {
  // Reachable: the allowance never holds more than itself, the packs never more than were added.
  const reachable = fc
    .record({ allowance: fc.integer({ min: 0, max: 2000 }), packs: fc.integer({ min: 0, max: 20 }) })
    .chain(({ allowance, packs }) =>
      fc.record({
        allowance: fc.constant(allowance),
        allowanceHeld: fc
          .integer({ min: 0, max: allowance })
          .chain((held) => fc.tuple(fc.constant(held), fc.integer({ min: 0, max: held }))),
        creditAdded: fc.constant(packs * PACK_UNITS),
        creditHeld: fc
          .integer({ min: 0, max: packs * PACK_UNITS })
          .chain((held) => fc.tuple(fc.constant(held), fc.integer({ min: 0, max: held })))
      })
    )
  fc.assert(
    fc.property(
      reachable,
      ({ allowance, allowanceHeld: [allowanceHeld, allowanceCommitted], creditAdded, creditHeld: [creditHeld, creditCommitted] }) => {
        const tally: Tally = {
          allowanceCommitted,
          allowanceReserved: allowanceHeld - allowanceCommitted,
          creditAdded,
          creditCommitted,
          creditReserved: creditHeld - creditCommitted
        }
        const usage = usageOf(allowance, tally, new Date("2026-07-01T00:00:00Z"))
        const pool = poolFor(allowance, tally, 1)
        return (
          usage.used + usage.reserved + usage.remaining === allowance + creditAdded &&
          usage.creditUnits === creditAdded - creditHeld &&
          (pool === undefined) === (usage.remaining === 0) &&
          (pool === "credit_pack") === (allowanceHeld === allowance && creditHeld < creditAdded)
        )
      }
    )
  )
})
