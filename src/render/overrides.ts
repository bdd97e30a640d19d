/**
 * Template overrides: what a custom template (contract section 8) changes on its built-in template
 * beyond the render options, namely the paper and the font family. They are not render options, so
 * the v1 and v2 option schemas never accept them; they reach the renderer as
 * `RenderRequest.overrides`, and the HTTP layer validates saved custom templates with this schema.
 */
import { Schema } from "effect"
import { FONT_FAMILIES } from "./fonts/families.ts"

export const PAPERS = ["a4", "us-letter"] as const
// `override`: the message replaces the one of the union's first member ("Expected \"a4\"").
export const Paper = Schema.Literal(...PAPERS).annotations({
  message: () => ({ message: `must be one of ${PAPERS.map((p) => `"${p}"`).join(", ")}`, override: true })
})

/** A family of the bundled font set (a literal union, so OpenAPI lists the choices). */
export const FontFamily = Schema.Literal(...(FONT_FAMILIES as readonly [string, ...Array<string>])).annotations({
  message: () => ({ message: `must be one of the bundled font families: ${FONT_FAMILIES.join(", ")}`, override: true })
})

export const RenderOverrides = Schema.Struct({
  paper: Schema.optional(Paper),
  fontFamily: Schema.optional(FontFamily)
}).annotations({ message: () => "must be an object with the optional fields paper and fontFamily" })
export type RenderOverrides = typeof RenderOverrides.Type
