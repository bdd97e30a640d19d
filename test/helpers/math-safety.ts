/**
 * What converted math markup may contain outside its string literals: single letters, numbers,
 * names from the converter's tables and its own few functions, the punctuation of calls, scripts
 * and alignment, and the fixed forms of code that src/render/math/code.ts builds (colours, boxes,
 * spaces, sizes, around a nested formula). Anything else is reported: any other `#` (code), `<`/`>`
 * (a label), `@` (a reference), `$` (the end of the formula), or a name the user could have chosen.
 */
import {
  ARROWS,
  CHARACTERS,
  CLASSES,
  DELIMITERS,
  FRACTIONS,
  MATRICES,
  NEGATIONS,
  OPERATORS,
  SPACES,
  SYMBOLS,
  TEXTS,
  WRAPPERS
} from "../../src/render/math/symbols.ts"

/** The functions, arguments and symbols the converter writes itself. */
const STRUCTURE = [
  "attach",
  "b",
  "t",
  "class",
  "binom",
  "cases",
  "display",
  "inline",
  "script",
  "frac",
  "limits",
  "scripts",
  "lr",
  "mid",
  "mat",
  "delim",
  "op",
  "root",
  "sqrt",
  "underbrace",
  "overbrace",
  "mod",
  "quad",
  "prime",
  "upright",
  "overbracket",
  "underbracket"
]

const LENGTH = String.raw`-?\d+(?:\.\d+)?(?:em|pt|mm|cm|in)`
const COLOR = String.raw`rgb\(""\)`
const BOX_ARGUMENT = String.raw`[a-z]+: (?:${COLOR}|${LENGTH}(?: \+ ${COLOR})?|\(x: ${LENGTH}, y: ${LENGTH}\)|black)`
/** The code the converter writes, each form of it (after string literals became `""`), and what stands in for it. */
const CODE: ReadonlyArray<readonly [RegExp, string]> = [
  [/#pr\.math-text\(""(?:, weight: ""|, style: "")?\)/g, '""'],
  [/, size: #\d+%/g, ""],
  [/align: #(?:left|center|right), /g, ""],
  [/augment: #\((?:vline: \([\d, ]*\))?(?:, )?(?:hline: \([\d, ]*\))?\), /g, ""],
  [/reverse: #true, /g, ""],
  [new RegExp(`#h\\(${LENGTH}\\)`, "g"), " "],
  [new RegExp(`#(?:text\\((?:fill: ${COLOR}|size: [\\d.]+em)\\)|box\\(${BOX_ARGUMENT}(?:, ${BOX_ARGUMENT})*\\)|hide)\\[\\$`, "g"), "("],
  [/\$\]/g, ")"],
  [/#box\((?:height|width): 0pt\)\[/g, "("],
  [new RegExp(`#box\\(${BOX_ARGUMENT}(?:, ${BOX_ARGUMENT})*\\)`, "g"), " "],
  [/\]/g, ")"]
]

const NAMES: ReadonlySet<string> = new Set([
  ...STRUCTURE,
  ...Object.values(SYMBOLS),
  ...Object.values(ARROWS),
  ...Object.values(CLASSES),
  ...OPERATORS,
  ...Object.values(CHARACTERS),
  ...Object.values(SPACES),
  ...Object.values(WRAPPERS).flatMap((w) => w.split("(")),
  ...Object.values(TEXTS).flatMap((s) => (s.wrapper === null ? [] : [s.wrapper])),
  ...Object.values(FRACTIONS).flatMap((f) => [f.fn, f.style ?? "frac"]),
  ...Object.values(DELIMITERS),
  ...Object.values(NEGATIONS),
  ...Object.values(MATRICES).filter((m) => !m.startsWith('"') && !m.startsWith("#"))
])

/** The markup with each string literal replaced by `""`. */
const withoutStrings = (typst: string): string => typst.replace(/"(?:[^"\\]|\\.)*"/g, '""')

export const mathSafetyProblems = (typst: string): Array<string> => {
  const problems: Array<string> = []
  // The one constant `#` the converter writes is a matrix's `delim: #none`; placeholders stand for references.
  const outside = CODE.reduce(
    (markup, [form, stand]) => markup.replace(form, stand),
    withoutStrings(typst)
      .replaceAll("delim: #none", 'delim: ""')
      .replace(/\u0000ref\d+\u0000/g, "")
  )
  for (const c of outside) {
    if (!/[A-Za-z0-9 .(),;:&\\_^'"]/.test(c)) problems.push(`character ${JSON.stringify(c)} outside a string`)
  }
  for (const m of outside.matchAll(/\\./g)) if (m[0] !== "\\ ") problems.push(`escape ${m[0]}`)
  for (const [name] of outside.matchAll(/[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)*/g)) {
    if (name.length > 1 && !NAMES.has(name)) problems.push(`name ${name}`)
  }
  return problems
}
