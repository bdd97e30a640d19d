/**
 * The markup of a formula is a row of atoms: a base with its primes, sub- and superscript and
 * limits placement. Scripts attach to the last atom written, as in LaTeX.
 */
export interface Atom {
  readonly base: string
  /** The base is several tokens (a `{…}` group): scripts need `attach` to keep it whole. */
  readonly group: boolean
  primes: number
  sub: string | null
  sup: string | null
  limits: "limits" | "scripts" | null
}

export const atom = (base: string, group = false): Atom => ({ base, group, primes: 0, sub: null, sup: null, limits: null })

/** An empty base (`{}^{14}_{6}C`) is an empty string, which Typst accepts as a base for scripts. */
const EMPTY = '""'

export const renderAtom = (a: Atom): string => {
  const base = a.limits ? `${a.limits}(${a.base || EMPTY})` : a.base
  const primes = "'".repeat(a.primes)
  if (a.sub === null && a.sup === null) return `${base}${primes}`
  if (a.group) return `attach(${base}${primes}${a.sub === null ? "" : `, b: ${a.sub}`}${a.sup === null ? "" : `, t: ${a.sup}`})`
  return `${base || EMPTY}${primes}${a.sub === null ? "" : `_(${a.sub})`}${a.sup === null ? "" : `^(${a.sup})`}`
}
