/**
 * Template overrides: what a custom template (contract section 8) changes on its built-in template
 * beyond the render options, namely the paper and the font family. They are not render options, so
 * the v1 and v2 option schemas never accept them; they reach the renderer as
 * `RenderRequest.overrides`, and the HTTP layer validates saved custom templates with this schema.
 */
import { Schema } from "effect"
import { ACCEPTED_FONT_FAMILIES, currentFontFamily, FONT_FAMILIES } from "./font-families.ts"

export const PAPERS = ["a4", "us-letter"] as const
// `override`: the message replaces the one of the union's first member ("Expected \"a4\"").
export const Paper = Schema.Literal(...PAPERS).annotations({
  message: () => ({ message: `must be one of ${PAPERS.map((p) => `"${p}"`).join(", ")}`, override: true })
})

const fontFamilyMessage = {
  message: () => ({ message: `must be one of the bundled font families: ${FONT_FAMILIES.join(", ")}`, override: true })
}

/**
 * A family of the bundled font set (literal unions, so OpenAPI lists the choices). A retired
 * family's name decodes to the family that replaced it, so nothing downstream sees it.
 */
export const FontFamily = Schema.transform(
  Schema.Literal(...(ACCEPTED_FONT_FAMILIES as readonly [string, ...Array<string>])).annotations(fontFamilyMessage),
  Schema.Literal(...(FONT_FAMILIES as readonly [string, ...Array<string>])),
  { strict: true, decode: currentFontFamily, encode: (family) => family }
).annotations(fontFamilyMessage)

export const RenderOverrides = Schema.Struct({
  paper: Schema.optional(Paper),
  fontFamily: Schema.optional(FontFamily)
}).annotations({ message: () => "must be an object with the optional fields paper and fontFamily" })
export type RenderOverrides = typeof RenderOverrides.Type
