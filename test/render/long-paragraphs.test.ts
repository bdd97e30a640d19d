/**
 * A paragraph past LONG_PARAGRAPH characters is typeset in parts (long-paragraphs.ts) that a
 * reader cannot tell from one paragraph: every word once and in order, the lines evenly spaced
 * across the seams, only the paragraph's first line indented, and the paragraph spaced from its
 * neighbours as any paragraph is. And the cut itself: nothing lost, no part far past its size, no
 * link or code cut, no mark parted from its letter. (The pathological corpus's long paragraphs
 * within the render deadline: test/render/hostile-memory.test.ts.)
 */
import type { Paragraph, PhrasingContent } from "mdast"
import { toString as plainText } from "mdast-util-to-string"
import t from "tap"
import { LONG_PARAGRAPH, PART_CHARACTERS, paragraphParts } from "../../src/render/markdown/long-paragraphs.ts"
import { parseTree } from "../../src/render/markdown/parse.ts"
import { toTypst } from "../../src/render/markdown/to-typst.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { pdfChars } from "../helpers/pdf.ts"
import { testEngine } from "../helpers/render.ts"

const paragraphOf = (markdown: string): Paragraph => {
  const node = parseTree(markdown).children[0]
  if (node?.type !== "paragraph") throw new Error("not a paragraph")
  return node
}
const textOf = (part: ReadonlyArray<PhrasingContent>): string => part.map((node) => plainText(node)).join("")

/** 2,600 numbered words: 22,289 characters, six parts. */
const WORDS = Array.from({ length: 2_600 }, (_, i) => `word${i}`)

t.test("the cut", async (t) => {
  t.test("a paragraph up to the bound is one part, the same nodes", async (t) => {
    const paragraph = paragraphOf(`${"a".repeat(LONG_PARAGRAPH - 2)} b`)
    t.same(paragraphParts(paragraph.children), [paragraph.children])
  })

  t.test("words: cut at white space, nothing lost, no part far past its size", async (t) => {
    const parts = paragraphParts(paragraphOf(WORDS.join(" ")).children)
    t.ok(parts.length > 1, `${parts.length} parts`)
    t.same(parts.map(textOf).join(" ").split(" "), WORDS, "the parts joined by the spaces they were cut at are the words")
    // A part ends at the first space past its size; only the last may hold less.
    for (const part of parts.slice(0, -1)) {
      const length = textOf(part).length
      t.ok(length >= PART_CHARACTERS && length <= PART_CHARACTERS + 10, `${length} characters`)
    }
  })

  t.test("a run without white space: cut between letters, never between a letter and its marks", async (t) => {
    // e and a combining acute accent, 12,000 times: every cut must fall before an e.
    const run = "e\u0301".repeat(12_000)
    const parts = paragraphParts(paragraphOf(run).children).map(textOf)
    t.ok(parts.length >= 5, `${parts.length} parts`)
    t.equal(parts.join(""), run, "nothing lost or added")
    for (const part of parts) t.match(part, /^e\u0301/u)
  })

  t.test("links and code stay whole, each in one part", async (t) => {
    const links = Array.from({ length: 600 }, (_, i) => `[link ${i}](https://example.com/${i}) \`code ${i}\``).join(" and ")
    const parts = paragraphParts(paragraphOf(links).children)
    t.ok(parts.length >= 2, `${parts.length} parts`)
    const kept = parts.flat().filter((node) => node.type === "link" || node.type === "inlineCode")
    t.equal(kept.length, 1_200)
    t.same(
      kept.filter((node) => node.type === "link").map((node) => plainText(node)),
      Array.from({ length: 600 }, (_, i) => `link ${i}`)
    )
  })

  t.test("no part starts with a hard line break, which would draw an empty line", async (t) => {
    const lines = Array.from({ length: 800 }, (_, i) => `step ${i}: \`run ${i}\``).join("\\\n")
    const parts = paragraphParts(paragraphOf(lines).children)
    t.ok(parts.length > 1, `${parts.length} parts`)
    for (const part of parts.slice(1)) t.not(part[0]?.type, "break", "a part starts with text")
  })

  t.test("a no-break space is kept, never cut at", async (t) => {
    const parts = paragraphParts(paragraphOf(Array.from({ length: 2_000 }, (_, i) => `word\u00a0${i}`).join(" ")).children).map(textOf)
    t.ok(parts.length > 1, `${parts.length} parts`)
    t.equal(parts.join(" ").split("\u00a0").length, 2_001, "every no-break space still there")
  })

  t.test("Japanese without spaces: cut after a sentence's end", async (t) => {
    const sentences = "これは文です。".repeat(2_000)
    const parts = paragraphParts(paragraphOf(sentences).children).map(textOf)
    t.ok(parts.length > 1, `${parts.length} parts`)
    t.equal(parts.join(""), sentences, "nothing lost or added")
    for (const part of parts.slice(0, -1)) t.match(part, /。$/u)
  })

  t.test("a paragraph with inline HTML is not cut (an element may open in one node and close in another)", async (t) => {
    const paragraph = paragraphOf(`<span>${WORDS.join(" ")}</span>`)
    t.equal(paragraphParts(paragraph.children).length, 1)
  })
})

t.test("typeset: the parts read as one paragraph", async (t) => {
  const renderer = await Renderer.create({ engine: testEngine, workers: 1, warmUp: false })
  t.teardown(() => renderer.close())
  const filler = (word: string) => `${word} `.repeat(90).trim()
  const markdown = `${filler("before")}\n\n${filler("second")}\n\n${WORDS.join(" ")}\n\n${filler("after")}\n`

  t.equal(
    toTypst(parseTree(WORDS.join(" "))).markup.split("\n\n").length,
    paragraphParts(paragraphOf(WORDS.join(" ")).children).length,
    "typeset as its parts"
  )

  // book-literary justifies, spaces paragraphs by their leading and indents each paragraph's
  // first line but the first's; clean spaces paragraphs apart and indents none.
  for (const templateId of ["book-literary", "clean"] as const) {
    t.test(templateId, async (t) => {
      const { pdf } = await renderer.render({ markdown, templateId })
      const lines = linesOf(pdf)
      const words = lines.flatMap((line) => line.text.split(" ")).filter((word) => /^word\d+$/.test(word))
      t.same(words, WORDS, "every word once, in order, none cut or joined")

      const first = (prefix: string) => lines.findIndex((line) => line.text.startsWith(prefix))
      // The paragraph's lines, without the running heads and page numbers between its pages.
      const long = lines.filter((line) => /^word\d+/.test(line.text))
      const pitches = new Set<string>()
      for (const [i, line] of long.entries()) {
        const next = long[i + 1]
        if (next && next.page === line.page) pitches.add((next.y - line.y).toFixed(1))
      }
      t.equal(pitches.size, 1, `one line pitch in the paragraph, across its seams: ${[...pitches].join(", ")}`)

      const margins = new Set(long.slice(1).map((line) => `${line.page % 2}:${line.x.toFixed(1)}`))
      const left = lines.find((line) => line.page === long[0]!.page && line.text.startsWith("second"))!
      t.ok(margins.size <= 2, `its lines after the first start at the page's margin: ${[...margins].join(", ")}`)
      t.equal(long[0]!.x.toFixed(1), left.x.toFixed(1), "its first line indented as the paragraph before it")

      const gap = (from: number) => lines[from]!.y - lines[from - 1]!.y
      const normal = gap(first("second"))
      t.equal(gap(first("word0 ")).toFixed(1), normal.toFixed(1), "spaced from the paragraph before as paragraphs are")
      t.equal(gap(first("after")).toFixed(1), normal.toFixed(1), "and from the one after")
    })
  }
})

t.test("typeset: spaced from a code block as a paragraph is", async (t) => {
  const renderer = await Renderer.create({ engine: testEngine, workers: 1, warmUp: false })
  t.teardown(() => renderer.close())
  const between = (paragraph: string) => `\`\`\`\nbefore\n\`\`\`\n\n${paragraph}\n\n\`\`\`\nafter\n\`\`\`\n`
  const gaps = async (paragraph: string, last: string) => {
    const lines = linesOf((await renderer.render({ markdown: between(paragraph), templateId: "clean" })).pdf)
    const at = (prefix: string) => lines.findIndex((line) => line.text.startsWith(prefix))
    const first = at("word0")
    const end = lines.findIndex((line) => line.text.includes(last))
    return { above: lines[first]!.y - lines[first - 1]!.y, below: lines[end + 1]!.y - lines[end]!.y }
  }
  const short = await gaps("word0 word1 word2", "word2")
  const long = await gaps(WORDS.slice(0, 1_200).join(" "), "word1199")
  t.equal(long.above.toFixed(1), short.above.toFixed(1), "from the code block above")
  t.equal(long.below.toFixed(1), short.below.toFixed(1), "to the code block below")
})

interface Line {
  readonly page: number
  readonly y: number
  readonly x: number
  readonly text: string
}

/** The PDF's lines of text, top to bottom, page by page. */
const linesOf = (pdf: Uint8Array): Array<Line> => {
  const lines = new Map<string, { page: number; y: number; x: number; text: string }>()
  for (const char of pdfChars(pdf)) {
    const key = `${char.page}:${char.y.toFixed(1)}`
    const line = lines.get(key) ?? { page: char.page, y: char.y, x: char.x0, text: "" }
    line.text += char.c
    line.x = Math.min(line.x, char.x0)
    lines.set(key, line)
  }
  return [...lines.values()].sort((a, b) => a.page - b.page || a.y - b.y).map((line) => ({ ...line, text: line.text.trim() }))
}
