/**
 * The template catalog (specification 2.2, version 2026-07-22.1): 57 templates, each a Typst file
 * typst-templates/templates/<id>.typ.
 */
import { readFileSync } from "node:fs"
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

export const findTemplate = (id: string): CatalogEntry | undefined => catalog.templates.find((t) => t.id === id)

/** The bundle path of a template's file. */
export const templatePath = (id: string): string => `/templates/${id}.typ`
