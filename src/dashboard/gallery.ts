/**
 * The template gallery's images (contract section 12): the first page of each template's sample,
 * `assets/gallery/<templateId>.png` of the package (made by `npm run gallery`), read once at start
 * and served from `/app/gallery/<templateId>.png` (as an asset, assets.ts) for the templates
 * page and the editor.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { catalog } from "../render/catalog.ts"
import { packageRoot } from "../render/fonts/manifest.ts"

/** In the package, so that the dashboard can show them; `npm run gallery` writes them. */
export const galleryDir = join(packageRoot, "assets", "gallery")

/** Every template's image, by template id; a template without one (a catalog newer than its gallery) has none. */
export const loadGallery = (): ReadonlyMap<string, Uint8Array> =>
  new Map(
    catalog.templates.flatMap((template) => {
      const file = join(galleryDir, `${template.id}.png`)
      return existsSync(file) ? [[template.id, readFileSync(file)] as const] : []
    })
  )

export const galleryPath = (templateId: string) => `/app/gallery/${templateId}.png`
