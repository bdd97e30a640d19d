/**
 * GitHub Flavored Markdown features and the block/inline elements a reader checks first, each
 * asserted on the PDF itself: text, order, links, outline, fonts, images, pages and metadata.
 */
import t from "tap"
import * as mupdf from "mupdf"
import { Renderer } from "../../src/render/renderer.ts"
import {
  drawCounts,
  fontsOf,
  imageCounts,
  linkUris,
  metadata,
  normalize,
  outline,
  pageTexts,
  pdfChars,
  pdfText,
  vectorCount
} from "../helpers/pdf.ts"
import { GIF_1x1, PNG_1x1, SVG_SQUARE, testEngine } from "../helpers/render.ts"
import type { TestContext } from "../helpers/tap.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
t.teardown(() => renderer.close())

const render = (markdown: string) => renderer.render({ markdown, templateId: "clean" })

/** Asserts the strings occur in `text` in this order. */
const inOrder = (t: TestContext, text: string, parts: ReadonlyArray<string>, message: string) => {
  let from = 0
  const positions: Array<number> = []
  for (const part of parts) {
    const at = text.indexOf(part, from)
    positions.push(at)
    if (at >= 0) from = at + part.length
  }
  t.ok(
    positions.every((p) => p >= 0),
    message,
    { parts, positions, text }
  )
}

t.test("table with alignment: cells present, in row order, aligned", async (t) => {
  const md = [
    "| Left header wide | Center header wide | Right header wide |",
    "|:-----------------|:------------------:|------------------:|",
    "| aa | bb | cc |",
    "| dd | ee | ff |"
  ].join("\n")
  const { pdf, warnings } = await render(md)
  t.same(warnings, [])
  inOrder(
    t,
    pdfText(pdf),
    ["Left header wide", "Center header wide", "Right header wide", "aa", "bb", "cc", "dd", "ee", "ff"],
    "cells in row order"
  )
  const chars = pdfChars(pdf)
  const extent = (text: string) => {
    // The first run of chars spelling `text`.
    for (let i = 0; i + text.length <= chars.length; i++) {
      if (
        chars
          .slice(i, i + text.length)
          .map((c) => c.c)
          .join("") === text
      ) {
        const run = chars.slice(i, i + text.length)
        return { x0: Math.min(...run.map((c) => c.x0)), x1: Math.max(...run.map((c) => c.x1)) }
      }
    }
    throw new Error(`${text} not drawn`)
  }
  const [lh, ch, rh, aa, bb, cc] = ["Left header wide", "Center header wide", "Right header wide", "aa", "bb", "cc"].map(extent)
  t.ok(Math.abs(aa!.x0 - lh!.x0) < 2, "left column: cell starts where its header starts", { aa, lh })
  t.ok(Math.abs((bb!.x0 + bb!.x1) / 2 - (ch!.x0 + ch!.x1) / 2) < 2, "center column: cell centred under its header", { bb, ch })
  t.ok(Math.abs(cc!.x1 - rh!.x1) < 2, "right column: cell ends where its header ends", { cc, rh })
  t.ok(bb!.x0 - ch!.x0 > 10, "center column cell is not left-aligned")
  t.ok(rh!.x1 - cc!.x1 < 2 && cc!.x0 - rh!.x0 > 10, "right column cell is not left-aligned")
})

t.test("task lists show checked and unchecked boxes", async (t) => {
  const { pdf, warnings } = await render("- [x] finished item\n- [ ] open item\n")
  t.same(warnings, [])
  const text = pdfText(pdf)
  t.match(text, /☑\s*finished item/, "checked box before its item")
  t.match(text, /☐\s*open item/, "unchecked box before its item")
  t.notMatch(text, /\[x\]|\[ \]/, "no literal brackets")
})

t.test("strikethrough", async (t) => {
  const { pdf } = await render("keep ~~struck words~~ keep\n")
  t.match(pdfText(pdf), /keep struck words keep/)
  // Typst draws the strike as a line over the glyphs: more vector paths than without it.
  const plain = await render("keep struck words keep\n")
  t.ok(vectorCount(pdf) > vectorCount(plain.pdf), "a strike line is drawn")
})

t.test("autolinks are shown and clickable", async (t) => {
  const { pdf, warnings } = await render(
    "Visit www.example.com, https://example.org/path?q=1 and write to someone@example.net.\n\nAlso <https://angle.example/x>.\n"
  )
  t.same(warnings, [])
  const text = pdfText(pdf)
  for (const shown of ["www.example.com", "https://example.org/path?q=1", "someone@example.net", "https://angle.example/x"]) {
    t.ok(text.includes(shown), `${shown} is shown`)
  }
  const uris = linkUris(pdf)
  t.ok(uris.includes("http://www.example.com"), "www. link annotation", { uris })
  t.ok(uris.includes("https://example.org/path?q=1"), "https link annotation", { uris })
  t.ok(uris.includes("mailto:someone@example.net"), "email link annotation", { uris })
  t.ok(uris.includes("https://angle.example/x"), "angle-bracket autolink annotation", { uris })
})

t.test("inline links keep their target", async (t) => {
  const { pdf } = await render("A [named link](https://example.com/a) here.\n")
  t.match(pdfText(pdf), /A named link here\./)
  t.ok(linkUris(pdf).includes("https://example.com/a"))
})

t.test("a link to an address longer than Typst takes (8,000 bytes) is shown as its text, with link_too_long", async (t) => {
  // The longest address Typst links: 8,000 bytes (a longer one fails the whole document, "URL is too long").
  const address = (bytes: number) => `https://example.com/${"é".repeat((bytes - 20) / 2)}`
  const longest = address(8000)
  const tooLong = address(8002)
  const { pdf, warnings } = await render(
    `[Longest](${longest}) and [too long](${tooLong}) and <a href="${tooLong}">too long in HTML</a> and ${tooLong}\n\nNo text: [](${tooLong})\n`
  )
  t.same(
    warnings.map((warning) => [warning.code, warning.line]),
    [
      ["link_too_long", 1],
      ["link_too_long", 1],
      ["link_too_long", 1],
      ["link_too_long", 3]
    ],
    "one warning for each address past the bound"
  )
  t.match(warnings[0]?.message, /longer than 8,000 bytes/)
  t.same(linkUris(pdf), [longest], "only the address within the bound is a link")
  const text = pdfText(pdf).replace(/\s+/g, " ")
  t.match(text, /Longest and too long and too long in HTML and https:\/\/example\.com\/éé/, "each link's text is shown")
  t.match(text, /No text: https:\/\/example\.com\/éé/, "and a link with none shows its address")
})

t.test("a front matter address past 8,000 bytes is shown as its text by the templates that link it", async (t) => {
  // Résumés and cover letters link a contact's website; marketing templates a website, a call to
  // action or a contact's addresses.
  const address = (bytes: number) => `https://example.com/${"a".repeat(bytes - 20)}`
  const cases = [
    ["resume", "website"],
    ["coverletter-ats", "website"],
    ["marketing-product-one-pager", "website"],
    ["marketing-press-kit", "contact"]
  ] as const
  for (const [templateId, key] of cases) {
    for (const bytes of [8000, 8001]) {
      const value = key === "contact" ? `{name: Jo, website: "${address(bytes)}"}` : address(bytes)
      const markdown = `---\ntitle: Jane Doe\n${key}: ${value}\n---\n\nBody.\n`
      try {
        const { pdf } = await renderer.render({ markdown, templateId })
        const linked = linkUris(pdf).includes(address(bytes))
        t.equal(linked, bytes === 8000, `${templateId}, ${bytes} bytes: ${bytes === 8000 ? "a link" : "its text alone"}`)
        t.match(pdfText(pdf).replace(/\s+/g, ""), /example\.com\/aaaa/, `${templateId}, ${bytes} bytes: the address shown`)
      } catch (error) {
        t.fail(`${templateId}, ${bytes} bytes: renders`, { error: String(error) })
      }
    }
  }
})

t.test("footnotes: reference number and note text", async (t) => {
  const { pdf, warnings } = await render("Claim with a note[^n] here.\n\n[^n]: The footnote body text.\n")
  t.same(warnings, [])
  const text = pdfText(pdf)
  t.match(text, /Claim with a note\s?1 here\./, "reference number after the word")
  t.match(text, /1\s?The footnote body text\./, "note text with its number")
  t.ok(text.indexOf("Claim") < text.indexOf("The footnote body"), "note comes after the text")
})

t.test("headings appear in the PDF outline with their levels", async (t) => {
  const { pdf } = await render("# Chapter One\n\ntext\n\n## Section A\n\ntext\n\n### Sub a.1\n\n# Chapter Two\n")
  t.same(outline(pdf), [
    { title: "Chapter One", depth: 0 },
    { title: "Section A", depth: 1 },
    { title: "Sub a.1", depth: 2 },
    { title: "Chapter Two", depth: 0 }
  ])
  const text = pdfText(pdf)
  for (const h of ["Chapter One", "Section A", "Sub a.1", "Chapter Two"]) t.ok(text.includes(h), `${h} in text`)
})

t.test("ordered list start numbers are kept", async (t) => {
  const { pdf } = await render("7. seventh\n8. eighth\n\ntext\n\n1. one\n1. two\n")
  const text = pdfText(pdf)
  t.match(text, /7\.\s*seventh\s*8\.\s*eighth/)
  t.match(text, /1\.\s*one\s*2\.\s*two/, "a list of 1. 1. counts up")
  const zero = await render("0. zero\n1. one\n")
  t.match(pdfText(zero.pdf), /0\.\s*zero\s*1\.\s*one/, "a list may start at 0")
})

t.test("nested lists keep items and nesting", async (t) => {
  const { pdf } = await render("- outer one\n  - inner one\n    1. deep one\n    2. deep two\n  - inner two\n- outer two\n")
  const text = pdfText(pdf)
  t.match(text, /outer one\s*[•‣–] inner one\s*1\.\s*deep one\s*2\.\s*deep two\s*[•‣–] inner two\s*• outer two/, "all items in order", {
    text
  })
  const chars = pdfChars(pdf)
  const xOf = (word: string) => {
    const i = chars
      .map((c) => c.c)
      .join("")
      .indexOf(word)
    return chars[i]!.x0
  }
  t.ok(xOf("inner one") > xOf("outer one") + 5, "inner items are indented")
  t.ok(xOf("deep one") > xOf("inner one") + 5, "deeper items are indented further")
})

t.test("fenced and indented code: text present, set in JetBrains Mono", async (t) => {
  const md = "```python\ndef greet(name):\n    return name\n```\n\nbetween\n\n    indented_code_line = 1\n\nand `inline_span` too\n"
  const { pdf } = await render(md)
  const pages = pageTexts(pdf).join("\n")
  t.match(pages, /def greet\(name\):\n\s+return name/, "fenced code keeps its lines and indentation")
  t.ok(pdfText(pdf).includes("indented_code_line = 1"))
  const chars = pdfChars(pdf)
  // Every character of the code lines is in the mono font; "between" is not.
  const text = chars.map((c) => c.c).join("")
  const monoRun = (word: string) => {
    const i = text.indexOf(word)
    return chars.slice(i, i + word.length).every((c) => c.font.includes("JetBrainsMono"))
  }
  t.ok(monoRun("greet(name):"), "fenced code in mono")
  t.ok(monoRun("indented_code_line"), "indented code in mono")
  t.ok(monoRun("inline_span"), "code span in mono")
  t.notOk(monoRun("between"), "body text not in mono")
})

t.test("block quotes: text present and indented", async (t) => {
  const { pdf } = await render("before\n\n> quoted words\n> > nested quoted\n\nafter\n")
  const text = pdfText(pdf)
  t.match(text, /before\s*quoted words\s*nested quoted\s*after/)
  const chars = pdfChars(pdf)
  const s = chars.map((c) => c.c).join("")
  const x = (w: string) => chars[s.indexOf(w)]!.x0
  t.ok(x("quoted words") > x("before") + 5, "quote indented")
  t.ok(x("nested quoted") > x("quoted words") + 5, "nested quote indented further")
})

t.test("hard breaks start a new line; soft breaks do not", async (t) => {
  const { pdf } = await render("first line  \nsecond line\\\nthird line\nsame line\n")
  const lines = pageTexts(pdf)
    .join("\n")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
  t.same(lines.slice(0, 3), ["first line", "second line", "third line same line"])
})

t.test("thematic breaks draw a rule between paragraphs", async (t) => {
  const withRule = await render("above\n\n---\n\nbelow\n")
  const without = await render("above\n\nbelow\n")
  t.match(pdfText(withRule.pdf), /above\s*below/)
  t.ok(vectorCount(withRule.pdf) > vectorCount(without.pdf), "a line is drawn")
  const chars = pdfChars(withRule.pdf)
  const s = chars.map((c) => c.c).join("")
  const gap = chars[s.indexOf("below")]!.y - chars[s.indexOf("above")]!.y
  const chars2 = pdfChars(without.pdf)
  const s2 = chars2.map((c) => c.c).join("")
  const gap2 = chars2[s2.indexOf("below")]!.y - chars2[s2.indexOf("above")]!.y
  t.ok(gap > gap2 + 10, "space for the rule", { gap, gap2 })
})

const jpegBase64 = (): string => {
  const pm = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, [0, 0, 4, 4], false)
  pm.clear(128)
  return Buffer.from(pm.asJPEG(80)).toString("base64")
}

t.test("data: URI images embed without warnings", async (t) => {
  const cases: Array<[string, string]> = [
    ["png", `data:image/png;base64,${PNG_1x1}`],
    ["jpeg", `data:image/jpeg;base64,${jpegBase64()}`],
    ["gif", `data:image/gif;base64,${GIF_1x1}`]
  ]
  for (const [kind, uri] of cases) {
    const { pdf, warnings, provenance } = await render(`before\n\n![a ${kind}](${uri})\n\nafter\n`)
    t.same(warnings, [], `${kind}: no warnings`)
    t.equal(imageCounts(pdf)[0], 1, `${kind}: the page has an image`)
    t.match(pdfText(pdf), /before\s*after/, `${kind}: text around it`)
    t.notOk(pdfText(pdf).includes(`a ${kind}`), `${kind}: no alt-text placeholder`)
    t.type(provenance.assetSetSha256, "string", `${kind}: assetSetSha256 set`)
  }
  const svgUri = `data:image/svg+xml;base64,${Buffer.from(SVG_SQUARE).toString("base64")}`
  const svgPlain = `data:image/svg+xml,${encodeURIComponent(SVG_SQUARE)}`
  const none = await render("before\n\nafter\n")
  for (const [label, uri] of [
    ["svg base64", svgUri],
    ["svg percent-encoded", svgPlain]
  ]) {
    const { pdf, warnings } = await render(`before\n\n![an svg](${uri})\n\nafter\n`)
    t.same(warnings, [], `${label}: no warnings`)
    t.notOk(pdfText(pdf).includes("an svg"), `${label}: no alt-text placeholder`)
    // An SVG becomes vector drawing (or an image) on the page.
    const drawn = drawCounts(pdf)
    t.ok(drawn.images > 0 || drawn.paths > drawCounts(none.pdf).paths, `${label}: the drawing is on the page`, { drawn })
  }
})

t.test("remote and invalid images: alt text and a warning with its line", async (t) => {
  const { pdf, warnings } = await render(
    "line one\n\n![remote alt text](https://example.com/pic.png)\n\n![broken alt](data:image/png;base64,AAAA)\n"
  )
  t.same(
    warnings.map((w) => [w.code, w.line]),
    [
      ["image_not_embedded", 3],
      ["image_invalid", 5]
    ]
  )
  const text = pdfText(pdf)
  t.ok(text.includes("remote alt text"), "alt text of the remote image shown")
  t.ok(text.includes("broken alt"), "alt text of the invalid image shown")
  t.same(imageCounts(pdf), [0], "no image embedded")
  t.notOk(linkUris(pdf).includes("https://example.com/pic.png"), "nothing points at the remote image")
})

t.test("a malformed SVG data: URI gives alt text and image_invalid, not a failed render", async (t) => {
  // Sniffed as SVG by its "<svg" start, but not well-formed XML: Typst cannot decode it.
  for (const svg of ["<svg>", '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect']) {
    const md = `text\n\n![malformed svg](data:image/svg+xml,${encodeURIComponent(svg)})\n`
    try {
      const { pdf, warnings } = await render(md)
      t.same(
        warnings.map((w) => [w.code, w.line]),
        [["image_invalid", 3]],
        `${svg}: image_invalid warning`
      )
      t.ok(pdfText(pdf).includes("malformed svg"), `${svg}: alt text shown`)
    } catch (error) {
      t.fail(`${svg}: renders with a warning instead of failing`, { error: String(error) })
    }
  }
})

t.test("HTML outside GitHub's subset is dropped with a warning, its text kept", async (t) => {
  const { pdf, warnings } = await render("keep this\n\n<center>x</center>\n\nand this <font>inline</font> too\n")
  t.same(
    warnings.map((w) => [w.code, w.line]),
    [
      ["html_dropped", 3],
      ["html_dropped", 5]
    ]
  )
  const text = pdfText(pdf)
  t.match(text, /keep this\s*x\s*and this\s+inline\s+too/)
  t.notOk(text.includes("<center>"), "no tag text")
})

t.test("<!-- pagebreak --> puts each paragraph on its own page", async (t) => {
  const { pdf, pageCount, warnings } = await render("first paragraph\n\n<!-- pagebreak -->\n\nsecond paragraph\n")
  t.same(warnings, [], "the pagebreak comment is not 'dropped HTML'")
  t.equal(pageCount, 2)
  const pages = pageTexts(pdf).map(normalize)
  t.equal(pages.length, 2)
  t.ok(pages[0]!.includes("first paragraph") && !pages[0]!.includes("second paragraph"), "page 1", { pages })
  t.ok(pages[1]!.includes("second paragraph") && !pages[1]!.includes("first paragraph"), "page 2", { pages })
  const other = await render("first paragraph\n\n<!-- a comment -->\n\nsecond paragraph\n")
  t.equal(other.pageCount, 1, "another comment does not break the page")
})

t.test("without a front matter title, the first heading's text is the PDF's title", async (t) => {
  const { pdf } = await render("Opening words.\n\n## The *Quarterly* `Report`\n\n# A later heading\n")
  t.equal(metadata(pdf, "info:Title"), "The Quarterly Report")
  const titled = await render("---\ntitle: Front Matter Wins\n---\n\n# A heading\n")
  t.equal(metadata(titled.pdf, "info:Title"), "Front Matter Wins")
})

t.test("front matter title and author: in the PDF and its metadata", async (t) => {
  const { pdf, warnings } = await render("---\ntitle: Quarterly Report\nauthor: Grace Hopper\n---\n\nBody text.\n")
  t.same(warnings, [])
  const text = pdfText(pdf)
  t.ok(text.includes("Quarterly Report"), "title shown")
  t.ok(text.includes("Grace Hopper"), "author shown")
  t.notOk(text.includes("title:"), "front matter source not shown")
  t.equal(metadata(pdf, "info:Title"), "Quarterly Report")
  t.equal(metadata(pdf, "info:Author"), "Grace Hopper")
  const bad = await render("---\n: : bad: [\n---\n\nBody.\n")
  t.same(
    bad.warnings.map((w) => [w.code, w.line]),
    [["front_matter_invalid", 1]]
  )
})

t.test("emphasis and strong use italic and bold faces", async (t) => {
  const { pdf } = await render("plain *italicword* **boldword**\n")
  const chars = pdfChars(pdf)
  t.ok(
    fontsOf(chars, "t").some((f) => /Italic/.test(f)),
    "italic face used"
  )
  t.ok(
    fontsOf(chars, "w").some((f) => /Bold/.test(f)),
    "bold face used"
  )
})
