/**
 * GitHub's HTML in Markdown (issue 40): READMEs and docs whose HTML elements each show their text,
 * read back from the PDF, with what falls outside the subset named in a warning.
 */
import t from "tap"
import { Renderer } from "../../src/render/renderer.ts"
import { linkPages, linkUris, normalize, pdfText } from "../helpers/pdf.ts"
import { testEngine } from "../helpers/render.ts"
import { HTML_READMES } from "../fixtures/html-readmes.ts"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { firstPagePng, GALLERY_SAMPLES, galleryDir, samplePath } from "../../scripts/gallery-image.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

const render = (markdown: string) => renderer.render({ markdown, templateId: "clean" })

for (const doc of HTML_READMES) {
  t.test(`${doc.name}: every element shows its text, in order, with nothing dropped`, async (t) => {
    const { pdf, warnings } = await render(doc.markdown)
    t.same(warnings, [], "the subset renders without a warning")
    const text = pdfText(pdf)
    let from = 0
    for (const part of doc.shows) {
      const at = text.indexOf(normalize(part), from)
      t.ok(at >= 0, `shows "${part}"`, { from, text })
      if (at >= 0) from = at + part.length
    }
  })
}

t.test("an element opened in one HTML block wraps the Markdown up to where a later one closes it", async (t) => {
  const { pdf, warnings } = await render("<details>\n<summary>More</summary>\n\nInside **bold** text.\n\n</details>\n\nAfter.\n")
  t.same(warnings, [])
  t.match(pdfText(pdf), /More Inside bold text\. After\./)
})

t.test("#id links reach the element with that id (the user-content- prefix does not break them)", async (t) => {
  const { pdf } = await render('[to the target](#target) and <a href="#target">again</a>\n\n#pagebreak\n\n<p id="target">The target.</p>\n')
  // mupdf reads a link to a place in the document as "#page=…": both links have one.
  const links = linkUris(pdf)
  t.equal(links.length, 2)
  t.ok(
    links.every((uri) => uri.startsWith("#page=")),
    "both links go to a place in the document",
    { links }
  )
  t.match(pdfText(pdf), /to the target and again .*The target\./)
})

t.test("#… links reach headings by GitHub's anchors, repeated headings numbered; a link to no target is its text", async (t) => {
  const markdown = [
    "[Install](#install), [the second](#install-1), [notes](#usage--notes-v2) and [nowhere](#missing).",
    "# Install",
    "First.",
    "<!-- pagebreak -->",
    "## Install",
    "Second.",
    "<!-- pagebreak -->",
    "## Usage & *notes* `v2`",
    "Third."
  ].join("\n\n")
  const { pdf, warnings } = await render(markdown)
  t.same(warnings, [])
  t.same(linkPages(pdf), [1, 2, 3], "three links to the pages of their headings; the fourth is plain text")
  t.match(pdfText(pdf), /Install, the second, notes and nowhere\./)
})

t.test("dropped elements are named, comments vanish silently, script and style text never shows", async (t) => {
  const { pdf, warnings } = await render(
    "<!-- a comment -->\n\n<center>Centred text</center>\n\n<script>alert('script text')</script>\n\n<style>p { color: red }</style>\n\nkeep <font color=red>this</font>\n"
  )
  const text = pdfText(pdf)
  t.match(text, /Centred text/)
  t.match(text, /keep this/)
  t.notMatch(text, /comment|script text|color/)
  t.same(
    warnings.map((w) => [w.code, w.message]),
    [
      ["html_dropped", "the HTML element <center> is not rendered"],
      ["html_dropped", "the HTML element <script> is not rendered"],
      ["html_dropped", "the HTML element <style> is not rendered"],
      ["html_dropped", "the HTML element <font> is not rendered"]
    ]
  )
})

t.test("the gallery's samples are current and render without a warning", async (t) => {
  for (const name of GALLERY_SAMPLES) {
    const { pdf, warnings } = await render(readFileSync(samplePath(name), "utf8"))
    t.same(warnings, [], name)
    const committed = readFileSync(join(galleryDir, "samples", `${name}.png`))
    t.ok(Buffer.from(firstPagePng(pdf)).equals(committed), `samples/${name}.png is current (run npm run gallery)`)
  }
})
