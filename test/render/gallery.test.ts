/**
 * The committed gallery is current: each template's sample rasterises to the same bytes as its
 * assets/gallery/<id>.png (a third of the templates in the main run, every one in the full job:
 * docs/testing.md; test/render/templates.test.ts renders every sample in both), and the contact
 * sheet shows all 57.
 */
import t from "tap"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { TEMPLATE_IDS } from "../../src/render/catalog.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { firstPagePng, galleryDir } from "../../scripts/gallery-image.ts"
import { mapLimit, testEngine } from "../helpers/render.ts"
import { sampled, share } from "../helpers/sample.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 120_000 })
t.teardown(() => renderer.close())

t.test("every gallery image regenerates byte for byte", async (t) => {
  const ids = sampled(TEMPLATE_IDS, 3)
  t.comment(`${share(ids.length, TEMPLATE_IDS.length)} templates`)
  await mapLimit(ids, 4, async (id) => {
    const markdown = readFileSync(join(packageRoot, "examples", `${id}.md`), "utf8")
    const result = await renderer.render({ markdown, templateId: id })
    const committed = readFileSync(join(galleryDir, `${id}.png`))
    t.ok(Buffer.from(firstPagePng(result.pdf)).equals(committed), `${id}.png is current (run npm run gallery)`)
  })
})

t.test("the contact sheet shows every template", async (t) => {
  const sheet = readFileSync(join(galleryDir, "README.md"), "utf8")
  for (const id of TEMPLATE_IDS) t.match(sheet, `<img src="${id}.png"`, id)
})
