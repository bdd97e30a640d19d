/**
 * Every locale: a real sentence in its language is extractable from the PDF and each non-ASCII
 * character is drawn by a font that covers its script; the page footer is translated. Mixed
 * scripts in one paragraph each get a covering font; an uncovered character is named in a
 * `missing_glyphs` warning.
 *
 * Arabic (and Devanagari, whose clusters may be reordered by shaping) is compared as the set of
 * its letters, since extraction may give visual order or decomposed forms.
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { LOCALES, localeData, type Locale } from "../../src/render/locales.ts"
import { pageTexts, pdfChars, squash, stripSubset, type PdfChar } from "../helpers/pdf.ts"

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
  ["Arabic", /\p{Script=Arabic}/u, /Arabic|Naskh/],
  // Noto Sans (Google Fonts build) covers and shapes Devanagari itself, and comes before the
  // dedicated Devanagari faces in the templates' fallback list: both are covering fonts.
  ["Devanagari", /\p{Script=Devanagari}/u, /Devanagari|^NotoSans-/],
  ["Hangul", /\p{Script=Hangul}/u, /NotoSans(KR|JP|SC)/],
  ["Kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u, /NotoSans(JP|SC|KR)/],
  ["Han", /\p{Script=Han}/u, /NotoSans(JP|SC|KR)/]
]

/** For the locale's own CJK text, its regional face must win. */
const LOCALE_CJK: Partial<Record<Locale, RegExp>> = { ja: /NotoSansJP/, "zh-CN": /NotoSansSC/, ko: /NotoSansKR/ }

const letters = (s: string) => new Set([...s.normalize("NFKD")].filter((c) => /\p{L}|\p{M}/u.test(c)))

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

const renderer = await Renderer.create({ workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

t.test("every locale has a sentence", async (t) => {
  t.same(Object.keys(SENTENCES).sort(), [...LOCALES].sort())
})

for (const locale of LOCALES) {
  t.test(`${locale}: text, fonts and footer`, async (t) => {
    const sentence = SENTENCES[locale]
    const { pdf, warnings, provenance } = await renderer.render({ markdown: `${sentence}\n`, templateId: "clean", locale, options: { pageNumbers: true } })
    t.same(warnings, [], "no warnings")
    t.equal(provenance.locale, locale)
    const text = pageTexts(pdf).join("\n").normalize("NFC")
    if (localeData[locale].dir === "rtl" || locale === "hi") {
      const found = letters(text)
      const lost = [...letters(sentence)].filter((c) => !found.has(c))
      t.same(lost, [], "every letter of the sentence is extractable", { text })
    } else {
      t.ok(squash(text).includes(squash(sentence)), "the sentence is extractable", { text })
    }
    const chars = pdfChars(pdf)
    t.same(misfits(chars, LOCALE_CJK[locale]), [], "non-ASCII characters are set in fonts covering their scripts")
    t.notOk(chars.some((c) => c.c === "\ufffd" || c.c === "\u0000"), "no replacement or notdef characters")
    const footer = localeData[locale].labels.page!.replace("{page}", "1").replace("{total}", "1")
    if (localeData[locale].dir === "rtl") {
      const found = letters(text)
      t.same([...letters(footer)].filter((c) => !found.has(c)), [], `footer label letters present (${footer})`)
      t.match(text, /1[\s\S]*1/)
    } else {
      t.ok(squash(text).includes(squash(footer)), `footer reads "${footer}"`, { text })
    }
    if (locale !== "en") t.notOk(text.includes("Page 1 of 1"), "no English footer")
    const plain = await renderer.render({ markdown: `${sentence}\n`, templateId: "clean", locale, options: { pageNumbers: false } })
    t.notOk(squash(pageTexts(plain.pdf).join("")).includes(squash(footer)), "no footer without pageNumbers")
  })
}

t.test("one paragraph mixing eight scripts", async (t) => {
  const md = "Latin text, Кириллица текст, Ελληνικό κείμενο, نص عربي, हिन्दी पाठ, 日本語のかなカナ, 中文汉字, 한국어 텍스트.\n"
  const { pdf, warnings } = await renderer.render({ markdown: md, templateId: "clean" })
  t.same(warnings, [])
  const chars = pdfChars(pdf)
  t.same(misfits(chars), [], "every script in a covering font")
  const text = pageTexts(pdf).join("\n")
  for (const part of ["Latin text", "Кириллица текст", "Ελληνικό κείμενο", "日本語のかなカナ", "中文汉字", "한국어 텍스트"]) {
    t.ok(squash(text).includes(squash(part)), `${part} extractable`)
  }
  for (const part of ["نص عربي", "हिन्दी पाठ"]) {
    const found = letters(text)
    t.same([...letters(part)].filter((c) => !found.has(c)), [], `${part}: letters extractable`)
  }
  const byScript = (re: RegExp) => new Set(chars.filter((c) => re.test(c.c.normalize("NFKC"))).map((c) => stripSubset(c.font)))
  t.ok(byScript(/\p{Script=Arabic}/u).size > 0, "Arabic drawn")
  t.ok(byScript(/\p{Script=Devanagari}/u).size > 0, "Devanagari drawn")
  t.ok(byScript(/\p{Script=Hangul}/u).size > 0, "Hangul drawn")
})

t.test("characters no font covers are named in missing_glyphs", async (t) => {
  const { pdf, warnings } = await renderer.render({ markdown: "A unicorn 🦄 and a Hanifi Rohingya digit \u{10D30} here.\n", templateId: "clean" })
  const missing = warnings.filter((w) => w.code === "missing_glyphs")
  t.equal(missing.length, 1, "one missing_glyphs warning")
  t.match(missing[0]?.message ?? "", /U\+1F984/, "names U+1F984")
  t.match(missing[0]?.message ?? "", /U\+10D30/, "names U+10D30")
  t.ok(missing[0]?.message.includes("🦄"), "shows the character")
  t.ok(squash(pageTexts(pdf).join("")).includes("Aunicorn"), "the rest still renders")
  const covered = await renderer.render({ markdown: "é ü Ж Ω ☑ 日 한 ع ह\n", templateId: "clean" })
  t.same(covered.warnings, [], "covered characters give no warning")
  const invisible = await renderer.render({ markdown: "zero\u200bwidth\u00a0joiner\u200d and BOM\ufeff\n", templateId: "clean" })
  t.same(invisible.warnings.filter((w) => w.code === "missing_glyphs"), [], "invisible characters are not reported")
})
