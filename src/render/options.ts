/**
 * Render options (specification 2.5 and the v1 options), validated with the same schema the HTTP
 * API uses, and resolved against the template's defaults (and a custom template's overrides) into
 * the effective options that the template receives and `renderOptionsSha256` covers.
 */
import { Schema } from "effect"
import type { RenderOverrides } from "./overrides.ts"

export const HexColor = Schema.String.pipe(
  Schema.pattern(/^#[0-9a-fA-F]{6}$/, { message: () => "must be a colour like #1a2b3c" })
)

export const CREATIVE_ACCENTS = ["slate", "purple", "blue", "emerald", "rose", "amber"] as const
export const CreativeAccent = Schema.Literal(...CREATIVE_ACCENTS)

export const RenderOptions = Schema.Struct({
  pageNumbers: Schema.optional(Schema.Boolean),
  bodyTextColor: Schema.optional(HexColor),
  headingTextColor: Schema.optional(HexColor),
  creativeAccent: Schema.optional(CreativeAccent)
})
export type RenderOptions = typeof RenderOptions.Type

export interface EffectiveOptions {
  readonly pageNumbers: boolean
  readonly bodyTextColor: string | null
  readonly headingTextColor: string | null
  readonly creativeAccent: (typeof CREATIVE_ACCENTS)[number]
  readonly paper?: RenderOverrides["paper"]
  readonly fontFamily?: RenderOverrides["fontFamily"]
}

export const resolveOptions = (
  requested: RenderOptions,
  defaults: Partial<RenderOptions>,
  overrides: RenderOverrides = {}
): EffectiveOptions => ({
  pageNumbers: requested.pageNumbers ?? defaults.pageNumbers ?? false,
  // Colours are compared and hashed in one spelling.
  bodyTextColor: (requested.bodyTextColor ?? defaults.bodyTextColor)?.toLowerCase() ?? null,
  headingTextColor: (requested.headingTextColor ?? defaults.headingTextColor)?.toLowerCase() ?? null,
  creativeAccent: requested.creativeAccent ?? defaults.creativeAccent ?? "slate",
  // Present only when set: without overrides the effective options, and so every
  // renderOptionsSha256 recorded before overrides existed, stay exactly as they were.
  ...(overrides.paper !== undefined ? { paper: overrides.paper } : {}),
  ...(overrides.fontFamily !== undefined ? { fontFamily: overrides.fontFamily } : {})
})
