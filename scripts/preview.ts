/**
 * Developer preview: renders a Markdown file with a template and writes the PDF and PNGs of its
 * first pages, to look at a template while designing it.
 *   tsx scripts/preview.ts <file.md> <templateId> [locale] [outPrefix] [optionsJson]
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as mupdf from "mupdf"
import { Renderer, uncheckedRequest } from "../src/render/renderer.ts"

const [file, templateId, locale = "en", outPrefix = `/tmp/preview-${templateId}`, optionsJson = "{}"] = process.argv.slice(2)
if (!file || !templateId) throw new Error("usage: preview.ts <file.md> <templateId> [locale] [outPrefix] [optionsJson]")
const renderer = await Renderer.create({ workers: 1, timeoutMs: 60_000 })
try {
  const result = await renderer.render(
    uncheckedRequest({ markdown: readFileSync(file, "utf8"), templateId, locale, options: JSON.parse(optionsJson) })
  )
  writeFileSync(`${outPrefix}.pdf`, result.pdf)
  const doc = mupdf.Document.openDocument(result.pdf, "application/pdf")
  for (let i = 0; i < Math.min(doc.countPages(), 3); i++) {
    const pixmap = doc.loadPage(i).toPixmap(mupdf.Matrix.scale(1.2, 1.2), mupdf.ColorSpace.DeviceRGB, false, true)
    writeFileSync(`${outPrefix}-${i + 1}.png`, pixmap.asPNG())
  }
  console.log(JSON.stringify({ pages: result.pageCount, warnings: result.warnings, pdf: `${outPrefix}.pdf` }))
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  await renderer.close()
}
