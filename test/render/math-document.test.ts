/**
 * Formulas in documents (issue 22, points 2 and 3), through the renderer, read back from the PDF:
 * inline, `$$` blocks, `$$…$$` within a paragraph and ```` ```math ```` blocks are typeset as math
 * (the text layer holds mathematical letters, not the LaTeX source); display formulas are
 * numbered (1), (2), … in the templates that number them, `\notag` drops a number, `\tag{A}` shows
 * (A) without taking one, and a `\label`led formula is numbered in any template so that
 * `\eqref`/`\ref` in prose or in a formula show its number, even before it; an unknown reference
 * is ?? with a warning; a formula that cannot be converted shows its source with a warning naming
 * its line, and the document still renders; right-to-left pages keep formulas left to right.
 */
import t from "tap"
import type { TemplateId } from "../../src/render/catalog.ts"
import type { Locale } from "../../src/render/locales.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { pageTexts } from "../helpers/pdf.ts"
import { testEngine } from "../helpers/render.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 1, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

const render = async (markdown: string, templateId: TemplateId, locale: Locale = "en") => {
  const result = await renderer.render({ markdown, templateId, locale })
  return { text: pageTexts(result.pdf).join("\n"), warnings: result.warnings }
}

/** Mathematical italic letters, as the math font writes them into the text layer. */
const italic = (letters: string) =>
  [...letters].map((c) => String.fromCodePoint((c === c.toUpperCase() ? 0x1d434 : 0x1d44e) + c.toLowerCase().charCodeAt(0) - 97)).join("")

const NUMBERED = `# Results

Euler's identity $e^{i\\pi} + 1 = 0$ is inline.

$$
a + b
$$

$$
c + d \\notag
$$

As \\eqref{eq:energy} shows, and \\ref{eq:energy} again:

$$
E = m \\label{eq:energy}
$$

\`\`\`math
F = q \\tag{A}
\`\`\`

$$
g + h
$$

In a formula: $x = \\eqref{eq:energy}$.
`

t.test("academic numbers display formulas; \\notag, \\tag and \\label adjust; references show numbers", async (t) => {
  const { text, warnings } = await render(NUMBERED, "academic")
  t.same(warnings, [], "no warning")
  t.match(text, new RegExp(`${italic("e")}${italic("i")}`), "the inline formula is typeset as math")
  t.notMatch(text, /\\pi|\\notag|\\label|\\tag|eq:energy|\$\$/, "no LaTeX source in the text")
  const numbers = [...text.matchAll(/^\((\w)\)$/gm)].map((match) => match[1])
  // a+b is (1), c+d has none, E = m is (2), F = q is (A), g+h is (3): the tag took no number.
  t.same(numbers, ["1", "2", "A", "3"], "the formulas' numbers, in order")
  t.match(text, /As \(2\) shows, and 2 again:/, "\\eqref and \\ref in prose, before the formula they name")
  t.match(text, new RegExp(`${italic("x")}= ?\\(2\\)`), "\\eqref within a formula")
})

t.test("an unnumbered template numbers only labelled formulas", async (t) => {
  const { text, warnings } = await render(NUMBERED, "clean")
  t.same(warnings, [])
  const numbers = [...text.matchAll(/^\((\w)\)$/gm)].map((match) => match[1])
  t.same(numbers, ["1", "A"], "the labelled formula is (1), the tagged one (A), the rest unnumbered")
  t.match(text, /As \(1\) shows, and 1 again:/)
})

t.test("an unknown or duplicate label is a warning, the reference ??", async (t) => {
  const markdown = "# Refs\n\n$$\nx \\label{a}\n$$\n\n$$\ny \\label{a}\n$$\n\nSee \\eqref{b} and $\\ref{c}$.\n"
  const { text, warnings } = await render(markdown, "academic")
  t.match(text, /See \?\? and \?\?\./)
  t.same(
    warnings.map(({ code, line }) => [code, line]),
    [
      ["math_label_duplicate", 7],
      ["math_reference_unknown", 11],
      ["math_reference_unknown", 11]
    ]
  )
})

t.test("a formula that cannot be converted shows its source with a warning; the document renders", async (t) => {
  const markdown = "# Unsupported\n\nFirst $\\def\\x{1}$ inline.\n\n$$\n\\begin{tabular}{c} x \\end{tabular}\n$$\n\nStill here: $y^2$.\n"
  const { text, warnings } = await render(markdown, "academic")
  t.match(text, /First \\def\\x\{1\} inline\./, "the inline source, as written")
  t.match(text, /\\begin\{tabular\}\{c\} x \\end\{tabular\}/, "the display source, as written")
  t.match(text, new RegExp(`Still here: ${italic("y")}2\\.`), "the rest is typeset")
  t.same(
    warnings.map(({ code, line }) => [code, line]),
    [
      ["math_unsupported", 3],
      ["math_unsupported", 5]
    ]
  )
  t.match(warnings[0]!.message, /\\def/)
})

t.test("$$…$$ within a paragraph is displayed; an escaped dollar is a dollar", async (t) => {
  const { text, warnings } = await render("Before $$a = b$$ after, for \\$5 and \\$10.\n", "clean")
  t.same(warnings, [])
  t.match(text, /Before/)
  t.match(text, new RegExp(`${italic("a")}= ${italic("b")}`))
  t.match(text, /after, for \$5 and \$10\./)
})

t.test("right-to-left pages keep formulas left to right", async (t) => {
  const { text, warnings } = await render("# معادلة\n\nالمعادلة $a + b = c$ بسيطة.\n\n$$\nx - y\n$$\n", "clean", "ar")
  t.same(warnings, [])
  t.match(text, new RegExp(`${italic("a")} ?\\+ ?${italic("b")} ?= ?${italic("c")}`), "a + b = c, in that order")
  t.match(text, new RegExp(`${italic("x")} ?− ?${italic("y")}`), "x − y, in that order")
})
