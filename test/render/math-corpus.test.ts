/**
 * The corpus of formulas people write (test/fixtures/math-corpus.ts): each converts, and all of
 * them typeset together, inline and display, in one document that the Typst compiler of our
 * release compiles without an error or a warning; on a failure the document is bisected down to
 * the formula that causes it. The markup of each holds nothing but single letters, numbers, names
 * from the converter's tables and string literals (helpers/math-safety.ts).
 */
import t from "tap"
import { latexToTypst, REF_PLACEHOLDER } from "../../src/render/math/latex-to-typst.ts"
import { loadLatexParser } from "../../src/render/math/latex-parser.ts"
import { MATH_CORPUS } from "../fixtures/math-corpus.ts"
import { mathSafetyProblems } from "../helpers/math-safety.ts"
import { mathDocument, startTypstChecker, type TypstCheck } from "../helpers/typst-check.ts"

await loadLatexParser()

interface Converted {
  readonly latex: string
  readonly typst: string
  readonly display: boolean
}

const formulas = MATH_CORPUS.flatMap((group) => group.formulas.map((latex) => ({ latex, mode: group.mode, source: group.source })))

t.test("the corpus holds at least 200 formulas from named sources, over every subject", async (t) => {
  t.ok(formulas.length >= 200, `${formulas.length} formulas`)
  t.same(new Set(MATH_CORPUS.map((g) => g.subject)), new Set(["coursework", "physics", "statistics", "chemistry", "computer science"]))
  t.ok(
    MATH_CORPUS.every((g) => g.source.length > 20),
    "each group names its source"
  )
  t.equal(new Set(formulas.map((f) => f.latex)).size, formulas.length, "no formula twice")
})

const converted: Array<Converted> = []
t.test("every formula converts", async (t) => {
  for (const { latex, mode, source } of formulas) {
    const result = latexToTypst(latex, mode)
    if (!result.ok) {
      t.fail(`${latex} (${source}): ${result.reason}`)
      continue
    }
    t.same(mathSafetyProblems(result.value.typst), [], `only letters, numbers, table names and strings: ${latex}`)
    // References are the Markdown converter's to resolve; a number stands in for each here.
    const typst = result.value.references.reduce((markup, _, i) => markup.replace(REF_PLACEHOLDER(i), `"(${i + 1})"`), result.value.typst)
    converted.push({ latex, typst, display: mode === "display" })
  }
  t.equal(converted.length, formulas.length, "all of them")
})

t.test("every converted formula typesets, inline and display, without an error or warning", async (t) => {
  const check = await startTypstChecker()
  // Each formula both ways: a display formula inline and an inline one displayed must work too,
  // except aligned rows, which only display formulas take.
  const both = converted.flatMap((f) => [
    f,
    ...(f.typst.includes("&") && !f.typst.includes("cases(") ? [] : [{ ...f, display: !f.display }])
  ])
  const clean = (result: TypstCheck) => result.errors.length === 0 && result.warnings.length === 0
  const compile = (items: ReadonlyArray<Converted>) => check(mathDocument(items))
  const whole = compile(both)
  t.same(whole, { errors: [], warnings: [] }, `${both.length} formulas in one document`)
  if (clean(whole)) return
  // Bisect: name each formula that fails on its own.
  const culprits: Array<Converted> = []
  const bisect = (items: ReadonlyArray<Converted>): void => {
    if (clean(compile(items))) return
    if (items.length === 1) return void culprits.push(items[0]!)
    const half = Math.ceil(items.length / 2)
    bisect(items.slice(0, half))
    bisect(items.slice(half))
  }
  bisect(both)
  for (const f of culprits) t.fail(`${f.display ? "display" : "inline"}: ${f.latex}`, { typst: f.typst, ...compile([f]) })
})
