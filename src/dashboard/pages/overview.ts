/** The overview (contract section 12): this period's units and units per day over the last 30 days. */
import { Effect } from "effect"
import { CurrentPrincipal } from "../../accounts/principal.ts"
import { Ledger } from "../../entitlements/ledger.ts"
import { unitsChart } from "../chart.ts"
import { html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember } from "../member-context.ts"
import { htmlResponse } from "../responses.ts"

const CHART_DAYS = 30

export const showOverview = Effect.gen(function* () {
  const member = yield* CurrentMember
  const { accountId } = yield* CurrentPrincipal
  const ledger = yield* Ledger
  const usage = yield* ledger.usage(accountId)
  const days = yield* ledger.unitsPerDay(accountId, CHART_DAYS)
  const period = usage.periodStart.slice(0, 7)
  return htmlResponse(
    document({
      title: "Overview",
      member,
      path: "/app/overview",
      main: html`<h1>Overview</h1>
        <section aria-labelledby="period">
          <h2 id="period">Units this period (${period})</h2>
          <dl class="stats">
            <div><dt>Used</dt><dd>${usage.used}</dd></div>
            <div><dt>Reserved</dt><dd>${usage.reserved}</dd></div>
            <div><dt>Remaining</dt><dd>${usage.remaining}</dd></div>
            <div><dt>Credit units</dt><dd>${usage.creditUnits}</dd></div>
          </dl>
          <p class="hint">A final PDF uses one unit; previews use none. Reserved units belong to jobs still running.</p>
          ${
            usage.webDaily
              ? html`<p id="web-daily">Today's publications from this dashboard: ${usage.webDaily.used} used, ${usage.webDaily.remaining} left
                  (a free account's daily allowance, apart from the month's units).</p>`
              : ""
          }
        </section>
        <section aria-labelledby="per-day">
          <h2 id="per-day">Units per day, last ${CHART_DAYS} days</h2>
          <div class="card">${unitsChart(days, "per-day")}</div>
        </section>`
    })
  )
})
