/**
 * The injection corpus (injection.test.ts) extended to HTML in Markdown (issue 40): nothing a
 * document's HTML holds is evaluated, fetched or read. Each document renders on its own, keeps its
 * A4 page, shows no /etc/passwd content, carries no link but the ones allowed (http, https, mailto,
 * tel, or a place in the document), names what it dropped, and the render after it succeeds.
 * The Typst payloads go where HTML puts user text: element text, attribute values, ids.
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { isValidPdf, linkUris, pageSizes, pageTexts, squash } from "../helpers/pdf.ts"
import { mapLimit, testEngine } from "../helpers/render.ts"

const READ = '#read("/etc/passwd")'

interface Case {
  readonly name: string
  readonly markdown: string
  /** Text that must show (white space removed when compared). */
  readonly shows?: string
  /** Text that must never show. */
  readonly hides?: RegExp
  /** The elements an `html_dropped` warning must name. */
  readonly dropped?: ReadonlyArray<string>
}

const CASES: ReadonlyArray<Case> = [
  { name: "img of a local file", markdown: 'see <img src="/etc/passwd" alt="pw"> end\n', shows: "see" },
  { name: "img of a file: URL", markdown: '<img src="file:///etc/passwd" alt="pw">\n' },
  { name: "javascript: link", markdown: '<a href="javascript:alert(1)">click me</a>\n', shows: "click me" },
  {
    name: "style",
    markdown: "<style>body { display: none } .x::after { content: 'styled' }</style>\n\nafter\n",
    shows: "after",
    hides: /display|styled/,
    dropped: ["style"]
  },
  {
    name: "script",
    markdown: "<script>document.write('scripted')</script>\n\nafter\n",
    shows: "after",
    hides: /scripted|document/,
    dropped: ["script"]
  },
  {
    name: "event attributes",
    markdown: '<img src="x" onerror="alert(1)"> <div onclick="alert(2)" onmouseover="x()">hover text</div>\n',
    shows: "hover text",
    hides: /alert/
  },
  {
    name: "svg with script",
    markdown: '<svg onload="alert(1)"><script>alert(2)</script><text>svg words</text></svg>\n\nafter\n',
    shows: "after",
    hides: /svg words|alert/,
    dropped: ["svg"]
  },
  {
    name: "iframe",
    markdown: '<iframe src="file:///etc/passwd">frame words</iframe>\n\nafter\n',
    shows: "after",
    hides: /frame words/,
    dropped: ["iframe"]
  },
  {
    name: "base",
    markdown: '<base href="file:///etc/">\n\n<img src="passwd" alt="pw"> <a href="passwd">rel</a>\n',
    shows: "rel",
    dropped: ["base"]
  },
  {
    name: "meta http-equiv",
    markdown: '<meta http-equiv="refresh" content="0;url=file:///etc/passwd">\n\nafter\n',
    shows: "after",
    dropped: ["meta"]
  },
  {
    name: "Typst in element text",
    markdown: `<p>${READ} #eval("1+1") [#set page(width: 1pt)]</p>\n`,
    shows: `${READ} #eval("1+1") [#set page(width: 1pt)]`
  },
  { name: "Typst in attributes", markdown: `<p align='center)${READ}' id='x>${READ}' title='${READ}'>para</p>\n`, shows: "para" },
  {
    name: "Typst in numbers",
    markdown: `<ol start='2)${READ}'><li>item</li></ol><table><tr><td colspan='2)${READ}' rowspan='x'>cell</td></tr></table>\n`,
    shows: "item"
  },
  { name: "Typst in an href", markdown: `<a href='https://e.com/"]${READ}['>lnk</a> <a href='#"]${READ}['>to nowhere</a>\n`, shows: "lnk" },
  { name: "Typst in code", markdown: `<code>"]${READ}[</code> <pre>]${READ}</pre> <kbd>${READ}</kbd>\n`, shows: `"]${READ}[` },
  {
    name: "tags nested 10,000 deep",
    markdown: `${"<div>".repeat(10_000)}deep\n\nafter ${"<b>".repeat(10_000)}bold\n`,
    shows: "after bold",
    hides: /deep/
  },
  { name: "an inline comment as a document's only HTML", markdown: "\u0000<!-- pagebreak --> text\n", shows: "text" },
  { name: "an unclosed script swallows only HTML", markdown: "<script>\n\nnever shown\n", hides: /never shown/, dropped: ["script"] }
]

const ALLOWED_LINK = /^(https?:|mailto:|tel:|#page=)/

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

const results = await mapLimit(CASES, 4, async (c) => {
  try {
    return { c, result: await renderer.render({ markdown: c.markdown, templateId: "clean" }), error: undefined }
  } catch (error) {
    return { c, result: undefined, error }
  }
})

for (const { c, result, error } of results) {
  t.test(c.name, async (t) => {
    if (!result) return t.fail("renders", { error: String(error), details: (error as { details?: unknown }).details })
    t.ok(isValidPdf(result.pdf), "a valid PDF")
    const text = pageTexts(result.pdf).join("\n")
    t.ok(
      pageSizes(result.pdf).every((s) => s.width > 500 && s.height > 700),
      "the page size is unchanged"
    )
    t.notOk(/root:|\/bin\/(ba)?sh|nologin/.test(text), "no /etc/passwd content")
    t.notOk(/(^|[^+\d])2([^\d]|$)/.test(text.replace(/\b2\)/, "")) && text.includes("1+1") === false && c.name.includes("element text"))
    // Shown as written, `#eval("1+1")` and the rest were not evaluated.
    if (c.shows !== undefined) t.ok(squash(text).includes(squash(c.shows)), "shows the literal", { expected: c.shows, text })
    if (c.hides !== undefined) t.notMatch(text, c.hides, "hides what is not text of the document")
    const links = linkUris(result.pdf)
    t.ok(
      links.every((uri) => ALLOWED_LINK.test(uri)),
      "only allowed links",
      { links }
    )
    const dropped = result.warnings.filter((w) => w.code === "html_dropped").map((w) => w.message)
    for (const name of c.dropped ?? []) t.ok(dropped.includes(`the HTML element <${name}> is not rendered`), `names <${name}>`, { dropped })
  })
}

t.test("the render after them succeeds", async (t) => {
  const { pdf, warnings } = await renderer.render({ markdown: "# Plain\n\nA plain document.\n", templateId: "clean" })
  t.same(warnings, [])
  t.ok(squash(pageTexts(pdf).join("")).includes("Aplaindocument."))
})
