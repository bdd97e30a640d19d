/**
 * Any mix of Markdown syntax, Typst-special characters, scripts, emoji and control characters
 * renders: the renderer resolves with a PDF that mupdf opens. fast-check prints the seed and the
 * shrunk counterexample when a run fails. The fragments include malformed images (a PNG and SVGs
 * Typst cannot decode), which must give alt text, never a failed render (gfm.test.ts asserts the
 * warning). The main run renders 50 documents, PRESSROOM_TEST_FULL=1 renders 300
 * (test/helpers/sample.ts); each run draws new ones.
 */
import t from "tap"
import fc from "fast-check"
import { Renderer } from "../../src/render/renderer.ts"
import { isValidPdf } from "../helpers/pdf.ts"
import { PNG_1x1, testEngine } from "../helpers/render.ts"
import { fullRun } from "../helpers/sample.ts"

const FRAGMENTS = [
  "# ",
  "## ",
  "###### ",
  "#",
  "Setext\n===",
  "\n---\n",
  "***",
  "*",
  "**",
  "_",
  "__",
  "~~",
  "~",
  "`",
  "```",
  "```js\n",
  "~~~\n",
  "    ",
  "\t",
  "- ",
  "* ",
  "+ ",
  "1. ",
  "7) ",
  "- [ ] ",
  "- [x] ",
  "> ",
  ">> ",
  "  \n",
  "\\\n",
  "\\",
  "| a | b |\n|:--|--:|\n| c | d |\n",
  "|",
  "|---|",
  ":-:",
  "[link](https://example.com)",
  "[ref][r]",
  '\n[r]: https://r.example "T"\n',
  "<https://auto.example>",
  "www.example.com",
  "a@b.co",
  "![alt](https://example.com/x.png)",
  `![png](data:image/png;base64,${PNG_1x1})`,
  "![bad](data:image/png;base64,AAAA)",
  "![svg](data:image/svg+xml,%3Csvg%3E%3C/svg%3E)",
  "![bad svg](data:image/svg+xml,%3Csvg%3E)",
  "![cut svg](data:image/svg+xml,%3Csvg%20width%3D%2210%22%3E%3Crect)",
  "<div>",
  "</div>",
  "<span>x</span>",
  "<!-- pagebreak -->",
  "<!--",
  "-->",
  "<br/>",
  "&amp;",
  "&#0;",
  "&nbsp;",
  "&bogus;",
  "[^1]",
  "\n[^1]: note\n",
  "[^x]",
  "\n[^x]:\n",
  "---\ntitle: T\n---\n",
  "---\n: [\n---\n",
  "#",
  "$",
  "=",
  "+",
  "/",
  "//",
  "/*",
  "*/",
  "@",
  "<",
  ">",
  "<lbl>",
  "@lbl",
  "[",
  "]",
  "{",
  "}",
  "(",
  ")",
  '"',
  "'",
  "\\u{0}",
  '#eval("1")',
  "#set page(width: 1pt)",
  "日本語",
  "中文字",
  "한국어",
  "مرحبا بالعالم",
  "नमस्ते",
  "Ελληνικά",
  "Привет",
  "🦄",
  "👩‍👩‍👧",
  "🇫🇷",
  "\u200d",
  "\u202e",
  "\ufeff",
  "\u0301",
  "\u0000",
  "\u0001",
  "\u0007",
  "\u000b",
  "\u000c",
  "\r",
  "\r\n",
  "\u007f",
  "\u0085",
  "\u2028",
  "\ud800",
  "\udfff",
  "\uffff",
  "\u{10ffff}",
  "\u{10D30}"
]

const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) }
)
const separator = fc.constantFrom("", " ", "\n", "\n\n", "  \n")
const markdown = fc
  .array(
    fc.tuple(piece, separator).map(([p, s]) => p + s),
    { maxLength: 40 }
  )
  .map((parts) => parts.join(""))

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

const RUNS = fullRun ? 300 : 50

t.test("arbitrary Markdown always renders to a PDF", async (t) => {
  // fc.assert rejects with the seed and the shrunk counterexample when one document fails.
  await t.resolves(
    fc.assert(
      fc.asyncProperty(markdown, async (md) => {
        const result = await renderer.render({ markdown: md, templateId: "clean" })
        if (!isValidPdf(result.pdf)) throw new Error("the result is not a PDF mupdf opens")
        if (result.pageCount < 1) throw new Error("no pages")
      }),
      { numRuns: RUNS }
    ),
    `${RUNS} documents render`
  )
})
