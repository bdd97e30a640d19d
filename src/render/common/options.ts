/**
 * Render options (specification 2.5 and the v1 options), declared once: `RENDER_OPTIONS` gives each
 * option its schema, the value a render uses when neither the request nor the template sets it, and
 * its canonical spelling. From it come the `RenderOptions` schema (the renderer, jobs and custom
 * templates validate with it; the HTTP request schemas are derived from it), the effective options
 * a template receives, and what `renderOptionsSha256` covers.
 */
import { Schema } from "effect"
import type { RenderOverrides } from "./overrides.ts"

export const HexColor = Schema.String.pipe(Schema.pattern(/^#[0-9a-fA-F]{6}$/, { message: () => "must be a colour like #1a2b3c" }))

export const CREATIVE_ACCENTS = ["slate", "purple", "blue", "emerald", "rose", "amber"] as const
export const CreativeAccent = Schema.Literal(...CREATIVE_ACCENTS).annotations({ description: "accent colour of the creative template" })

interface OptionDefinition<A, I, F extends A | null> {
  readonly schema: Schema.Schema<A, I>
  /** When neither the request nor the template's defaults set it. */
  readonly fallback: F
  /** One spelling per value, so that equal options hash equally. */
  readonly canonical?: (value: A) => A
}

const option = <A, I, const F extends A | null>(definition: OptionDefinition<A, I, F>) => definition

const lowercase = (colour: string) => colour.toLowerCase()

/** Every render option. Adding one here adds it to every API that takes options and to the templates' `cfg.options`. */
export const RENDER_OPTIONS = {
  pageNumbers: option({ schema: Schema.Boolean, fallback: false }),
  bodyTextColor: option({ schema: HexColor, fallback: null, canonical: lowercase }),
  headingTextColor: option({ schema: HexColor, fallback: null, canonical: lowercase }),
  creativeAccent: option({ schema: CreativeAccent, fallback: "slate" as const })
}
type Options = typeof RENDER_OPTIONS
type OptionName = keyof Options
type ValueOf<K extends OptionName> = Schema.Schema.Type<Options[K]["schema"]>

const fields = Object.fromEntries(
  Object.entries(RENDER_OPTIONS).map(([name, definition]) => [name, Schema.optional(definition.schema)])
) as { readonly [K in OptionName]: Schema.optional<Options[K]["schema"]> }

/** The options a request may set, each optional. */
export const RenderOptions = Schema.Struct(fields)
export type RenderOptions = typeof RenderOptions.Type

/**
 * An option's value from text (a command line's `name=value`), as its schema reads it: `true` and
 * `false` for a boolean, digits for a number, the text itself otherwise. An unknown name keeps the
 * text, for the renderer to refuse by name.
 */
export const optionFromText = (name: string, text: string): unknown => {
  const definition = (RENDER_OPTIONS as Readonly<Record<string, OptionDefinition<unknown, unknown, unknown>>>)[name]
  switch (definition?.schema.ast._tag) {
    case "BooleanKeyword":
      return text === "true" ? true : text === "false" ? false : text
    case "NumberKeyword":
      return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text
    default:
      return text
  }
}

/** What a template receives as `cfg.options`: every option resolved, and a custom template's overrides when set. */
export type EffectiveOptions = { readonly [K in OptionName]: null extends Options[K]["fallback"] ? ValueOf<K> | null : ValueOf<K> } & {
  readonly paper?: RenderOverrides["paper"]
  readonly fontFamily?: RenderOverrides["fontFamily"]
}

export const resolveOptions = (
  requested: RenderOptions,
  defaults: Partial<RenderOptions>,
  overrides: RenderOverrides = {}
): EffectiveOptions => {
  const resolved: Record<string, unknown> = {}
  for (const [name, definition] of Object.entries(RENDER_OPTIONS) as Array<[OptionName, OptionDefinition<unknown, unknown, unknown>]>) {
    const value = requested[name] ?? defaults[name]
    resolved[name] = value === undefined ? definition.fallback : (definition.canonical ?? ((v) => v))(value)
  }
  return {
    ...(resolved as EffectiveOptions),
    // Present only when set: without overrides the effective options, and so every
    // renderOptionsSha256 recorded before overrides existed, stay exactly as they were.
    ...(overrides.paper !== undefined ? { paper: overrides.paper } : {}),
    ...(overrides.fontFamily !== undefined ? { fontFamily: overrides.fontFamily } : {})
  }
}
