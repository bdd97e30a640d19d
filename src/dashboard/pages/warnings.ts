/**
 * A job's warnings beside the lines of the source they name (contract section 6: `line` is
 * 1-based, or null for a warning about the whole document): each named line is shown, as text,
 * with its warnings next to it; the others follow.
 */
import type { RenderWarning } from "../../render/common/warnings.ts"
import { html } from "../html.ts"

export const warningsBesideLines = (warnings: ReadonlyArray<RenderWarning>, markdown: string) => {
  if (warnings.length === 0) return ""
  const lines = markdown.split("\n")
  const byLine = new Map<number, Array<RenderWarning>>()
  for (const warning of warnings) {
    if (warning.line === null) continue
    byLine.set(warning.line, [...(byLine.get(warning.line) ?? []), warning])
  }
  const general = warnings.filter((warning) => warning.line === null)
  return html`<section aria-labelledby="warnings" class="warnings">
    <h3 id="warnings">Warnings (${warnings.length})</h3>
    <ol class="source-lines">
      ${[...byLine.entries()]
        .sort(([a], [b]) => a - b)
        .map(
          ([line, named]) => html`<li>
            <span class="line-number">Line ${line}</span>
            <code class="line-text">${lines[line - 1] ?? ""}</code>
            <ul class="line-warnings">${named.map((warning) => html`<li>${warning.message} <span class="tag">${warning.code}</span></li>`)}</ul>
          </li>`
        )}
    </ol>
    ${
      general.length === 0
        ? ""
        : html`<ul class="line-warnings">${general.map((warning) => html`<li>${warning.message} <span class="tag">${warning.code}</span></li>`)}</ul>`
    }
  </section>`
}
