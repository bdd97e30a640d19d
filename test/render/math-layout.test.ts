/**
 * How formulas sit on the page, measured in the PDF: a display formula stands apart from the
 * paragraphs around it even where paragraphs are spaced only by their leading, `cases` sets its
 * conditions a quad after its values, in a column, as LaTeX does, and formulas are set in the math
 * face that matches the text (STIX Two Math beside serif, Noto Sans Math beside sans) with their
 * `\text{…}` in the text face.
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { fontsOf, pdfChars } from "../helpers/pdf.ts"
import { testEngine } from "../helpers/render.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 1, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

t.test("a display formula is set off from the text by more than a paragraph's spacing", async (t) => {
  // This template spaces paragraphs by their leading alone, as LaTeX's article does: the same
  // document with the formula written as a plain paragraph gives the spacing to beat.
  const gaps = async (middle: string) => {
    const markdown = `Before the formula, Qq.\n\n${middle}\n\nZz after the formula.\n`
    const chars = pdfChars((await renderer.render({ markdown, templateId: "assignment-university-research" })).pdf)
    const [above, middleLine, below] = [chars.find((c) => c.c === "Q")!, chars.find((c) => c.c === "=")!, chars.find((c) => c.c === "Z")!]
    return { above: middleLine.y - above.y, below: below.y - middleLine.y, em: above.size }
  }
  const formula = await gaps("$$\na = b\n$$")
  const paragraph = await gaps("a = b")
  t.ok(formula.above >= paragraph.above + formula.em / 3, "a third of an em more space above the formula", { formula, paragraph })
  t.ok(formula.below >= paragraph.below + formula.em / 3, "a third of an em more space below the formula", { formula, paragraph })
})

t.test("cases: the conditions start a quad after the widest value, in one column", async (t) => {
  const markdown = "$$\n|x| = \\begin{cases} x & \\text{if } x \\ge 0 \\\\ -x & \\text{otherwise} \\end{cases}\n$$\n"
  const { pdf, warnings } = await renderer.render({ markdown, templateId: "clean" })
  t.same(warnings, [])
  const chars = pdfChars(pdf)
  const minus = chars.find((c) => c.c === "\u2212")!
  const [ifStart, otherwiseStart] = [chars.find((c) => c.c === "i")!, chars.find((c) => c.c === "o")!].map((c) => c.x0) as [number, number]
  const valueEnd = Math.max(...chars.filter((c) => c.y === minus.y && c.x0 < otherwiseStart).map((c) => c.x1))
  t.equal(ifStart, otherwiseStart, "both conditions start at the same x")
  t.ok(otherwiseStart - valueEnd >= 0.9 * minus.size, "a quad (1em) between -x and its condition", {
    valueEnd,
    otherwiseStart,
    em: minus.size
  })
})

t.test("formulas in STIX Two Math on a serif page and Noto Sans Math on a sans one, their words in the text face", async (t) => {
  const markdown = "Let $\\sum_k x_k = y$ hold.\n\n$$\nf(x) = \\text{Qz if $x>0$}\n$$\n"
  const cases = [
    // academic sets its text in Source Serif 4, clean in Inter (docs/templates.md).
    { templateId: "academic" as const, math: "STIXTwoMath-Regular", text: "SourceSerif4-Regular" },
    { templateId: "clean" as const, math: "NotoSansMath-Regular", text: "Inter-Regular" }
  ]
  for (const { templateId, math, text } of cases) {
    const { pdf, warnings } = await renderer.render({ markdown, templateId })
    t.same(warnings, [], templateId)
    const chars = pdfChars(pdf)
    t.same(fontsOf(chars, "\u2211"), [math], `${templateId}: the sum sign`)
    t.same(fontsOf(chars, "="), [math], `${templateId}: the equals signs`)
    t.same(fontsOf(chars, ">"), [math], `${templateId}: the formula inside \\text{…}`)
    t.same(fontsOf(chars, "Q"), [text], `${templateId}: \\text{…} in the text face`)
  }
})
