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
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { isValidPdf, linkUris, metadata, pageSizes, pageTexts, squash } from "../helpers/pdf.ts"
import { mapLimit } from "../helpers/render.ts"

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

const renderer = await Renderer.create({ workers: 2, timeoutMs: 30_000 })
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
  // No Markdown meaning here (no HTML-like `<...>`), so the source is the literal: Typst syntax
  // must show exactly as typed.
  const md = '#set page(width: 1pt) #let x = read("/etc/passwd") #x @lbl $x^2$ = heading #eval("1+1")'
  const { pdf, warnings } = await renderer.render({ markdown: `${md}\n`, templateId: "clean" })
  t.same(warnings, [])
  const text = pageTexts(pdf).join("")
  t.ok(squash(text).includes(squash(md)), "the text shows exactly as typed", { text })
  t.ok(pageSizes(pdf).every((s) => s.width > 500))
})
