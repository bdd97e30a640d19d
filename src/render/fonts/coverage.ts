/**
 * Which characters the bundled fonts can draw. Typst silently draws a blank box for a character no
 * font covers; we name such characters in a `missing_glyphs` warning instead.
 */
import * as fontkit from "fontkit"
import type { LoadedFont } from "./manifest.ts"

export type Coverage = ReadonlySet<number>

export const fontCoverage = (fonts: ReadonlyArray<LoadedFont>): Coverage => {
  const covered = new Set<number>()
  for (const font of fonts) {
    const parsed = fontkit.create(Buffer.from(font.bytes.buffer, font.bytes.byteOffset, font.bytes.byteLength))
    const faces = "fonts" in parsed ? parsed.fonts : [parsed]
    for (const face of faces) for (const codePoint of face.characterSet) covered.add(codePoint)
  }
  return covered
}

// Characters that are never drawn: white space, controls, joiners and variation selectors.
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Default_Ignorable_Code_Point}]/u

/** The distinct characters of `text` that no bundled font covers, in order of appearance. */
export const missingCharacters = (text: string, coverage: Coverage): Array<string> => {
  const missing = new Set<string>()
  for (const char of text) {
    if (!coverage.has(char.codePointAt(0)!) && !INVISIBLE.test(char)) missing.add(char)
  }
  return [...missing]
}

export const describeCharacters = (chars: ReadonlyArray<string>): string =>
  chars
    .slice(0, 20)
    .map((c) => `${c} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`)
    .join(", ") + (chars.length > 20 ? ` and ${chars.length - 20} more` : "")
