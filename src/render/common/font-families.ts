/**
 * The font families a custom template may choose as its `fontFamily` (contract section 8): every
 * family of the bundled set except the symbol and math fonts, which are not faces for text. The manifest is imported
 * as data, because the request schemas list the families when they are defined.
 */
import manifest from "../../../fonts/manifest.json" with { type: "json" }

export const FONT_FAMILIES: ReadonlyArray<string> = [...new Set(manifest.fonts.map((font) => font.family))]
  .filter((family) => !["Noto Sans Symbols 2", "Noto Sans Math", "STIX Two Math"].includes(family))
  .sort()

/**
 * Families that left the bundled set, each with the face that took its place. Custom templates and
 * queued jobs saved with the old name keep rendering, in the new face; a request may still send it.
 * The Noto Arabic faces wrote a broken text layer (docs/text-layer.md).
 */
export const RETIRED_FONT_FAMILIES: Readonly<Record<string, string>> = {
  "Noto Naskh Arabic": "Amiri",
  "Noto Sans Arabic": "Amiri"
}

/** Every name a request may send: the bundled families and the retired ones. */
export const ACCEPTED_FONT_FAMILIES: ReadonlyArray<string> = [...FONT_FAMILIES, ...Object.keys(RETIRED_FONT_FAMILIES)]

/** The bundled family a name stands for: itself, or a retired family's replacement. */
export const currentFontFamily = (name: string): string => RETIRED_FONT_FAMILIES[name] ?? name
