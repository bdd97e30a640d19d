/**
 * Words as a reader gets them by copying text out of a PDF, compared with the words of the source.
 *
 * A word is a run of letters, combining marks and digits; the punctuation around it is not
 * compared, because extractors move neutral characters in right-to-left text. A word is intact
 * when its letters come out in logical order with nothing added or lost. Before comparing, only
 * what a reader's copy does to the text is undone, and nothing else:
 * - bidirectional control characters are dropped;
 * - a soft hyphen at a line end joins the word. mupdf keeps the soft hyphen; pdf.js drops it (it
 *   drops format characters) or, in some fonts, gives a hyphen-minus, so a line end in pdf.js's text
 *   joins the word where mupdf's text of the same PDF has a soft hyphen at that line end;
 * - Japanese and Chinese are compared with white space removed (their words are not spaced, and
 *   extractors space digits in them), each source run being found in the text;
 * - a line end inside a Korean word (Typst breaks Hangul between syllables) joins it; a line end
 *   is inside a word when the pieces on either side of it make one word of the source;
 * - in right-to-left text, letters and digits are separate words: an extractor that moves the space
 *   between an Arabic word and a number leaves them touching.
 * Both sides are compared in NFC and in capitals: canonically equivalent text is the same text, and
 * templates that set headings in capitals (like CSS text-transform) give a reader capitals.
 */
import { type Locale, localeData } from "../../src/render/locales.ts"

const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu
const UNSPACED: ReadonlySet<Locale> = new Set(["ja", "zh-CN"])

const fold = (text: string, locale: Locale) => text.normalize("NFC").replace(BIDI_CONTROLS, "").toLocaleUpperCase(locale)

const wordPattern = (locale: Locale) => (localeData[locale].dir === "rtl" ? /[\p{L}\p{M}]+|\p{N}+/gu : /[\p{L}\p{M}\p{N}]+/gu)

/** The words of `text` as this locale's comparison counts them, in order. */
export const wordsOf = (text: string, locale: Locale): Array<string> => fold(text, locale).match(wordPattern(locale)) ?? []

/** The word fragments around each soft hyphen that ends a line in mupdf's text. */
export const softHyphenBreaks = (mupdfText: string): Array<readonly [string, string]> =>
  [...mupdfText.normalize("NFC").matchAll(/([\p{L}\p{M}]+)\u00ad[ \t]*\n\s*([\p{L}\p{M}]+)/gu)].map((m) => [m[1]!, m[2]!] as const)

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Undoes what a reader's copy does (see the module comment). `breaks` are mupdf's soft-hyphen line
 * ends; `words` the source's, which tell a line end inside a Korean word from one between words.
 */
const asRead = (text: string, locale: Locale, breaks: ReadonlyArray<readonly [string, string]>, words: ReadonlySet<string>): string => {
  let out = text.normalize("NFC").replace(/\u00ad[ \t]*\n\s*/gu, "")
  for (const [tail, head] of breaks)
    out = out.replace(new RegExp(`${escapeRegExp(tail)}-?[ \\t]*\\n\\s*${escapeRegExp(head)}`, "u"), tail + head)
  out = fold(out, locale)
  if (locale === "ko") {
    out = out.replace(/([\p{L}\p{M}\p{N}]+)[ \t]*\n\s*([\p{L}\p{M}\p{N}]+)/gu, (line, tail: string, head: string) =>
      /\p{Script=Hangul}/u.test(tail.slice(-1) + head[0]) && words.has(tail + head) ? tail + head : line
    )
  }
  return out
}

/**
 * The source words missing from the extracted text (each occurrence counts), in source order.
 * `breaks`: for pdf.js, the soft-hyphen line ends mupdf found in the same PDF.
 */
export const lostWords = (
  source: string,
  extracted: string,
  locale: Locale,
  breaks: ReadonlyArray<readonly [string, string]> = []
): Array<string> => {
  const wanted = wordsOf(source, locale)
  const read = asRead(extracted, locale, breaks, new Set(wanted))
  if (UNSPACED.has(locale)) {
    const unspaced = read.replace(/\s+/gu, "")
    return wanted.filter((word) => !unspaced.includes(word))
  }
  const found = new Map<string, number>()
  for (const word of read.match(wordPattern(locale)) ?? []) found.set(word, (found.get(word) ?? 0) + 1)
  const lost: Array<string> = []
  for (const word of wanted) {
    const left = found.get(word) ?? 0
    if (left > 0) found.set(word, left - 1)
    else lost.push(word)
  }
  return lost
}
