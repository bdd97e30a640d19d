/**
 * A long document parsed in parts (markdown/parse-in-parts.ts) gives the tree of its whole parse,
 * positions included: over every CommonMark example, real documents, and arbitrary documents of the constructs
 * that outlive a blank line or span one (fences, math, HTML, lists, quotes, front matter), each cut
 * wherever a part may end. Documents of many list items or paragraphs are cut into many parts; a
 * document of more than MAX_BLOCKS blocks is refused with a message naming the bound,
 * and one of MAX_BLOCKS renders.
 */
import { readdirSync, readFileSync } from "node:fs"
import { isDeepStrictEqual } from "node:util"
import spec from "commonmark-spec"
import fc from "fast-check"
import type { Root } from "mdast"
import t from "tap"
import { countBlocks, MAX_BLOCKS } from "../../src/render/markdown/block-count.ts"
import { PART_CHARS, treeInParts } from "../../src/render/markdown/parse-in-parts.ts"
import { parseTreeWhole } from "../../src/render/markdown/parse.ts"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { pathologicalInputs } from "../fixtures/pathological.ts"
import { isValidPdf, pdfText } from "../helpers/pdf.ts"

/** The tree in parts as short as the cuts allow: a part ends at every line where one may. */
const inSmallestParts = (markdown: string): Root => treeInParts(markdown, parseTreeWhole, undefined, 1)

/** How many parts `markdown` is parsed in, parts of `partChars`. */
const partsOf = (markdown: string, partChars = PART_CHARS): number => {
  let parts = 0
  treeInParts(markdown, parseTreeWhole, () => parts++, partChars)
  return parts
}

t.test("every CommonMark example parses in parts to its whole tree", async (t) => {
  const differ = (spec.tests as ReadonlyArray<{ markdown: string; number: number }>).filter(
    (example) => !isDeepStrictEqual(inSmallestParts(example.markdown), parseTreeWhole(example.markdown))
  )
  t.same(
    differ.map((example) => example.number),
    []
  )
})

t.test("real documents parse in parts to their whole tree: READMEs, the benchmarks' report, this repository's docs", async (t) => {
  const root = new URL("../../", import.meta.url)
  const files = [
    ...readdirSync(new URL("test/fixtures/readmes/", root)).map((name) => `test/fixtures/readmes/${name}`),
    "bench/fixtures/report.md",
    ...readdirSync(new URL("docs/", root))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`)
  ]
  for (const file of files) {
    const markdown = readFileSync(new URL(file, root), "utf8")
    t.ok(isDeepStrictEqual(inSmallestParts(markdown), parseTreeWhole(markdown)), `${file}: ${partsOf(markdown, 1)} parts`)
  }
})

t.test("cut where a part may end, and only there", async (t) => {
  const cases: ReadonlyArray<[string, string, number]> = [
    ["paragraphs", "a\n\nb\n\nc\n", 3],
    ["list items, merged into one list", "- a\n- b\n- c\n", 3],
    ["ordered items keep their list's start", "3. a\n4. b\n", 2],
    ["no cut in fenced code", "```\na\n\nb\n\nc\n```\n", 1],
    ["no cut in a formula", "$$\na\n\nb\n$$\n", 1],
    ["no cut after a formula's opening line left open", "$$\na\n\nb\n\nc\n", 1],
    ["no cut in an HTML comment", "<!--\na\n\nb\n-->\n", 1],
    ["no cut in front matter", "---\na: 1\n\nb: 2\n---\n", 1],
    ["a loose list", "- a\n\n- b\n", 1],
    ["another marker starts another list", "- a\n* b\n", 1],
    ["a definition is known to the whole document", "[x]\n\n[x]: /u\n", 1],
    ["CRLF", "a\r\n\r\nb\r\n", 2]
  ]
  for (const [what, markdown, parts] of cases) {
    t.equal(partsOf(markdown, 1), parts, `${what}: ${parts} part(s)`)
    t.same(inSmallestParts(markdown), parseTreeWhole(markdown), `${what}: the whole tree`)
  }
  const list = inSmallestParts("- a\n- b\n- c\n").children
  t.same(
    list.map((node) => node.type),
    ["list"],
    "one list"
  )
})

/** Lines of the constructs whose state a blank line or a list item line may carry, and plain text. */
const line = fc.constantFrom(
  ...["", "", "", "  ", "a", "b c", "*a*", "**b", "`c", "a  ", "a\\", "\tt", "# h", "## h2", "===", "---", "***", "* * *", "- - -"],
  ...["- a", "- b", "* a", "+ a", "-", "- ", "1. a", "2. b", "1) a", "3) c", "0. z", "10. y", "1.", "  - nested", "  cont", "    code"],
  ...["> q", ">", "> - x", "- [ ] task", "- [x] done", "| a | b |", "| - | - |", "|x|y|", "<http://a.b>", "www.a.com", "~~s~~"],
  ...["```", "~~~", "````", "``` js", "  ```", "- ```", "$$", "$$$", "$$ x", "> $$", "$x$", "\\["],
  ...["[x]", "[x]: /u", "[^1]", "[^1]: note"],
  ...["<!-- c", "-->", "<pre>", "</pre>", "<div>", "<?x", "?>", "<![CDATA[", "]]>", "<!X", "\uFEFFa"]
)
const ending = fc.constantFrom("\n", "\n", "\n", "\r\n", "\r")
const opening = fc.constantFrom("", "", "\uFEFF", "---\ntitle: x\n---\n", "---\n", "---\na: 1\n\nb: 2\n---\n")
const documents = fc
  .tuple(opening, fc.array(fc.tuple(line, ending), { maxLength: 40 }))
  .map(([start, lines]) => start + lines.map(([text, end]) => text + end).join(""))

t.test("arbitrary documents parse in parts to their whole tree, cut anywhere a part may end", async (t) => {
  fc.assert(
    fc.property(documents, fc.integer({ min: 1, max: 24 }), (markdown, partChars) =>
      isDeepStrictEqual(treeInParts(markdown, parseTreeWhole, undefined, partChars), parseTreeWhole(markdown))
    ),
    { numRuns: 3_000 }
  )
  t.pass("3,000 documents")
})

t.test("documents of many short blocks are parsed in many parts, a list's items in one list", async (t) => {
  const items = "- a\n".repeat(10_000)
  const itemParts = partsOf(items)
  t.ok(itemParts >= items.length / PART_CHARS, `10,000 list items: ${itemParts} parts`)
  const list = treeInParts(items, parseTreeWhole).children
  t.equal(list.length, 1, "one list")
  t.equal(countBlocks(list), 20_000, "of 10,000 items, each with its paragraph")
  const paragraphs = "a\n\n".repeat(13_000)
  const paragraphParts = partsOf(paragraphs)
  t.ok(paragraphParts >= paragraphs.length / PART_CHARS, `13,000 paragraphs: ${paragraphParts} parts`)
})

t.test("a document of more than MAX_BLOCKS blocks is refused, naming the bound; one of MAX_BLOCKS renders", async (t) => {
  const renderer = await Renderer.create({ workers: 1 })
  t.teardown(() => renderer.close())
  const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => `p${i}`).join("\n\n")
  const atBound = await renderer.render({ markdown: `${paragraphs(MAX_BLOCKS - 1)}\n\nthe last paragraph\n`, templateId: "clean" })
  t.ok(isValidPdf(atBound.pdf), `${MAX_BLOCKS} paragraphs: a PDF of ${atBound.pageCount} pages`)
  t.match(pdfText(atBound.pdf), /the last paragraph/)
  for (const [what, markdown] of [
    [`${MAX_BLOCKS + 1} paragraphs`, paragraphs(MAX_BLOCKS + 1)],
    ["the corpus's list items", pathologicalInputs.find((input) => input.name === "many list items")!.markdown]
  ] as const) {
    const error = await renderer.render({ markdown, templateId: "clean" }).catch((error: unknown) => error)
    t.type(error, RenderingFailed, what)
    t.equal((error as RenderingFailed).reason, "rejected")
    t.match(
      (error as RenderingFailed).message,
      `a document may have at most ${MAX_BLOCKS}`,
      `${what}: ${(error as RenderingFailed).message}`
    )
  }
  const next = await renderer.render({ markdown: "after the refusal\n", templateId: "clean" })
  t.match(pdfText(next.pdf), /after the refusal/, "the worker renders the next document")
})
