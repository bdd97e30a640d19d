/**
 * Every template of the catalog renders a shared sample at the option combinations that matter;
 * options are validated; provenance is as specified.
 */
import t from "tap"
import type { TestContext } from "../helpers/tap.ts"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import packageJson from "../../package.json" with { type: "json" }
import { catalog, TEMPLATE_IDS } from "../../src/render/catalog.ts"
import { TYPST_VERSION } from "../../src/render/engine/pool.ts"
import { readManifest, packageRoot } from "../../src/render/fonts/manifest.ts"
import { CREATIVE_ACCENTS } from "../../src/render/common/options.ts"
import { InvalidRenderRequest, Renderer, type RenderResult, uncheckedRequest } from "../../src/render/renderer.ts"
import { isValidPdf, metadata, pdfChars, pdfText, squash } from "../helpers/pdf.ts"
import { PNG_1x1, testEngine } from "../helpers/render.ts"
import { jcs } from "../../src/shared/hash.ts"

const SAMPLE = [
  "---",
  "title: Sample Title",
  "author: Sam Author",
  "---",
  "",
  "# First Heading",
  "",
  "Body paragraph with **bold** and *italic* text.",
  "",
  "## Second Heading",
  "",
  "- item one",
  "- item two",
  "",
  "1. first",
  "2. second",
  "",
  "| Col A | Col B |",
  "|---|---|",
  "| a1 | b1 |",
  "",
  "```",
  "code line",
  "```",
  "",
  "> quoted text",
  ""
].join("\n")

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

const hex = (c: ReadonlyArray<number>) =>
  "#" +
  c
    .map((v) =>
      Math.round(v * 255)
        .toString(16)
        .padStart(2, "0")
    )
    .join("")
const colorsOf = (r: RenderResult, word: string): Set<string> => {
  const chars = pdfChars(r.pdf)
  // Case-insensitive: some templates set headings in capitals.
  const s = chars.map((c) => (c.c.length === 1 ? c.c.toLowerCase() : "\u0000")).join("")
  const w = word.toLowerCase()
  const out = new Set<string>()
  for (let i = s.indexOf(w); i >= 0; i = s.indexOf(w, i + 1)) for (const c of chars.slice(i, i + word.length)) out.add(hex(c.color))
  return out
}

const invalid = async (t: TestContext, request: Parameters<typeof uncheckedRequest>[0], field: string | RegExp, message?: RegExp) => {
  try {
    await renderer.render(uncheckedRequest(request))
    t.fail(`refused: ${JSON.stringify(request).slice(0, 120)}`)
  } catch (error) {
    t.type(error, InvalidRenderRequest)
    t.match((error as InvalidRenderRequest).field, field, "names the field")
    if (message) t.match((error as InvalidRenderRequest).message, message)
  }
}

/** Templates that must not print the author: a manuscript under anonymous review. */
const ANONYMOUS: ReadonlySet<string> = new Set(["academic-submission"])

/** Marketing pieces speak for a company: they print no byline. */
const NO_BYLINE: ReadonlySet<string> = new Set([
  "marketing-product-one-pager",
  "marketing-customer-case-study",
  "marketing-company-profile",
  "marketing-media-kit",
  "marketing-press-kit",
  "marketing-product-brochure",
  "marketing-event-program"
])

/** Page numbers where a convention other than "Page X of N" is what readers expect. */
const PAGE_LABEL: Readonly<Record<string, RegExp>> = {
  // MLA: the author's surname and the page number in the header.
  "assignment-college-essay": /Author \d+/
}

/** Books print a bare folio at the outer corner, and none on title pages or chapter openings. */
const BOOKS: ReadonlySet<string> = new Set(["book-literary", "book-editorial", "book-guide"])

for (const templateId of TEMPLATE_IDS) {
  t.test(`${templateId}: sample at every option combination`, async (t) => {
    const base = await renderer.render({ markdown: SAMPLE, templateId, options: { pageNumbers: false } })
    t.ok(isValidPdf(base.pdf), "a PDF")
    const text = pdfText(base.pdf)
    const shows = (part: string) => squash(text).toLowerCase().includes(squash(part).toLowerCase())
    for (const part of [
      "Sample Title",
      "First Heading",
      "Second Heading",
      "bold",
      "italic",
      "item one",
      "item two",
      "first",
      "second",
      "Col A",
      "b1",
      "code line",
      "quoted text"
    ]) {
      t.ok(shows(part), `shows "${part}"`)
    }
    if (ANONYMOUS.has(templateId)) t.notOk(shows("Sam Author"), "keeps the author anonymous")
    else if (NO_BYLINE.has(templateId)) t.equal(metadata(base.pdf, "info:Author"), "Sam Author", "the author is in the metadata")
    else t.ok(shows("Sam Author"), `shows "Sam Author"`)
    t.equal(metadata(base.pdf, "info:Title"), "Sample Title")
    t.notMatch(text, PAGE_LABEL[templateId] ?? /Page \d+ of \d+/, "pageNumbers false: no page label")
    const numbered = await renderer.render({ markdown: SAMPLE, templateId, options: { pageNumbers: true } })
    if (BOOKS.has(templateId)) t.not(numbered.sha256, base.sha256, "pageNumbers true: folios appear")
    else t.match(pdfText(numbered.pdf), PAGE_LABEL[templateId] ?? /Page \d+ of \d+/, "pageNumbers true: the page label shows")
    const colored = await renderer.render({
      markdown: SAMPLE,
      templateId,
      options: { bodyTextColor: "#aa1122", headingTextColor: "#1133bb" }
    })
    t.not(colored.sha256, base.sha256, "colours change the PDF")
    t.ok(colorsOf(colored, "Body paragraph").has("#aa1122"), "body text in bodyTextColor", {
      found: [...colorsOf(colored, "Body paragraph")]
    })
    t.ok(colorsOf(colored, "Second Heading").has("#1133bb"), "heading in headingTextColor", {
      found: [...colorsOf(colored, "Second Heading")]
    })
    t.notOk(colorsOf(base, "Body paragraph").has("#aa1122"), "default body colour differs")
    if (templateId === "creative") {
      const shas = new Set<string>()
      for (const creativeAccent of CREATIVE_ACCENTS) {
        shas.add((await renderer.render({ markdown: SAMPLE, templateId, options: { creativeAccent } })).sha256)
      }
      t.equal(shas.size, CREATIVE_ACCENTS.length, "each accent gives a different PDF")
    }
  })
}

t.test("the TemplateId type lists the catalog's ids, in its order (npm run catalog:ids)", async (t) => {
  const declared = readFileSync(join(packageRoot, "src", "render", "template-id.ts"), "utf8")
  t.same(
    [...declared.matchAll(/^ {2}\| "([^"]+)"$/gm)].map((match) => match[1]),
    TEMPLATE_IDS
  )
})

t.test("invalid requests are refused naming the field", async (t) => {
  await invalid(t, { markdown: "x", templateId: "clean", options: { bodyTextColor: "red" } }, "options.bodyTextColor")
  await invalid(t, { markdown: "x", templateId: "clean", options: { headingTextColor: "#12345" } }, "options.headingTextColor")
  await invalid(t, { markdown: "x", templateId: "clean", options: { creativeAccent: "teal" } }, "options.creativeAccent")
  await invalid(t, { markdown: "x", templateId: "clean", options: { fontSize: 12 } }, /options/, /fontSize/)
  await invalid(t, { markdown: "x", templateId: "clean", options: { pageNumbers: "yes" } }, "options.pageNumbers")
  await invalid(t, { markdown: "x", templateId: "no-such-template" }, "templateId")
  await invalid(t, { markdown: "x", templateId: "clean", locale: "xx" }, "locale")
  await invalid(t, { markdown: "x", templateId: "clean", locale: "EN" }, "locale")
  t.equal(TEMPLATE_IDS.length, 57, "57 catalog ids")
  await invalid(t, { markdown: "a".repeat(200_001), templateId: "clean" }, "markdown")
  const ok = await renderer.render({ markdown: `${"a".repeat(199_990)}\n`, templateId: "clean" })
  t.ok(isValidPdf(ok.pdf), "just under the limit renders")
  // The limit counts code points: 200,000 emoji are 400,000 UTF-16 units but allowed.
  await invalid(t, { markdown: "é".repeat(200_001), templateId: "clean" }, "markdown")
})

t.test("provenance", async (t) => {
  const sha = (s: string) => createHash("sha256").update(s).digest("hex")
  const plain = await renderer.render({ markdown: SAMPLE, templateId: "clean" })
  const withImage = await renderer.render({ markdown: `${SAMPLE}\n![dot](data:image/png;base64,${PNG_1x1})\n`, templateId: "clean" })
  const p = plain.provenance
  for (const key of [
    "catalogSha256",
    "fontSetSha256",
    "manifestSha256",
    "renderOptionsSha256",
    "rendererReleaseChecksum",
    "templateDefinitionSha256",
    "templateReleaseSha256",
    "optionsSha256",
    "requestSha256",
    "sourceSha256"
  ] as const) {
    t.match(p[key], /^[a-f0-9]{64}$/, `${key} is a sha256`)
  }
  t.equal(p.assetSetSha256, null, "assetSetSha256 null without images")
  t.match(withImage.provenance.assetSetSha256, /^[a-f0-9]{64}$/, "assetSetSha256 set with an image")
  t.equal(p.sourceSha256, sha(SAMPLE), "sourceSha256 is the SHA-256 of the markdown")
  t.match(p.engineVersion, /0\.14\.2/)
  t.equal(p.catalogVersion, "2026-07-22.1")
  t.equal(catalog.catalogVersion, "2026-07-22.1")
  t.equal(p.templateId, "clean")
  t.equal(p.locale, "en")
  t.equal(p.fontSetSha256, withImage.provenance.fontSetSha256, "fontSetSha256 stable")
  t.equal(p.fontSetSha256, renderer.fontSetSha256)
  t.not(p.manifestSha256, withImage.provenance.manifestSha256, "manifestSha256 covers the assets")
  // Contract section 11: exactly what determines the bytes, with the Typst version the engine reports.
  const manifest = {
    locale: p.locale,
    templateId: p.templateId,
    catalogVersion: p.catalogVersion,
    rendererVersion: p.rendererVersion,
    typstVersion: TYPST_VERSION,
    sourceSha256: p.sourceSha256,
    renderOptionsSha256: p.renderOptionsSha256,
    templateDefinitionSha256: p.templateDefinitionSha256,
    templateReleaseSha256: p.templateReleaseSha256,
    fontSetSha256: p.fontSetSha256,
    assetSetSha256: p.assetSetSha256,
    catalogSha256: p.catalogSha256
  }
  t.equal(p.manifestSha256, sha(jcs(manifest)), "manifestSha256 is the SHA-256 of the JCS of the contract's twelve fields")
  t.equal(p.rendererVersion, `pressroom ${packageJson.version}`, "rendererVersion names the release")
  const fonts = readManifest().fonts.map((font) => font.sha256)
  t.equal(p.fontSetSha256, sha([...fonts].sort().join("\n")), "fontSetSha256 covers the sorted font file hashes")
  const definition = readFileSync(join(packageRoot, "typst-templates", "templates", "clean.typ"))
  t.equal(p.templateDefinitionSha256, sha(definition.toString()), "templateDefinitionSha256 is the template's own file")
  t.equal(
    p.catalogSha256,
    sha(readFileSync(join(packageRoot, "typst-templates", "catalog.json"), "utf8")),
    "catalogSha256 is the catalog file"
  )
  const defs = new Set<string>()
  for (const templateId of TEMPLATE_IDS) {
    const r = await renderer.render({ markdown: "x\n", templateId })
    defs.add(r.provenance.templateDefinitionSha256!)
    t.equal(r.provenance.fontSetSha256, p.fontSetSha256, `${templateId}: same font set`)
  }
  t.equal(defs.size, TEMPLATE_IDS.length, "templateDefinitionSha256 differs between templates")
})
