/**
 * The text layer as a reader meets it: in each of the 12 locales, a short report (a heading, then
 * sentences with digits, punctuation and a bold span) rendered in every one of the 57 templates is
 * read back by two independent extractors, mupdf and pdf.js, and every word of the source must come
 * out intact, its letters in logical order (test/helpers/words.ts says what is undone first).
 * The main run reads each locale in a sixth of the templates, in turns so that every template is
 * read in two locales; PRESSROOM_TEST_FULL=1 reads all 684 (test/helpers/sample.ts).
 *
 * Where a reader cannot read what Typst 0.14.2 writes, the check still runs and is reported as a
 * TODO naming the cause (docs/text-layer.md has the investigation); it does not fail the suite, and
 * the day it passes tap says so.
 */
import t from "tap"
import { TEMPLATE_IDS } from "../../src/render/catalog.ts"
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
    "pdf.js ignores ActualText, which Typst writes for every Devanagari cluster whose glyphs are not its letters in order (mozilla/pdf.js#20014)",
  "hi mupdf":
    "mupdf repeats a letter whose glyph Typst first met inside a reph cluster (its ToUnicode holds the cluster, ActualText the letter)",
  "ar pdf.js":
    "pdf.js reads a gap over 0.1 em inside an Arabic word as a space (Amiri kerns after letters that do not join to the left) and splits words at glyphs set off the baseline"
}

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

/** The words of `markdown` each extractor loses from its render in `templateId`. */
const read = async (markdown: string, templateId: string, locale: Locale): Promise<Record<Extractor, Array<string>>> => {
  const { pdf } = await renderer.render({ markdown, templateId, locale })
  const mupdf = pageTexts(pdf).join("\n")
  const pdfjs = (await pdfjsPageTexts(pdf)).join("\n")
  const pdfium = (await pdfiumPageTexts(pdf)).join("\n")
  const breaks = softHyphenBreaks(mupdf)
  return {
    mupdf: lostWords(markdown, mupdf, locale),
    "pdf.js": lostWords(markdown, pdfjs, locale, breaks),
    PDFium: lostWords(markdown, pdfium, locale, breaks)
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

t.test("Arabic with harakat (vowel marks) keeps its words", async (t) => {
  const todo =
    "Typst sets a mark off the baseline as a text chunk of its own, and both extractors put it, and the letter it sits on, out of place"
  const lost = await read("الطلب لا يزال قوياً جداً، وهذا أيضاً صحيح.\n", "clean", "ar")
  t.same(lost.mupdf, [], "mupdf reads every word", { todo })
  t.same(lost["pdf.js"], [], "pdf.js reads every word", { todo })
})
