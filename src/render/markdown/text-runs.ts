/**
 * User text as Typst markup in runs the PDF export can take. Typst records where each glyph's
 * text lies in its run in 16 bits, so a run of more than 65,535 bytes of UTF-8 on one line gets
 * wrong offsets, and krilla, writing the PDF, panics when one falls inside a multibyte character
 * ("byte index 65535 is not a char boundary": one word of 40,000 `é`, or a letter followed by
 * 100,000 zero-width joiners). A line holds that much text only when the text cannot break (one
 * long word) or takes no room (joiners, combining marks), so neither is left to the line breaker:
 *
 * - a run of more than LONG_RUN characters without a space or a CJK letter (which break anywhere)
 *   gets a break point after every RUN_CHUNK characters (grapheme clusters), so it wraps at the
 *   margin instead of running off the page;
 * - no text between two break points is longer than MAX_SEGMENT_BYTES of UTF-8, however it is
 *   made (a single cluster of joiners is cut between code points).
 *
 * Code (`raw`) takes no markup inside: a line of it longer than MAX_SEGMENT_BYTES goes on in a
 * new line instead (`rawText`).
 *
 * A break point is `#h(0.01pt)`: spacing is a break opportunity to Typst's line breaker and ends
 * the text run, and it writes no character into the PDF, so a reader copying the text gets the
 * writer's characters, with at most a line end where the text wrapped. (`h(0pt)` would be
 * dropped before line breaking; a zero-width space would be copied.)
 */
import { typstString } from "../math/typst-literal.ts"

/** Runs of more characters than this without a break opportunity are broken (no word is this long). */
export const LONG_RUN = 64
/** How many characters of a long run go between two break points: a chunk fits any column. */
export const RUN_CHUNK = 32
/**
 * The most UTF-8 bytes between two break points: a quarter of Typst's 65,535, leaving room for a
 * template that upper-cases text (up to three times the bytes) and for hyphens it adds.
 */
export const MAX_SEGMENT_BYTES = 16_384

export const BREAK_POINT = "#h(0.01pt)"

/**
 * Runs of more characters than this without a space are set without kerning or contextual
 * alternates. Such a run is data, not a word (an encoded blob, a run of punctuation), and every
 * break opportunity in it between two kerned or alternated glyphs is unsafe to break, so Typst's
 * line breaker shapes the text again for each line it tries: 100,000 backslashes in Inter took
 * 3.65 s to compile with kerning and 0.17 s without (docs/performance.md).
 */
export const UNKERNED_RUN = 256
const UNKERNED = "#text(kerning: false, features: (calt: 0))"

/** Letters that Typst may break after anyway (Han, kana, Hangul): a run of them needs no help. */
const BREAKS_ANYWHERE = /^[\p{Ideographic}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const SPACE_OR_RUN = /([ \t]+)|([^ \t]+)/g

/**
 * A character as a reader counts it (a grapheme cluster, near enough): a code point with the marks,
 * joiners and modifiers that attach to it, or a flag's two regional indicators. Intl.Segmenter
 * would be exact, but it takes quadratic time over a long run in V8 (365 ms for 40,000 characters).
 */
export const CLUSTER = /(?:\p{Regional_Indicator}{2}|.)(?:[\p{M}\p{Emoji_Modifier}\u200c]|\u200d.?)*/gsu

/** The length of `text` in UTF-8, in bytes. */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    // A surrogate pair is one code point of four bytes (a lone surrogate becomes U+FFFD, three).
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** `text` cut between code points into pieces of at most `max` UTF-8 bytes. */
export const cutByBytes = (text: string, max: number): Array<string> => {
  const pieces: Array<string> = []
  let piece = ""
  let bytes = 0
  for (const codePoint of text) {
    const size = utf8Length(codePoint)
    if (bytes + size > max && piece !== "") {
      pieces.push(piece)
      piece = ""
      bytes = 0
    }
    piece += codePoint
    bytes += size
  }
  if (piece !== "") pieces.push(piece)
  return pieces
}

/**
 * Markup for the text of one flow of inline content (a paragraph, a heading, a table cell). The
 * counts carry over from one call to the next, since Typst shapes adjacent text of one style as
 * one run whatever Markdown node it came from; `reset` starts a new flow.
 */
export class TextRuns {
  /** Characters since the last space, CJK letter or break point. */
  private run = 0
  /** UTF-8 bytes since the last break point. */
  private segment = 0

  reset(): void {
    this.run = 0
    this.segment = 0
  }

  /**
   * `text` as markup: string literals (`#"..."`), with break points where the rules above need
   * them. The caller always follows it with `#`, `]` or a newline, never with what would continue
   * the literal as an expression (`.`, `(`, `[`).
   */
  markup(text: string): string {
    const out: Array<string> = []
    let literal = ""
    const flush = () => {
      if (literal !== "") out.push(`#${typstString(literal)}`)
      literal = ""
    }
    const breakHere = () => {
      flush()
      if (this.segment > 0) out.push(BREAK_POINT)
      this.segment = 0
    }
    const unkerned = (write: () => void) => {
      flush()
      const from = out.length
      write()
      flush()
      out.push(`${UNKERNED}[${out.splice(from).join("")}]`)
    }
    const add = (piece: string): void => {
      const bytes = utf8Length(piece)
      if (this.segment + bytes > MAX_SEGMENT_BYTES) {
        if (bytes > MAX_SEGMENT_BYTES) {
          for (const cut of cutByBytes(piece, MAX_SEGMENT_BYTES)) add(cut)
          return
        }
        breakHere()
      }
      literal += piece
      this.segment += bytes
    }
    for (const [, spaces, run] of text.matchAll(SPACE_OR_RUN)) {
      if (spaces !== undefined) {
        this.run = 0
        add(spaces)
      } else if (this.run + run!.length <= LONG_RUN) {
        // Most runs are words, short enough to need no counting of their characters.
        this.run += run!.length
        add(run!)
      } else {
        this.longRun(run!, add, breakHere, unkerned)
      }
    }
    flush()
    return out.join("")
  }

  /**
   * A run that may be long: a break point every RUN_CHUNK characters of each stretch past LONG_RUN,
   * and a stretch of more than UNKERNED_RUN characters (CJK letters end a stretch: they are words'
   * letters, not data) set without kerning.
   */
  private longRun(run: string, add: (piece: string) => void, breakHere: () => void, unkerned: (write: () => void) => void): void {
    const clusters = run.match(CLUSTER) ?? []
    let i = 0
    while (i < clusters.length) {
      if (BREAKS_ANYWHERE.test(clusters[i]!)) {
        this.run = 0
        add(clusters[i++]!)
        continue
      }
      let end = i
      while (end < clusters.length && !BREAKS_ANYWHERE.test(clusters[end]!)) end++
      const long = this.run + (end - i) > LONG_RUN
      const write = () => {
        for (; i < end; i++) {
          if (long && this.run > 0 && this.run % RUN_CHUNK === 0) breakHere()
          add(clusters[i]!)
          this.run++
        }
      }
      if (end - i > UNKERNED_RUN) unkerned(write)
      else write()
    }
  }
}

/**
 * Code for `raw`, with every line cut to MAX_SEGMENT_BYTES: raw text is set in its own style, so
 * each of its lines is a run of its own, and a longer one is continued on the next line.
 */
export const rawText = (code: string): string =>
  code
    .split("\n")
    .map((line) => (line.length * 3 <= MAX_SEGMENT_BYTES ? line : cutByBytes(line, MAX_SEGMENT_BYTES).join("\n")))
    .join("\n")
