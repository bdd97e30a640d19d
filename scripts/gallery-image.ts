/** The gallery's rasterisation, shared by `npm run gallery` and the test that checks it is current. */
import * as mupdf from "mupdf"
import { join } from "node:path"
import { packageRoot } from "../src/render/fonts/manifest.ts"

export { galleryDir } from "../src/dashboard/gallery.ts"

/** examples/samples/<name>.md: the gallery shows each in `clean`, as assets/gallery/samples/<name>.png. */
export const GALLERY_SAMPLES: ReadonlyArray<string> = ["github-readme", "math"]
export const samplePath = (name: string): string => join(packageRoot, "examples", "samples", `${name}.md`)

/** The first page at 72 dpi × 0.8 (an A4 page is 476 × 674 pixels): enough to judge a design. */
export const firstPagePng = (pdf: Uint8Array): Uint8Array => {
  const page = mupdf.Document.openDocument(pdf, "application/pdf").loadPage(0)
  const pixmap = page.toPixmap(mupdf.Matrix.scale(0.8, 0.8), mupdf.ColorSpace.DeviceRGB, false, true)
  return pixmap.asPNG()
}
