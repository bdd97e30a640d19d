/** Instants as the dashboard shows them: UTC to the minute, with the exact instant for machines. */
import { html } from "./html.ts"

export const showTime = (at: Date | null | undefined) =>
  at ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace("T", " ")} UTC</time>` : "—"
