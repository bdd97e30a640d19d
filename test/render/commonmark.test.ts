/**
 * Every example of the CommonMark spec (0.31.2) renders to a PDF that opens, and the words a reader
 * would see in the reference HTML are in the PDF's text; the native engine gives the same bytes
 * (test/render/native-engine.test.ts). Every other example in the main run, all in the full job
 * (docs/testing.md); test/render/source-patches.test.ts parses every one.
 *
 * Expected words: the example's HTML with tags (and so attributes) removed and entities decoded,
 * tokens of >= 2 letters/digits. Raw HTML is dropped by design (`html_dropped`), so words that only
 * occur inside raw HTML nodes of the source are not expected. Words are looked up in the PDF text
 * with white space removed, as a long word or URL may be broken over lines.
 *
 * One deliberate deviation: the renderer reads YAML front matter, so a document that starts with
 * `---` lines (example 96) has that block taken as front matter. When it is not a mapping the
 * renderer must say so with `front_matter_invalid`; only then are its words not expected.
 */
import t from "tap"
import spec from "commonmark-spec"
import type { Nodes } from "mdast"
import { Renderer } from "../../src/render/renderer.ts"
import { parseMarkdown } from "../../src/render/markdown/parse.ts"
import { isValidPdf, pageTexts, squash } from "../helpers/pdf.ts"
import { mapLimit } from "../helpers/render.ts"
import { sampled, share } from "../helpers/sample.ts"

interface Example {
  markdown: string
  html: string
  number: number
  section: string
}
const examples: ReadonlyArray<Example> = spec.tests

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', ouml: "ö" }
const decode = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return String.fromCodePoint(code)
    }
    return ENTITIES[body] ?? whole
  })

const words = (text: string): Array<string> => text.match(/[\p{L}\p{N}]{2,}/gu) ?? []

/** Visible words of the reference HTML. */
const visibleWords = (html: string): Array<string> => words(decode(html.replace(/<[^>]*>/g, " ")))

/** Words that occur in raw HTML nodes of the source: dropped by the renderer on purpose. */
const droppedWords = (markdown: string, frontMatterWarned: boolean): Set<string> => {
  const out = new Set<string>()
  const visit = (node: Nodes) => {
    if (node.type === "html") for (const w of visibleWords(node.value)) out.add(w)
    if (node.type === "yaml" && frontMatterWarned) for (const w of words(node.value)) out.add(w)
    if ("children" in node) for (const child of node.children) visit(child as Nodes)
  }
  visit(parseMarkdown(markdown).root)
  return out
}

const untab = (s: string) => s.replace(/→/g, "\t")

const [renderer, native] = await Promise.all([
  Renderer.create({ workers: 2, timeoutMs: 30_000 }),
  Renderer.create({ engine: "native", workers: 2, timeoutMs: 30_000 })
])
t.teardown(() => Promise.all([renderer.close(), native.close()]))

t.test("commonmark spec examples", async (t) => {
  t.equal(examples.length, 652, "the spec has 652 examples")
  const taken = sampled(examples, 2)
  t.comment(`${share(taken.length, examples.length)} examples`)
  const results = await mapLimit(taken, 6, async (ex) => {
    const markdown = untab(ex.markdown)
    try {
      const [result, twin] = await Promise.all([
        renderer.render({ markdown, templateId: "clean" }),
        native.render({ markdown, templateId: "clean" })
      ])
      return { ex, markdown, result, nativeSha256: twin.sha256, error: undefined }
    } catch (error) {
      return { ex, markdown, result: undefined, nativeSha256: undefined, error }
    }
  })
  let checkedWords = 0
  let skipped = 0
  for (const { ex, markdown, result, nativeSha256, error } of results) {
    const name = `example ${ex.number} (${ex.section})`
    if (!result) {
      t.fail(`${name} renders`, { markdown, error: String(error) })
      continue
    }
    t.equal(nativeSha256, result.sha256, `${name}: the native engine's bytes`)
    if (!isValidPdf(result.pdf)) {
      t.fail(`${name} gives a PDF that mupdf opens with >= 1 page`, { markdown })
      continue
    }
    const dropped = droppedWords(
      markdown,
      result.warnings.some((w) => w.code === "front_matter_invalid" && w.line === 1)
    )
    const expected = [...new Set(visibleWords(untab(ex.html)))].filter((w) => !dropped.has(w))
    if (expected.length === 0) {
      skipped++
      t.pass(`${name} renders (no visible words to check)`)
      continue
    }
    const text = squash(pageTexts(result.pdf).join("\n").normalize("NFKC"))
    const missing = expected.filter((w) => !text.includes(w.normalize("NFKC")))
    checkedWords += expected.length
    t.same(missing, [], `${name}: visible words are in the PDF`, { markdown, html: ex.html, pdfText: text.slice(0, 400) })
  }
  t.comment(`${checkedWords} words checked; ${skipped} examples without visible words`)
})
