/**
 * The text layer as a reader meets it: in each of the 12 locales, a short report (a heading, then
 * sentences with digits, punctuation and a bold span) rendered in every one of the 57 templates is
 * read back by three independent extractors, mupdf, pdf.js (Firefox's reader) and PDFium (Chrome's),
 * and every word of the source must come out intact, its letters in logical order
 * (test/helpers/words.ts says what is undone first). Letter-spaced capitals that carry the writer's
 * words are read the same way.
 * The main run reads each locale in a sixth of the templates, in turns so that every template is
 * read in two locales; PRESSROOM_TEST_FULL=1 reads all 684 (test/helpers/sample.ts).
 *
 * Where a reader cannot read what Typst 0.14.2 writes, the check still runs and is reported as a
 * TODO naming the cause (docs/text-layer.md has the investigation); it does not fail the suite, and
 * the day it passes tap says so.
 */
import t from "tap"
import { TEMPLATE_IDS, type TemplateId } from "../../src/render/catalog.ts"
import { type Locale, LOCALES } from "../../src/render/locales.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { REPORTS } from "../fixtures/reports.ts"
import { pageTexts, pdfjsPageTexts } from "../helpers/pdf.ts"
import { pdfiumPageTexts } from "../helpers/pdfium.ts"
import { mapLimit, testEngine } from "../helpers/render.ts"
import { sampled, share } from "../helpers/sample.ts"
import { lostWords, softHyphenBreaks } from "../helpers/words.ts"

const EXTRACTORS = ["mupdf", "pdf.js", "PDFium"] as const
type Extractor = (typeof EXTRACTORS)[number]

const READER_LIMITS: Partial<Record<`${Locale} ${Extractor}`, string>> = {
  "hi pdf.js":
    "pdf.js ignores ActualText (its getTextContent reads a marked-content sequence for its MCID only; mozilla/pdf.js#20014), which Typst writes for every Devanagari cluster whose glyphs are not its letters in order",
  "hi mupdf":
    "mupdf repeats a letter whose glyph Typst first met inside a reph cluster: the glyph's ToUnicode holds the cluster (र्ण), a later ActualText the letter (ण), and do_extract_within_actualtext (source/fitz/stext-device.c) sends the ActualText and then the ToUnicode's matching tail: चरण reads चरणण",
  "ar pdf.js":
    "pdf.js's compareWithLastPosition ends a text item without a space where the next glyph sits off the baseline (Amiri's stacked مجـ) or lies left of the last (Typst writes a line's bold run before its regular run), and orders each item on its own: مجلس reads جلسم"
}

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

/** The words of `wanted` (by default the whole source) each extractor loses from the render of `markdown` in `templateId`. */
const read = async (
  markdown: string,
  templateId: TemplateId,
  locale: Locale,
  wanted = markdown
): Promise<Record<Extractor, Array<string>>> => {
  const { pdf } = await renderer.render({ markdown, templateId, locale })
  const mupdf = pageTexts(pdf).join("\n")
  const pdfjs = (await pdfjsPageTexts(pdf)).join("\n")
  const pdfium = (await pdfiumPageTexts(pdf)).join("\n")
  const breaks = softHyphenBreaks(mupdf)
  return {
    mupdf: lostWords(wanted, mupdf, locale),
    "pdf.js": lostWords(wanted, pdfjs, locale, breaks),
    PDFium: lostWords(wanted, pdfium, locale, breaks)
  }
}

const limit = (locale: Locale, extractor: Extractor) => {
  const todo = READER_LIMITS[`${locale} ${extractor}`]
  return todo ? { todo } : {}
}

LOCALES.forEach((locale, l) => {
  const templateIds = sampled(TEMPLATE_IDS, 6, l)
  t.test(`${locale}: every word intact in ${share(templateIds.length, TEMPLATE_IDS.length)} templates`, async (t) => {
    const lost = await mapLimit(templateIds, 2, (templateId) => read(REPORTS[locale], templateId, locale))
    templateIds.forEach((templateId, i) => {
      for (const extractor of EXTRACTORS) {
        t.same(lost[i]![extractor], [], `${templateId}: ${extractor} reads every word`, limit(locale, extractor))
      }
    })
  })
})

t.test("letter-spaced capitals keep their words", async (t) => {
  // Front matter that templates set in their widest spaced capitals (0.14 em to 0.16 em asked).
  const cases = [
    ["resume-executive", { name: "Maria Oliveira", headline: "Chief Operating Officer" }],
    ["book-editorial", { title: "Field Notes", author: "Antonio Grattoni", publisher: "Typography Workshop" }],
    ["proposal-grant", { title: "Water Access", kicker: "Attore Oggetto Eingebettet" }]
  ] as const
  const lost = await mapLimit(cases, 2, ([templateId, meta]) => {
    const frontMatter = Object.entries(meta).map(([key, value]) => `${key}: ${value}`)
    return read(`---\n${frontMatter.join("\n")}\n---\n\nBody.\n`, templateId, "en", Object.values(meta).join(" "))
  })
  cases.forEach(([templateId], i) => {
    for (const extractor of EXTRACTORS) t.same(lost[i]![extractor], [], `${templateId}: ${extractor} reads every word`)
  })
})

t.test("Arabic with harakat (vowel marks) keeps its words", async (t) => {
  const todo =
    "Typst writes a mark set off the baseline as a text run of its own (ShapedText::build groups glyphs by vertical offset), each run carrying the letter's text, and every reader puts the mark, or the letter twice, out of place: جداً reads جدًاًا"
  const lost = await read("الطلب لا يزال قوياً جداً، وهذا أيضاً صحيح.\n", "clean", "ar")
  for (const extractor of EXTRACTORS) t.same(lost[extractor], [], `${extractor} reads every word`, { todo })
})
