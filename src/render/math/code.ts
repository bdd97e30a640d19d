/**
 * The few constructs Typst math has no function for (colour, boxes, spaces, phantoms, font sizes)
 * are written as Typst code around a nested formula: `#text(fill: rgb("#cc0000"))[$…$]`. Every
 * piece of that code is built here from constants, a number the converter parsed itself, or a
 * colour checked against a pattern or looked up in a table; what the user wrote reaches it only as
 * the converter's own math markup inside the `[$…$]`. helpers/math-safety.ts knows these forms.
 */
import { refuse } from "./refusal.ts"

/** xcolor's and KaTeX's colour names, as the hex Typst is given (never the name the user wrote). */
export const COLORS: Readonly<Record<string, string>> = {
  black: "000000",
  white: "ffffff",
  red: "ff0000",
  green: "00ff00",
  blue: "0000ff",
  cyan: "00ffff",
  magenta: "ff00ff",
  yellow: "ffff00",
  gray: "808080",
  grey: "808080",
  darkgray: "404040",
  lightgray: "bfbfbf",
  brown: "bf8040",
  lime: "bfff00",
  olive: "808000",
  orange: "ff8000",
  pink: "ffbfbf",
  purple: "bf0040",
  teal: "008080",
  violet: "800080",
  navy: "000080",
  maroon: "800000",
  gold: "ffd700",
  aqua: "00ffff",
  fuchsia: "ff00ff",
  silver: "c0c0c0"
}

/** A colour argument (`red`, `#c00`, `#cc0000`, `cc0000`) as a Typst `rgb("#rrggbb")`, or a refusal. */
export const color = (spec: string): string => {
  const named = COLORS[spec.trim().toLowerCase()]
  if (named !== undefined) return `rgb("#${named}")`
  const hex = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.exec(spec.trim())?.[1]
  if (hex === undefined) return refuse(`an unknown colour (${spec.slice(0, 40)}): use a name such as red or a hex colour such as #cc0000`)
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex
  return `rgb("#${full.toLowerCase()}")`
}

/** Units of a TeX length, in Typst's units: `mu` is 1/18 em (a math unit), `ex` about half an em. */
const UNITS: Readonly<Record<string, readonly [number, string]>> = {
  em: [1, "em"],
  ex: [0.5, "em"],
  mu: [1 / 18, "em"],
  pt: [1, "pt"],
  bp: [1, "pt"],
  pc: [12, "pt"],
  mm: [1, "mm"],
  cm: [1, "cm"],
  in: [1, "in"]
}

/** Lengths beyond this (in em, or 100 of any other unit) are refused: a formula a page wide is not a formula. */
const MAX_LENGTH = 100

/** A TeX length (`-3mu`, `1.5em`, `2 pt`) as a Typst length, or a refusal. */
export const length = (spec: string): string => {
  const match = /^\s*([+-]?)\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]{2})\s*$/.exec(spec)
  const unit = match ? UNITS[match[3]!] : undefined
  if (match === null || unit === undefined) return refuse(`a length that is not a number and a unit (${spec.slice(0, 40)})`)
  const n = Number(match[2])
  if (n > MAX_LENGTH) return refuse(`a length over ${MAX_LENGTH} (${spec.slice(0, 40)})`)
  // Rounded so that the number is written plainly, never in exponent notation.
  const value = Math.round((match[1] === "-" ? -n : n) * unit[0] * 10000) / 10000
  return `${value}${unit[1]}`
}

/** LaTeX's size commands, relative to the size around them (10pt: \tiny is 5pt, \Huge 24.88pt). */
export const FONT_SIZES: Readonly<Record<string, number>> = {
  tiny: 0.5,
  scriptsize: 0.7,
  footnotesize: 0.8,
  small: 0.9,
  normalsize: 1,
  large: 1.2,
  Large: 1.44,
  LARGE: 1.728,
  huge: 2.074,
  Huge: 2.488
}

/** The \big family: the delimiter's height relative to the text (KaTeX's 1.2, 1.8, 2.4 and 3 times). */
export const DELIMITER_SIZES: Readonly<Record<string, number>> = {
  big: 120,
  bigl: 120,
  bigr: 120,
  bigm: 120,
  Big: 180,
  Bigl: 180,
  Bigr: 180,
  Bigm: 180,
  bigg: 240,
  biggl: 240,
  biggr: 240,
  biggm: 240,
  Bigg: 300,
  Biggl: 300,
  Biggr: 300,
  Biggm: 300
}

/** Markup nested in code: the converter's own math, set again as an equation (in display style when the formula is one). */
export const nested = (markup: string, display: boolean): string => `[$${display ? `display(${markup || '""'})` : markup}$]`
