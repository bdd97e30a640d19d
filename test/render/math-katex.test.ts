/**
 * KaTeX's list of supported functions (test/fixtures/katex-functions.json, from KaTeX 0.18.2's
 * support table, with the example each row gives) as the reference for what people write:
 * every entry the converter takes typesets, all of them in one document, without an error or a
 * warning; every entry it refuses is named in docs/math.md's list of refusals, and that list names
 * nothing the converter takes.
 */
import { readFileSync } from "node:fs"
import t from "tap"
import { latexToTypst } from "../../src/render/math/latex-to-typst.ts"
import { loadLatexParser } from "../../src/render/math/latex-parser.ts"
import { mathSafetyProblems } from "../helpers/math-safety.ts"
import { mathDocument, startTypstChecker, type TypstCheck } from "../helpers/typst-check.ts"

await loadLatexParser()

interface Fixture {
  readonly source: string
  readonly version: string
  readonly entries: ReadonlyArray<{ readonly name: string; readonly latex: string }>
}
const fixture = JSON.parse(readFileSync(new URL("../fixtures/katex-functions.json", import.meta.url), "utf8")) as Fixture
const docs = readFileSync(new URL("../../docs/math.md", import.meta.url), "utf8")
const refusedSection = docs.slice(docs.indexOf("## Refused"))

const converted: Array<{ readonly name: string; readonly typst: string; readonly display: boolean }> = []
const refused: Array<string> = []
for (const { name, latex } of fixture.entries) {
  const result = latexToTypst(latex, "display")
  if (result.ok) converted.push({ name, typst: result.value.typst, display: true })
  else refused.push(name)
}

/** The names docs/math.md lists as refused: each in backticks (in double ones when it holds a backtick). */
const listed = new Set([...refusedSection.matchAll(/`` (.+?) ``|`([^`]+)`/g)].map((m) => m[1] ?? m[2]!))

t.test("the reference is KaTeX's list, named with its version", async (t) => {
  t.equal(fixture.version, "0.18.2")
  t.match(fixture.source, /KaTeX.*support_table\.md/)
  t.ok(fixture.entries.length > 900, `${fixture.entries.length} entries`)
})

t.test("at least two thirds of KaTeX's functions are typeset", async (t) => {
  t.ok(converted.length >= (fixture.entries.length * 2) / 3, `${converted.length} of ${fixture.entries.length}`)
})

t.test("every refused entry is in docs/math.md's list of refusals, and the list holds only refused ones", async (t) => {
  t.same(
    refused.filter((name) => !listed.has(name)),
    [],
    "refused but not listed"
  )
  t.same(
    converted.map((c) => c.name).filter((name) => listed.has(name)),
    [],
    "listed but typeset"
  )
})

t.test("every supported entry converts to safe markup and typesets without an error or warning", async (t) => {
  for (const c of converted) t.same(mathSafetyProblems(c.typst), [], c.name)
  const check = await startTypstChecker()
  const clean = (result: TypstCheck) => result.errors.length === 0 && result.warnings.length === 0
  const compile = (items: ReadonlyArray<{ typst: string; display: boolean }>) => check(mathDocument(items))
  const whole = compile(converted)
  t.same(whole, { errors: [], warnings: [] }, `${converted.length} formulas in one document`)
  if (clean(whole)) return
  const culprits: Array<(typeof converted)[number]> = []
  const bisect = (items: ReadonlyArray<(typeof converted)[number]>): void => {
    if (clean(compile(items))) return
    if (items.length === 1) return void culprits.push(items[0]!)
    const half = Math.ceil(items.length / 2)
    bisect(items.slice(0, half))
    bisect(items.slice(half))
  }
  bisect(converted)
  for (const c of culprits) t.fail(c.name, { typst: c.typst, ...compile([c]) })
})
