/**
 * npm run gallery — renders every template's sample (examples/<id>.md, English) and writes a PNG of
 * its first page to assets/gallery/<id>.png, plus assets/gallery/README.md, a contact sheet of all of
 * them. Rendering and rasterising are deterministic, so running it again rewrites the same bytes
 * (test/render/gallery.test.ts checks that the committed images are current).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { catalog } from "../src/render/catalog.ts"
import { packageRoot } from "../src/render/fonts/manifest.ts"
import { Renderer } from "../src/render/renderer.ts"
import { firstPagePng, GALLERY_SAMPLES, galleryDir, samplePath } from "./gallery-image.ts"

const renderer = await Renderer.create({ workers: 2, timeoutMs: 120_000 })
mkdirSync(galleryDir, { recursive: true })
const shown: Array<(typeof catalog.templates)[number]> = []
try {
  await Promise.all(
    catalog.templates.map(async (template) => {
      const markdown = readFileSync(join(packageRoot, "examples", `${template.id}.md`), "utf8")
      const result = await renderer.render({ markdown, templateId: template.id })
      writeFileSync(join(galleryDir, `${template.id}.png`), firstPagePng(result.pdf))
      shown.push(template)
    })
  )
  // Samples of what documents hold rather than of a template (examples/samples/, in `clean`).
  mkdirSync(join(galleryDir, "samples"), { recursive: true })
  for (const name of GALLERY_SAMPLES) {
    const result = await renderer.render({ markdown: readFileSync(samplePath(name), "utf8"), templateId: "clean" })
    writeFileSync(join(galleryDir, "samples", `${name}.png`), firstPagePng(result.pdf))
  }
} finally {
  await renderer.close()
}

const order = new Map(catalog.templates.map((t, i) => [t.id, i]))
shown.sort((a, b) => order.get(a.id)! - order.get(b.id)!)
const cell = (t: (typeof shown)[number]) =>
  `<a href="${t.id}.png"><img src="${t.id}.png" width="180" alt="${t.title}"></a><br><code>${t.id}</code>`
const rows: Array<string> = []
for (let i = 0; i < shown.length; i += 4)
  rows.push(
    `| ${shown
      .slice(i, i + 4)
      .map(cell)
      .join(" | ")} |`
  )
writeFileSync(
  join(galleryDir, "README.md"),
  [
    "# Template gallery",
    "",
    `The first page of each template's sample (\`examples/<id>.md\`), catalog ${catalog.catalogVersion}: ${shown.length} templates.`,
    "Regenerate with `npm run gallery`.",
    "",
    "| | | | |",
    "|:-:|:-:|:-:|:-:|",
    ...rows,
    "",
    "Samples of what documents hold (`examples/samples/<name>.md`, in `clean`):",
    "",
    ...GALLERY_SAMPLES.map((name) => `- [${name}](samples/${name}.png)`),
    ""
  ].join("\n")
)
console.log(`assets/gallery: ${shown.length} templates`)
