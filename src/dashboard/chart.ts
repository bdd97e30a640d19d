/**
 * Units per day as a bar chart: an SVG drawn on the server (no script, no library), scaled to its
 * box, with a text alternative listing the days that used units.
 */
import { type Html, html } from "./html.ts"

const WIDTH = 600
const HEIGHT = 160
const TOP = 12
const BOTTOM = 22

export const unitsChart = (days: ReadonlyArray<{ readonly day: string; readonly units: number }>, titleId: string): Html => {
  const max = Math.max(1, ...days.map((d) => d.units))
  const slot = WIDTH / Math.max(1, days.length)
  const plot = HEIGHT - TOP - BOTTOM
  const total = days.reduce((sum, d) => sum + d.units, 0)
  const busy = days.filter((d) => d.units > 0)
  const description =
    total === 0
      ? `No units used in the last ${days.length} days.`
      : `${total} units used in the last ${days.length} days: ${busy.map((d) => `${d.day}: ${d.units}`).join("; ")}.`
  const first = days[0]?.day ?? ""
  const last = days.at(-1)?.day ?? ""
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${titleId} ${titleId}-desc">
    <desc id="${titleId}-desc">${description}</desc>
    <line class="axis" x1="0" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}"></line>
    ${days.map((d, i) => {
      const h = Math.round((d.units / max) * plot)
      return html`<rect class="bar" x="${(i * slot + slot * 0.15).toFixed(1)}" y="${HEIGHT - BOTTOM - h}" width="${(slot * 0.7).toFixed(1)}" height="${h}"><title>${d.day}: ${d.units} units</title></rect>`
    })}
    <text x="0" y="${HEIGHT - 6}">${first}</text>
    <text x="${WIDTH}" y="${HEIGHT - 6}" text-anchor="end">${last}</text>
    <text x="0" y="${TOP - 2}">max ${max}</text>
  </svg>`
}
