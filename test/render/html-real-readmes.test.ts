/**
 * Real READMEs typeset whole (issue 40): KaTeX's README.md (github.com/KaTeX/KaTeX, commit
 * a11ce7289b735a2c1970cddbd858c5b894da9c2b, MIT) and sindresorhus/awesome's readme
 * (github.com/sindresorhus/awesome, commit 7cb5c8371c0fe73e5444a42d5542f6280c38b1a6, CC0), copied
 * unchanged into test/fixtures/readmes/. Every text that sits directly inside one of their HTML
 * elements is read back from the PDF, in order; no element is dropped (remote images aside, which
 * no render fetches).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fromHtml } from "hast-util-from-html"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { normalize, pdfText } from "../helpers/pdf.ts"
import { testEngine } from "../helpers/render.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 1, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

interface Node {
  readonly type: string
  readonly tagName?: string
  readonly value?: string
  readonly children?: ReadonlyArray<Node>
}

/** The text directly inside each HTML element of the file, in document order, Markdown syntax left out. */
const elementTexts = (markdown: string): Array<{ tag: string; text: string }> => {
  const found: Array<{ tag: string; text: string }> = []
  const walk = (node: Node) => {
    for (const child of node.children ?? []) {
      if (child.type === "text" && node.type === "element" && !["html", "head", "body"].includes(node.tagName!)) {
        const text = child
          .value!.replace(/&nbsp;/g, " ")
          .replace(/\s+/g, " ")
          .trim()
        if (text !== "" && !/[*_`[\]()#<>!|]/.test(text)) found.push({ tag: node.tagName!, text })
      }
      walk(child)
    }
  }
  walk(fromHtml(markdown, { fragment: true }) as unknown as Node)
  return found
}

for (const file of ["katex-README.md", "awesome-readme.md"]) {
  t.test(`${file}: the text of every HTML element shows, in order`, async (t) => {
    const markdown = readFileSync(join(packageRoot, "test", "fixtures", "readmes", file), "utf8")
    const { pdf, warnings } = await renderer.render({ markdown, templateId: "clean" })
    t.same(
      warnings.filter((w) => w.code === "html_dropped"),
      [],
      "no HTML element dropped"
    )
    const texts = elementTexts(markdown)
    t.ok(texts.length >= 1, `${texts.length} texts inside HTML elements`, { tags: [...new Set(texts.map((e) => e.tag))] })
    const text = pdfText(pdf)
    let from = 0
    for (const { tag, text: part } of texts) {
      const at = text.indexOf(normalize(part), from)
      t.ok(at >= 0, `<${tag}> shows "${part}"`, { from })
      if (at >= 0) from = at + normalize(part).length
    }
  })
}
