/**
 * Nothing a user writes can become Typst code, markup, a label or a reference.
 *
 * Each payload is placed in every context a Markdown document offers. The source is written so the
 * payload is the *intended literal* of that context:
 * - paragraph, heading, table cell, link text, image alt text: every ASCII punctuation character is
 *   backslash-escaped (CommonMark allows escaping any of them; GFM tables need `\|`), so the
 *   Markdown text is exactly the payload;
 * - link target: `[](<https://e.com/#PAYLOAD>)` with punctuation escaped the same way; an empty link
 *   text shows the URL, so the payload must be both the visible text and the link annotation's URI;
 * - code span: a double-backtick span with padding spaces (`` `` PAYLOAD `` ``), literal inside;
 * - fenced code block: a `~~~~` fence, literal inside;
 * - front matter title: a YAML double-quoted (JSON) string; it must show in the PDF and its Title.
 * Every render must succeed, show the payload, keep the A4 page (the `[#set page(width: 1pt)]`
 * payload must not take effect) and never contain /etc/passwd (e.g. "root:").
 * A "raw" context also places the payload unescaped in a paragraph: it must render, keep the page
 * and leak nothing (what it shows is then Markdown's reading of it).
 * Formulas are a context of their own: see "formulas through the renderer" below.
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { isValidPdf, linkUris, metadata, type PdfChar, pageSizes, pageTexts, pdfChars, squash, stripSubset } from "../helpers/pdf.ts"
import { mapLimit, testEngine } from "../helpers/render.ts"

const PAYLOADS = [
  '#read("/etc/passwd")',
  '#import "@preview/x:1.0.0": *',
  '#eval("1+1")',
  "]",
  "[#set page(width: 1pt)]",
  '$#image("x")$',
  "<label>",
  "@ref",
  "\\",
  '"',
  "*",
  "_",
  "#",
  "$",
  "~",
  "=",
  "+",
  "/",
  "`",
  "[[[",
  ")))",
  "}}",
  // A few combinations: a payload that closes our own brackets and opens code.
  '"]#read("/etc/passwd")[',
  "*/ // #let x = 1",
  '\\u{41} \\" #{ 1 }'
]

const escapeMd = (s: string) => s.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`)

interface Context {
  readonly name: string
  readonly markdown: (payload: string) => string
  /** What must be extracted from the PDF (checked with white space removed). */
  readonly shows: (payload: string) => string | undefined
}

const CONTEXTS: ReadonlyArray<Context> = [
  { name: "paragraph", markdown: (p) => `before ${escapeMd(p)} after\n`, shows: (p) => `before ${p} after` },
  { name: "heading", markdown: (p) => `# H ${escapeMd(p)} H\n\ntext\n`, shows: (p) => `H ${p} H` },
  { name: "table cell", markdown: (p) => `| a | b |\n|---|---|\n| ${escapeMd(p)} | z |\n`, shows: (p) => p },
  { name: "link text", markdown: (p) => `[L ${escapeMd(p)} L](https://e.com/)\n`, shows: (p) => `L ${p} L` },
  { name: "link target", markdown: (p) => `go [](<https://e.com/#${escapeMd(p)}>) end\n`, shows: (p) => `https://e.com/#${p}` },
  { name: "code span", markdown: (p) => `code \`\` ${p} \`\` end\n`, shows: (p) => `code ${p} end` },
  { name: "fenced code", markdown: (p) => `~~~~\n${p}\n~~~~\n`, shows: (p) => p },
  { name: "image alt", markdown: (p) => `![A ${escapeMd(p)} A](https://example.com/i.png)\n`, shows: (p) => `A ${p} A` },
  { name: "front matter title", markdown: (p) => `---\ntitle: ${JSON.stringify(`T ${p} T`)}\n---\n\nbody\n`, shows: (p) => `T ${p} T` },
  { name: "raw paragraph (unescaped)", markdown: (p) => `before ${p} after\n`, shows: () => undefined }
]

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

t.test("payloads in every context", async (t) => {
  const cases = PAYLOADS.flatMap((payload) => CONTEXTS.map((context) => ({ payload, context })))
  const results = await mapLimit(cases, 6, async ({ payload, context }) => {
    const markdown = context.markdown(payload)
    try {
      return { payload, context, markdown, result: await renderer.render({ markdown, templateId: "clean" }), error: undefined }
    } catch (error) {
      return { payload, context, markdown, result: undefined, error }
    }
  })
  for (const { payload, context, markdown, result, error } of results) {
    const name = `${JSON.stringify(payload)} in ${context.name}`
    if (!result) {
      t.fail(`${name}: renders`, { markdown, error: String(error), details: (error as { details?: unknown }).details })
      continue
    }
    if (!t.ok(isValidPdf(result.pdf), `${name}: valid PDF`)) continue
    const text = pageTexts(result.pdf).join("\n")
    const sizes = pageSizes(result.pdf)
    t.ok(
      sizes.every((s) => s.width > 500 && s.height > 700),
      `${name}: page size unchanged`,
      { sizes }
    )
    t.notOk(/root:|\/bin\/(ba)?sh|nologin/.test(text), `${name}: no /etc/passwd content`)
    if (payload.includes("1+1")) t.notOk(/(^|[^+\d])2([^\d]|$)/.test(text), `${name}: 1+1 is not evaluated to 2`, { text })
    const shows = context.shows(payload)
    if (shows !== undefined) {
      t.ok(squash(text).includes(squash(shows)), `${name}: shows the literal`, { markdown, expected: shows, text })
    }
    if (context.name === "link target") {
      const uris = linkUris(result.pdf)
      t.ok(uris.includes(`https://e.com/#${payload}`), `${name}: link annotation carries the literal target`, { uris })
    }
    if (context.name === "front matter title") {
      t.equal(metadata(result.pdf, "info:Title"), `T ${payload} T`, `${name}: PDF Title metadata is the literal`)
    }
  }
})

t.test("markup written in the source stays text even without Markdown escapes", async (t) => {
  // No Markdown meaning here (no HTML-like `<...>`), and the dollars are escaped (`\$x^2\$` is how a
  // writer keeps a literal dollar pair), so the source is the literal: Typst syntax must show
  // exactly as typed.
  const md = '#set page(width: 1pt) #let x = read("/etc/passwd") #x @lbl \\$x^2\\$ = heading #eval("1+1")'
  const shown = md.replaceAll("\\$", "$")
  const { pdf, warnings } = await renderer.render({ markdown: `${md}\n`, templateId: "clean" })
  t.same(warnings, [])
  const text = pageTexts(pdf).join("")
  t.ok(squash(text).includes(squash(shown)), "the text shows exactly as typed", { text })
  t.ok(pageSizes(pdf).every((s) => s.width > 500))
})

t.test("an unescaped dollar pair around x^2 is a formula by design", async (t) => {
  const { pdf, warnings } = await renderer.render({ markdown: "before $x^2$ after\n", templateId: "clean" })
  t.same(warnings, [])
  t.equal(squash(pageTexts(pdf).join("")).normalize("NFKC"), "beforex2after", "x and 2 are drawn, the dollars and caret are not")
  // mupdf's binding gives characters beyond U+FFFF cut to 16 bits, so the math glyphs are found by font.
  const math = pdfChars(pdf).filter((c) => stripSubset(c.font) === "NotoSansMath-Regular")
  t.equal(math.length, 2, "x and 2 are drawn in the math font", { math })
  const [x, two] = math as [PdfChar, PdfChar]
  t.ok(two.size < x.size && two.y < x.y, "2 is a superscript: smaller and raised", { x, two })
})

/**
 * Hostile formulas, in each of the four ways a document writes one. Each payload has what a reader
 * must see: `typeset` when it is converted (the text layer, with math letters read as plain ones,
 * shows that and no warning is given), or `refused` when it is shown as its source, exactly, with
 * one `math_unsupported` warning naming the formula's line. Either way the render succeeds, shows
 * nothing of /etc/passwd, and the next render on the same renderer succeeds. An evaluated `#read`
 * would fail the compile (only the template bundle exists for Typst) or show the file; evaluated
 * `#eval`/`#sys.inputs` would show `1`/`(:)` instead of their source.
 */
const DEEP = `${"{".repeat(10_000)}x${"}".repeat(10_000)}`
const MATH_PAYLOADS: ReadonlyArray<{ readonly latex: string; readonly typeset?: string }> = [
  { latex: '#read("/etc/passwd")', typeset: '#read("/etc/passwd")' },
  { latex: '\\#eval("1")', typeset: '#eval("1")' },
  { latex: "\\text{#sys.inputs}", typeset: "#sys.inputs" },
  { latex: "x <label>", typeset: "x<label>" },
  { latex: "@ref", typeset: "@ref" },
  { latex: "{x" },
  { latex: "x}" },
  { latex: "\\def\\x{1}" },
  { latex: "\\newcommand{\\x}{1}" },
  { latex: "\\input{/etc/passwd}" },
  { latex: "\\href{http://x}{y}" },
  { latex: DEEP }
]

/** Each way of writing a formula, placed on line 5 after a heading and a paragraph. */
const MATH_CONTEXTS: ReadonlyArray<{ readonly name: string; readonly markdown: (latex: string) => string }> = [
  { name: "inline $…$", markdown: (l) => `before $${l}$ after\n` },
  { name: "$$ block", markdown: (l) => `$$\n${l}\n$$\n` },
  { name: "one-line $$…$$", markdown: (l) => `$$${l}$$\n` },
  { name: "```math block", markdown: (l) => `\`\`\`math\n${l}\n\`\`\`\n` }
]
const FORMULA_LINE = 5
const FOLLOW_UP = "Next: $a^2 + b^2 = c^2$.\n"

t.test("formulas through the renderer", async (t) => {
  const cases = MATH_PAYLOADS.flatMap((payload) => MATH_CONTEXTS.map((context) => ({ payload, context })))
  await mapLimit(cases, 2, async ({ payload, context }) => {
    const name = `${payload.latex.length > 40 ? `${payload.latex.slice(0, 12)}… (${payload.latex.length} characters)` : payload.latex} in ${context.name}`
    const markdown = `# Formulas\n\nIntro.\n\n${context.markdown(payload.latex)}`
    const rendered = await renderer.render({ markdown, templateId: "clean" }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error })
    )
    if (!("result" in rendered)) return void t.fail(`${name}: renders`, { error: String(rendered.error) })
    const { pdf, warnings } = rendered.result
    const text = squash(pageTexts(pdf).join("\n")).normalize("NFKC")
    t.notOk(/root:|\/bin\/(ba)?sh|nologin/.test(text), `${name}: no /etc/passwd content`)
    if (payload.typeset !== undefined) {
      t.same(warnings, [], `${name}: typeset without a warning`)
      t.ok(text.includes(squash(payload.typeset)), `${name}: shows ${payload.typeset}`, { text })
    } else {
      t.same(
        warnings.map((w) => ({ code: w.code, line: w.line })),
        [{ code: "math_unsupported", line: FORMULA_LINE }],
        `${name}: one math_unsupported warning on line ${FORMULA_LINE}`,
        { warnings }
      )
      // A source line wider than the page runs past its edge, as a code block's does: of the
      // 20,001 braces, the start is what a reader sees.
      const visible = payload.latex === DEEP ? DEEP.slice(0, 64) : payload.latex
      t.ok(text.includes(squash(visible)), `${name}: shows its source exactly`, { text: text.slice(0, 200) })
    }
    const next = await renderer.render({ markdown: FOLLOW_UP, templateId: "clean" })
    t.equal(squash(pageTexts(next.pdf).join("")).normalize("NFKC"), "Next:a2+b2=c2.", `${name}: the next render succeeds`)
  })
})
