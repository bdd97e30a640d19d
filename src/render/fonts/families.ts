/**
 * The font families a custom template may choose as its `fontFamily` (contract section 8): every
 * family of the bundled set except the symbol font, which has no letters.
 */
import { readManifest } from "./manifest.ts"

export const FONT_FAMILIES: ReadonlyArray<string> = [...new Set(readManifest().fonts.map((font) => font.family))]
  .filter((family) => family !== "Noto Sans Symbols 2")
  .sort()

export const isFontFamily = (name: string): boolean => FONT_FAMILIES.includes(name)
