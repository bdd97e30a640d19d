/**
 * Every locale: a real sentence in its language reads back word for word, each non-ASCII character
 * is drawn by a font that covers its script, and the page footer is translated. Mixed scripts in
 * one paragraph each get a covering font; an uncovered character is named in a `missing_glyphs`
 * warning. Words are compared as test/helpers/words.ts says; text-layer.test.ts reads longer text
 * in every template with two extractors.
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { LOCALES, localeData, type Locale } from "../../src/render/locales.ts"
import { pageTexts, pdfChars, stripSubset, type PdfChar } from "../helpers/pdf.ts"
import { lostWords } from "../helpers/words.ts"
import { testEngine } from "../helpers/render.ts"

const SENTENCES: Record<Locale, string> = {
  en: "This is a document written in English.",
  es: "Este es un documento escrito en español, ¿verdad? Año.",
  fr: "Ceci est un document rédigé en français, à l'été.",
  de: "Dies ist ein auf Deutsch verfasstes Dokument über Größe.",
  ja: "これは日本語で書かれた文書です。",
  "zh-CN": "这是一份用中文写的文档。",
  ko: "이것은 한국어로 작성된 문서입니다.",
  "pt-BR": "Este é um documento escrito em português, não é?",
  ar: "هذه وثيقة مكتوبة باللغة العربية.",
  ru: "Это документ, написанный на русском языке.",
  hi: "यह हिंदी में लिखा गया एक दस्तावेज़ है।",
  it: "Questo è un documento scritto in italiano, perché no."
}

/** Fonts acceptable for a character of each script in the sans-serif `clean` template. */
const SCRIPT_FONTS: ReadonlyArray<[string, RegExp, RegExp]> = [
  ["Latin", /\p{Script=Latin}/u, /^Inter-/],
  ["Cyrillic", /\p{Script=Cyrillic}/u, /^Inter-/],
  ["Greek", /\p{Script=Greek}/u, /^Inter-/],
  ["Arabic", /\p{Script=Arabic}/u, /^Amiri-/],
  // Noto Sans (Google Fonts build) covers and shapes Devanagari itself, and comes before the
  // dedicated Devanagari faces in the templates' fallback list: both are covering fonts.
  ["Devanagari", /\p{Script=Devanagari}/u, /Devanagari|^NotoSans-/],
  ["Hangul", /\p{Script=Hangul}/u, /NotoSans(KR|JP|SC)/],
  ["Kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u, /NotoSans(JP|SC|KR)/],
  ["Han", /\p{Script=Han}/u, /NotoSans(JP|SC|KR)/]
]

/** For the locale's own CJK text, its regional face must win. */
const LOCALE_CJK: Partial<Record<Locale, RegExp>> = { ja: /NotoSansJP/, "zh-CN": /NotoSansSC/, ko: /NotoSansKR/ }

/** Every drawn non-ASCII character's font must cover its script; returns the misfits. */
const misfits = (chars: ReadonlyArray<PdfChar>, cjk?: RegExp): Array<string> => {
  const out: Array<string> = []
  for (const ch of chars) {
    const c = ch.c.normalize("NFKC")
    if (/^[\x00-\x7f]*$/.test(c)) continue
    const font = stripSubset(ch.font)
    for (const [script, is, fonts] of SCRIPT_FONTS) {
      if (!is.test(c)) continue
      const wanted = cjk && /Han|Kana|Hangul/.test(script) ? cjk : fonts
      if (!wanted.test(font)) out.push(`${ch.c} (${script}) in ${font}`)
      break
    }
  }
  return [...new Set(out)]
}

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

t.test("every locale has a sentence", async (t) => {
  t.same(Object.keys(SENTENCES).sort(), [...LOCALES].sort())
})

for (const locale of LOCALES) {
  t.test(`${locale}: text, fonts and footer`, async (t) => {
    const sentence = SENTENCES[locale]
    const { pdf, warnings, provenance } = await renderer.render({
      markdown: `${sentence}\n`,
      templateId: "clean",
      locale,
      options: { pageNumbers: true }
    })
    t.same(warnings, [], "no warnings")
    t.equal(provenance.locale, locale)
    const text = pageTexts(pdf).join("\n")
    t.same(lostWords(sentence, text, locale), [], "every word of the sentence reads back", { text })
    const chars = pdfChars(pdf)
    t.same(misfits(chars, LOCALE_CJK[locale]), [], "non-ASCII characters are set in fonts covering their scripts")
    t.notOk(
      chars.some((c) => c.c === "\ufffd" || c.c === "\u0000"),
      "no replacement or notdef characters"
    )
    const footer = localeData[locale].labels.page!.replace("{page}", "1").replace("{total}", "1")
    t.same(lostWords(footer, text, locale), [], `the footer reads "${footer}"`, { text })
    if (locale !== "en") t.notOk(text.includes("Page 1 of 1"), "no English footer")
    const plain = await renderer.render({ markdown: `${sentence}\n`, templateId: "clean", locale, options: { pageNumbers: false } })
    const label = footer.replace(/\d/g, "")
    t.not(lostWords(label, pageTexts(plain.pdf).join("\n"), locale).length, 0, "no footer without pageNumbers")
  })
}

t.test("one paragraph mixing eight scripts", async (t) => {
  const md = "Latin text, Кириллица текст, Ελληνικό κείμενο, نص عربي, हिन्दी पाठ, 日本語のかなカナ, 中文汉字, 한국어 텍스트.\n"
  const { pdf, warnings } = await renderer.render({ markdown: md, templateId: "clean" })
  t.same(warnings, [])
  const chars = pdfChars(pdf)
  t.same(misfits(chars), [], "every script in a covering font")
  t.same(lostWords(md, pageTexts(pdf).join("\n"), "en"), [], "every word of every script reads back")
  const byScript = (re: RegExp) => new Set(chars.filter((c) => re.test(c.c.normalize("NFKC"))).map((c) => stripSubset(c.font)))
  t.ok(byScript(/\p{Script=Arabic}/u).size > 0, "Arabic drawn")
  t.ok(byScript(/\p{Script=Devanagari}/u).size > 0, "Devanagari drawn")
  t.ok(byScript(/\p{Script=Hangul}/u).size > 0, "Hangul drawn")
})

t.test("characters no font covers are named in missing_glyphs", async (t) => {
  const { pdf, warnings } = await renderer.render({
    markdown: "A unicorn 🦄 and a Hanifi Rohingya digit \u{10D30} here.\n",
    templateId: "clean"
  })
  const missing = warnings.filter((w) => w.code === "missing_glyphs")
  t.equal(missing.length, 1, "one missing_glyphs warning")
  t.match(missing[0]?.message ?? "", /U\+1F984/, "names U+1F984")
  t.match(missing[0]?.message ?? "", /U\+10D30/, "names U+10D30")
  t.ok(missing[0]?.message.includes("🦄"), "shows the character")
  t.same(lostWords("A unicorn and a Hanifi Rohingya digit here.", pageTexts(pdf).join("\n"), "en"), [], "the rest still renders")
  const covered = await renderer.render({ markdown: "é ü Ж Ω ☑ 日 한 ع ह\n", templateId: "clean" })
  t.same(covered.warnings, [], "covered characters give no warning")
  const invisible = await renderer.render({ markdown: "zero\u200bwidth\u00a0joiner\u200d and BOM\ufeff\n", templateId: "clean" })
  t.same(
    invisible.warnings.filter((w) => w.code === "missing_glyphs"),
    [],
    "invisible characters are not reported"
  )
})
