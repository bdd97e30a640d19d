/**
 * The whole catalog: every template renders its sample (examples/<id>.md) in every locale with no
 * warnings, the sample's text present and the family's page limits kept, and the native engine
 * gives the same bytes (test/render/native-engine.test.ts); one shared document gives
 * 57 different PDFs; template hashes are stable. The main run renders each template in two of
 * the 12 locales, in turns so that every locale is met; PRESSROOM_TEST_FULL=1 renders every
 * template in every locale (test/helpers/sample.ts).
 */
import t from "tap"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { catalog, TEMPLATE_IDS } from "../../src/render/catalog.ts"
import { readBundle } from "../../src/render/engine/bundle.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { LOCALES } from "../../src/render/locales.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { templateHashes } from "../../src/render/template-hashes.ts"
import { pageTexts } from "../helpers/pdf.ts"
import { mapLimit } from "../helpers/render.ts"
import { sampled, share } from "../helpers/sample.ts"

const [renderer, native] = await Promise.all([
  Renderer.create({ workers: 2, timeoutMs: 120_000 }),
  Renderer.create({ engine: "native", workers: 2, timeoutMs: 120_000 })
])
t.teardown(() => Promise.all([renderer.close(), native.close()]))

const sample = (id: string): string => readFileSync(join(packageRoot, "examples", `${id}.md`), "utf8")

/** Text as a reader sees it: hyphenated line ends joined, white space removed, lower case. */
const readable = (pdf: Uint8Array): string =>
  pageTexts(pdf)
    .join("\n")
    .replace(/[-\u2010]\s*\n\s*/g, "")
    .replace(/[\s\u00a0\u00ad\u200b]+/gu, "")
    .toLowerCase()

/**
 * Words a reader must find: those of the sample's headings and of its first paragraphs (front
 * matter and code excluded), four letters or longer, Markdown punctuation removed.
 */
const expectedWords = (markdown: string): Array<string> => {
  // Formulas are typeset as math, not words (test/render/math-document.test.ts reads them back),
  // and a reference to one shows its number.
  const body = markdown
    .replace(/^---\n[\s\S]*?\n---\n/, "")
    .replace(/^(```|~~~)[\s\S]*?^\1/gm, "")
    .replace(/\$\$[\s\S]*?\$\$|\$[^$\n]+\$|\\(eq)?ref\{[^}]*\}/g, " ")
  const lines = body.split("\n")
  const headings = lines.filter((line) => /^#{1,6} /.test(line))
  const paragraphs = body
    .split(/\n\s*\n/)
    .filter((block) => /^[A-Za-z]/.test(block.trim()))
    .slice(0, 2)
  const words =
    [...headings, ...paragraphs]
      .join(" ")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .match(/[A-Za-z]{4,}/g) ?? []
  return [...new Set(words.map((w) => w.toLowerCase()))]
}

const pageLimit = (id: string): number | undefined =>
  id.startsWith("coverletter") || id === "marketing-product-one-pager" ? 1 : id.startsWith("resume") ? 2 : undefined

const allCases = TEMPLATE_IDS.flatMap((id) => LOCALES.map((locale) => ({ id, locale })))
// 12 locales a template and a stride of 6, shifted by one for each template: two locales a template, all locales met.
const cases = TEMPLATE_IDS.flatMap((id, i) => sampled(LOCALES, 6, i).map((locale) => ({ id, locale })))

t.test(`every template with its sample, in ${share(cases.length, allCases.length)} template-locale pairs`, async (t) => {
  const results = await mapLimit(cases, 4, async ({ id, locale }) => {
    const request = { markdown: sample(id), templateId: id, locale }
    try {
      const [result, twin] = await Promise.all([renderer.render(request), native.render(request)])
      return { id, locale, result, nativeSha256: twin.sha256 }
    } catch (error) {
      return { id, locale, error }
    }
  })
  for (const { id, locale, result, nativeSha256, error } of results) {
    if (!result) {
      t.fail(`${id} (${locale}) renders`, { error: String(error) })
      continue
    }
    t.equal(nativeSha256, result.sha256, `${id} (${locale}): the native engine's bytes`)
    t.same(result.warnings, [], `${id} (${locale}): no warnings`)
    const limit = pageLimit(id)
    if (limit !== undefined) t.ok(result.pageCount <= limit, `${id} (${locale}): at most ${limit} page(s), got ${result.pageCount}`)
    const text = readable(result.pdf)
    const missing = expectedWords(sample(id)).filter((word) => !text.includes(word))
    t.same(missing, [], `${id} (${locale}): the sample's words are in the PDF`)
  }
})

t.test("one shared document gives 57 different PDFs", async (t) => {
  const shared = [
    "---",
    "title: One Document",
    "author: A. Writer",
    "date: 2026-11-22",
    "---",
    "",
    "# Introduction",
    "",
    "A paragraph with **bold**, *italic* and `code`.",
    "",
    "## Details",
    "",
    "- first point",
    "- second point",
    "",
    "| Item | Amount |",
    "|:--|--:|",
    "| Alpha | 10 |",
    "",
    "```python",
    "print('hello')",
    "```",
    ""
  ].join("\n")
  const results = await mapLimit(TEMPLATE_IDS, 4, (templateId) => renderer.render({ markdown: shared, templateId }))
  t.equal(new Set(results.map((r) => r.sha256)).size, catalog.templates.length, "57 distinct PDFs")
  t.equal(catalog.templates.length, 57)
})

t.test("template hashes are stable and distinct", async (t) => {
  const first = TEMPLATE_IDS.map((id) => templateHashes(readBundle(), id))
  const second = TEMPLATE_IDS.map((id) => templateHashes(readBundle(), id))
  t.same(first, second, "the same files give the same hashes")
  t.equal(new Set(first.map((h) => h.templateDefinitionSha256)).size, TEMPLATE_IDS.length, "every template has its own definition hash")
  const rendered = await renderer.render({ markdown: "# x", templateId: "proposal-grant" })
  t.equal(
    rendered.provenance.templateDefinitionSha256,
    first[TEMPLATE_IDS.indexOf("proposal-grant")]!.templateDefinitionSha256,
    "a render reports them"
  )
  t.equal(rendered.provenance.templateReleaseSha256, first[TEMPLATE_IDS.indexOf("proposal-grant")]!.templateReleaseSha256)
})
