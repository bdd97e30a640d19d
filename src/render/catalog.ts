/**
 * The template catalog (specification 2.2, version 2026-07-22.1). All 57 ids are known; a template
 * is available once its Typst file exists under typst-templates/templates/.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { sha256Hex } from "../shared/hash.ts"
import { templatesRoot } from "./engine/bundle.ts"
import type { RenderOptions } from "./options.ts"

export interface CatalogEntry {
  readonly id: string
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

const catalogPath = join(templatesRoot, "catalog.json")
const catalogBytes = readFileSync(catalogPath)

export const catalog: Catalog = JSON.parse(catalogBytes.toString("utf8")) as Catalog
export const catalogSha256 = sha256Hex(catalogBytes)
export const CATALOG_VERSION = catalog.catalogVersion
export const TEMPLATE_IDS: ReadonlyArray<string> = catalog.templates.map((t) => t.id)

/** The templates of the v1 API (specification section 4, v1). */
export const V1_TEMPLATE_IDS = ["clean", "executive", "resume", "coverletter", "academic", "legal", "creative"] as const

export const templateFile = (id: string): string => join(templatesRoot, "templates", `${id}.typ`)

export const findTemplate = (id: string): CatalogEntry | undefined => catalog.templates.find((t) => t.id === id)

export const isTemplateAvailable = (id: string): boolean =>
  findTemplate(id) !== undefined && existsSync(templateFile(id))
