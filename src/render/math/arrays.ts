/**
 * The column specification of `array` (`{c|l|r}`) and the alignment of a starred matrix
 * (`pmatrix*[r]`), read into what Typst's `mat` takes: one alignment and the positions of its
 * vertical rules (`augment`). Typst aligns every column of a matrix alike, so an array whose
 * columns differ is set centred (docs/math.md).
 */
import { refuse } from "./refusal.ts"

const ALIGN: Readonly<Record<string, string>> = { l: "#left", c: "#center", r: "#right" }

export interface Columns {
  /** `#left`, `#center` or `#right`: a constant, never the user's letter. */
  readonly align: string
  /** Rules before column i (0 is the left edge), as Typst's augment counts them. */
  readonly vlines: ReadonlyArray<number>
}

export const arrayColumns = (spec: string): Columns => {
  const aligns: Array<string> = []
  const vlines: Array<number> = []
  for (const c of spec.replace(/\s+/g, "")) {
    const align = ALIGN[c]
    if (align !== undefined) aligns.push(align)
    else if (c === "|" || c === ":") vlines.push(aligns.length)
    else refuse(`an array column specification other than l, c, r and | (${spec.slice(0, 40)})`)
  }
  if (aligns.length === 0) refuse("an array without columns")
  return { align: aligns.every((a) => a === aligns[0]) ? aligns[0]! : "#center", vlines: [...new Set(vlines)] }
}

/** A starred matrix's `[l]`, `[c]` or `[r]`. */
export const matrixAlign = (spec: string | null): string => {
  if (spec === null) return "#center"
  return ALIGN[spec.trim()] ?? refuse(`a matrix alignment other than l, c or r (${spec.slice(0, 40)})`)
}

/** Typst's `augment` argument for rules after the given columns and rows, or "" for none. */
export const augment = (vlines: ReadonlyArray<number>, hlines: ReadonlyArray<number>): string => {
  const list = (ns: ReadonlyArray<number>) => `(${ns.join(", ")}${ns.length === 1 ? "," : ""})`
  const parts = [...(vlines.length > 0 ? [`vline: ${list(vlines)}`] : []), ...(hlines.length > 0 ? [`hline: ${list(hlines)}`] : [])]
  return parts.length === 0 ? "" : `augment: #(${parts.join(", ")}), `
}
