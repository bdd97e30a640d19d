/**
 * Template overrides of custom templates: `paper` sets every page's size and `fontFamily` the
 * document's typeface in all 57 templates; both are validated, are not render options, and are
 * covered by renderOptionsSha256 only when given.
 */
import t from "tap"
import { Either, Schema } from "effect"
import { jcsSha256 } from "../../src/shared/hash.ts"
import { TEMPLATE_IDS } from "../../src/render/catalog.ts"
import { FONT_FAMILIES, RETIRED_FONT_FAMILIES } from "../../src/render/common/font-families.ts"
import { RenderOverrides } from "../../src/render/common/overrides.ts"
import { InvalidRenderRequest, Renderer, type RenderRequest } from "../../src/render/renderer.ts"
import { type PdfChar, pageSizes, pdfChars, stripSubset } from "../helpers/pdf.ts"
import type { TestContext } from "../helpers/tap.ts"
import { testEngine } from "../helpers/render.ts"

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
  "```",
  "code line",
  "```",
  ""
].join("\n")

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

const A4 = { width: 595.28, height: 841.89 }
const LETTER = { width: 612, height: 792 }

/** Every page has the size, to a hundredth of a point. */
const allPages = (t: TestContext, pdf: Uint8Array, size: { width: number; height: number }, what: string) => {
  const sizes = pageSizes(pdf)
  const wrong = sizes.filter((s) => Math.abs(s.width - size.width) > 0.01 || Math.abs(s.height - size.height) > 0.01)
  t.same(wrong, [], `${what}: all ${sizes.length} pages are ${size.width} × ${size.height} pt`)
}

/** The fonts (subset prefix removed) that draw `phrase`, matched without regard to case. */
const fontsOfPhrase = (chars: ReadonlyArray<PdfChar>, phrase: string): Set<string> => {
  const s = chars.map((c) => (c.c.length === 1 ? c.c.toLowerCase() : "\u0000")).join("")
  const out = new Set<string>()
  const at = s.indexOf(phrase.toLowerCase())
  if (at >= 0) for (const c of chars.slice(at, at + phrase.length)) if (c.c.trim() !== "") out.add(stripSubset(c.font))
  return out
}

/** A family's PostScript prefix, as the PDF names its faces ("EB Garamond" → "EBGaramond-"). */
const psPrefix = (family: string) => `${family.replaceAll(" ", "")}-`
const onlyFamily = (fonts: Set<string>, family: string) => fonts.size > 0 && [...fonts].every((f) => f.startsWith(psPrefix(family)))

/** A template whose section headings are monospace accents, which, like code, keep their face. */
const MONOSPACE_SECTIONS: ReadonlySet<string> = new Set(["resume-technical"])

for (const templateId of TEMPLATE_IDS) {
  t.test(`${templateId}: paper and fontFamily`, async (t) => {
    const render = (overrides?: RenderRequest["overrides"]) =>
      renderer.render({ markdown: SAMPLE, templateId, ...(overrides ? { overrides } : {}) })
    const base = await render()
    // A template already set in EB Garamond is tested with another serif, so the change shows.
    const family = onlyFamily(fontsOfPhrase(pdfChars(base.pdf), "Body paragraph"), "EB Garamond") ? "Source Serif 4" : "EB Garamond"
    const [a4, letter] = await Promise.all([render({ paper: "a4" }), render({ paper: "us-letter", fontFamily: family })])
    allPages(t, a4.pdf, A4, "paper a4")
    allPages(t, letter.pdf, LETTER, "paper us-letter")
    const chars = pdfChars(letter.pdf)
    const body = fontsOfPhrase(chars, "Body paragraph")
    t.ok(onlyFamily(body, family), `body text in ${family}`, { found: [...body] })
    const heading = fontsOfPhrase(chars, "Second Heading")
    const headingFamily = MONOSPACE_SECTIONS.has(templateId) ? "JetBrains Mono" : family
    t.ok(onlyFamily(heading, headingFamily), `headings in ${headingFamily}`, { found: [...heading] })
    const code = fontsOfPhrase(chars, "code line")
    t.ok(onlyFamily(code, "JetBrains Mono"), "code keeps its monospace face", { found: [...code] })
  })
}

t.test("a serif template set in Inter, with script fallbacks after it", async (t) => {
  const markdown = "# Heading\n\nBody paragraph. مرحبا بالعالم 日本語のテキスト नमस्ते\n"
  const request = { markdown, templateId: "academic", locale: "ja" } as const
  const [serif, inter] = await Promise.all([renderer.render(request), renderer.render({ ...request, overrides: { fontFamily: "Inter" } })])
  const chars = pdfChars(inter.pdf)
  // Arabic is extracted in visual order and Devanagari as shaped clusters: compare by script.
  const byScript = (chars: ReadonlyArray<PdfChar>, script: RegExp) =>
    new Set(chars.filter((c) => script.test(c.c)).map((c) => stripSubset(c.font)))
  t.ok(onlyFamily(fontsOfPhrase(chars, "Body paragraph"), "Inter"), "body text in Inter")
  t.ok(onlyFamily(fontsOfPhrase(chars, "日本語"), "Noto Sans JP"), "Japanese in the locale's CJK face")
  t.ok(onlyFamily(byScript(pdfChars(serif.pdf), /\p{Script=Arabic}/u), "Amiri"), "the serif template's Arabic in Amiri")
  t.ok(onlyFamily(byScript(chars, /\p{Script=Arabic}/u), "Amiri"), "in Inter too")
  t.ok(byScript(chars, /\p{Script=Devanagari}/u).size > 0, "Devanagari drawn")
  t.same(
    inter.warnings.filter((w) => w.code === "missing_glyphs"),
    [],
    "no missing glyphs"
  )
})

t.test("every bundled family can be chosen", async (t) => {
  for (const fontFamily of FONT_FAMILIES) {
    const r = await renderer.render({ markdown: "Body paragraph.\n", templateId: "clean", overrides: { fontFamily } })
    t.ok(onlyFamily(fontsOfPhrase(pdfChars(r.pdf), "Body paragraph"), fontFamily), `${fontFamily} draws the body`)
  }
})

const invalid = async (t: TestContext, overrides: unknown, field: string, message: RegExp) => {
  const error = await renderer.render({ markdown: "x", templateId: "clean", overrides: overrides as RenderRequest["overrides"] }).then(
    () => undefined,
    (e: unknown) => e
  )
  t.type(error, InvalidRenderRequest, `refused: ${JSON.stringify(overrides)}`)
  t.equal((error as InvalidRenderRequest).field, field, "names the field")
  t.match((error as InvalidRenderRequest).message, message)
}

t.test("invalid overrides are refused naming the field", async (t) => {
  await invalid(t, { paper: "legal" }, "overrides.paper", /"a4", "us-letter"/)
  await invalid(t, { paper: "A4" }, "overrides.paper", /"a4", "us-letter"/)
  await invalid(t, { fontFamily: "Comic Sans" }, "overrides.fontFamily", /bundled font families: .*EB Garamond/)
  await invalid(t, { fontFamily: "Noto Sans Symbols 2" }, "overrides.fontFamily", /bundled font families/)
  await invalid(t, { fontFamily: "eb garamond" }, "overrides.fontFamily", /bundled font families/)
  await invalid(t, { fontSize: 12 }, "overrides.fontSize", /unexpected/)
  await invalid(t, "us-letter", "overrides", /must be an object/)
})

t.test("paper and fontFamily are not render options", async (t) => {
  for (const options of [{ paper: "a4" }, { fontFamily: "Inter" }]) {
    const error = await renderer.render({ markdown: "x", templateId: "clean", options }).then(
      () => undefined,
      (e: unknown) => e
    )
    t.type(error, InvalidRenderRequest, `options ${JSON.stringify(options)} refused`)
    t.match((error as InvalidRenderRequest).field, /^options\./)
  }
})

t.test("a retired family still renders, in the face that replaced it", async (t) => {
  const request = { markdown: "# تقرير\n\nنص عربي قصير، and some English.\n", templateId: "academic", locale: "ar" } as const
  const amiri = await renderer.render({ ...request, overrides: { fontFamily: "Amiri" } })
  for (const [retired, replacement] of Object.entries(RETIRED_FONT_FAMILIES)) {
    const old = await renderer.render({ ...request, overrides: { fontFamily: retired } })
    t.equal(replacement, "Amiri")
    t.equal(old.sha256, amiri.sha256, `${retired}: the same PDF as Amiri`)
    t.same(old.provenance, amiri.provenance, `${retired}: the same provenance, which names Amiri`)
  }
  t.same(
    Schema.decodeUnknownSync(RenderOverrides)({ fontFamily: "Noto Sans Arabic" }),
    { fontFamily: "Amiri" },
    "the schema decodes the old name to the new"
  )
  t.notOk(FONT_FAMILIES.includes("Noto Sans Arabic"), "a retired family is no longer offered")
})

t.test("the exported schema applies the same rules", async (t) => {
  const decode = Schema.decodeUnknownEither(RenderOverrides, { onExcessProperty: "error" })
  t.ok(Either.isRight(decode({ paper: "us-letter", fontFamily: "EB Garamond" })))
  t.ok(Either.isRight(decode({})))
  t.ok(Either.isLeft(decode({ paper: "letter" })))
  t.ok(Either.isLeft(decode({ fontFamily: "Arial" })))
  t.ok(Either.isLeft(decode({ extra: true })))
})

t.test("renderOptionsSha256 covers overrides only when they are given", async (t) => {
  const request = { markdown: SAMPLE, templateId: "clean", options: { pageNumbers: true } } as const
  const plain = await renderer.render(request)
  // The effective options as they have always been hashed: the provenance of earlier renders holds.
  const effective = { pageNumbers: true, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" }
  t.equal(plain.provenance.renderOptionsSha256, jcsSha256(effective), "without overrides: the effective options as before")
  t.equal(
    plain.provenance.requestSha256,
    jcsSha256({
      operation: "render",
      pathParams: {},
      body: { markdown: SAMPLE, templateId: "clean", locale: "en", options: { pageNumbers: true } }
    }),
    "without overrides: the request hash as before"
  )
  const empty = await renderer.render({ ...request, overrides: {} })
  t.same(empty.provenance, plain.provenance, "empty overrides are no overrides")
  t.equal(empty.sha256, plain.sha256)

  const paper = await renderer.render({ ...request, overrides: { paper: "us-letter" } })
  const font = await renderer.render({ ...request, overrides: { fontFamily: "Inter" } })
  const both = await renderer.render({ ...request, overrides: { paper: "us-letter", fontFamily: "Inter" } })
  t.equal(
    both.provenance.renderOptionsSha256,
    jcsSha256({ ...effective, paper: "us-letter", fontFamily: "Inter" }),
    "overrides join the effective options"
  )
  const hashes = new Set([plain, paper, font, both].map((r) => r.provenance.renderOptionsSha256))
  t.equal(hashes.size, 4, "each override changes renderOptionsSha256")
  t.equal(paper.provenance.optionsSha256, plain.provenance.optionsSha256, "optionsSha256 covers the options as sent, which are the same")
  t.not(paper.provenance.requestSha256, plain.provenance.requestSha256, "the request hash covers the overrides")
  t.not(paper.provenance.manifestSha256, plain.provenance.manifestSha256)
  // clean is set in Inter: choosing it changes the hash, not the page.
  t.equal(font.sha256, plain.sha256, "Inter on a template set in Inter gives the same PDF")
  const again = await renderer.render({ ...request, overrides: { fontFamily: "Inter", paper: "us-letter" } })
  t.equal(again.sha256, both.sha256, "the same overrides give the same bytes")
  t.same(again.provenance, both.provenance, "and the same provenance")
})
