/**
 * The template catalog (specification 2.2, version 2026-07-22.1): 57 templates, each a Typst file
 * typst-templates/templates/<id>.typ. The catalog is imported as data, because request schemas
 * list its template ids when they are defined; its hash is taken from the bundle the renderer reads.
 */
import catalogJson from "../../typst-templates/catalog.json" with { type: "json" }
import type { RenderOptions } from "./common/options.ts"
import type { TemplateId } from "./template-id.ts"

export type { TemplateId }

export interface CatalogEntry {
  readonly id: TemplateId
  readonly family: string
  readonly title: string
  readonly description: string
  /** Option values this template uses when the request leaves them out. */
  readonly defaults: Partial<RenderOptions>
}

export interface Catalog {
  readonly catalogVersion: string
  readonly templates: ReadonlyArray<CatalogEntry>
}

export const catalog: Catalog = catalogJson as Catalog

export const CATALOG_VERSION = catalog.catalogVersion
export const TEMPLATE_IDS: ReadonlyArray<TemplateId> = catalog.templates.map((t) => t.id)

/** The templates of the v1 API (specification section 4, v1). */
export const V1_TEMPLATE_IDS = [
  "clean",
  "executive",
  "resume",
  "coverletter",
  "academic",
  "legal",
  "creative"
] as const satisfies ReadonlyArray<TemplateId>
export type V1TemplateId = (typeof V1_TEMPLATE_IDS)[number]

export const findTemplate = (id: string): CatalogEntry | undefined => catalog.templates.find((t) => t.id === id)

/** The bundle path of a template's file. */
export const templatePath = (id: string): string => `/templates/${id}.typ`
