/**
 * Long runs of lazy lines under a block quote are quoted before parsing (lazy-lines.ts): the tree is
 * the one of the document as written, whatever the run follows, and no CommonMark example is touched.
 */
import spec from "commonmark-spec"
import t from "tap"
import type { Root } from "mdast"
import { MIN_LAZY_RUN, quoteLazyLines } from "../../src/render/markdown/lazy-lines.ts"
import { parseMarkdown, parseTree } from "../../src/render/markdown/parse.ts"

/** The tree without positions: quoting moves columns, never lines or content. */
const shape = (root: Root): string => JSON.stringify(root, (key, value) => (key === "position" ? undefined : value))

const lazy = (count: number) => "lazy words\n".repeat(count)

t.test("no CommonMark example is rewritten", async (t) => {
  const rewritten = (spec.tests as ReadonlyArray<{ markdown: string; number: number }>).filter((example) =>
    quoteLazyLines(example.markdown)
  )
  t.same(
    rewritten.map((example) => example.number),
    []
  )
})

const documents: ReadonlyArray<[string, string]> = [
  ["lazy lines under a quote", `> a\n${lazy(MIN_LAZY_RUN)}`],
  ["under two quotes, then more of the quote", `> > a\n${lazy(MIN_LAZY_RUN + 5)}> > b\n\nafter\n`],
  ["with CRLF line endings", `> a\r\n${"lazy\r\n".repeat(MIN_LAZY_RUN)}`],
  ["two runs", `> a\n${lazy(MIN_LAZY_RUN)}\n>> b\n${lazy(MIN_LAZY_RUN)}- item\n`],
  ["after a fenced code block inside the quote", `> \`\`\`\n> a\n${lazy(MIN_LAZY_RUN)}`],
  ["after a quote inside a fenced code block", `\`\`\`\n> a\n${lazy(MIN_LAZY_RUN)}\`\`\`\n`],
  ["after an HTML block inside the quote", `> <div>\n> a\n${lazy(MIN_LAZY_RUN)}`],
  ["after a table inside the quote", `> a | b\n> - | -\n> c | d\n${lazy(MIN_LAZY_RUN)}`],
  ["followed by a setext underline", `> a\n${lazy(MIN_LAZY_RUN)}===\n`]
]

for (const [name, markdown] of documents) {
  t.test(`${name}: the tree of the document as written`, async (t) => {
    t.ok(quoteLazyLines(markdown), "a run is quoted")
    t.equal(shape(parseMarkdown(markdown).root), shape(parseTree(markdown)))
  })
}

t.test("20,000 lazy lines parse in linear time", async (t) => {
  const markdown = `> a\n${lazy(20_000)}`
  const start = process.cpuUsage()
  const { root } = parseMarkdown(markdown)
  const cpu = process.cpuUsage(start)
  t.equal(root.children.length, 1, "one block quote")
  // As written they take about 20 s (40,000 took 74 s); quoted, under a second of CPU (the bound leaves room for a loaded machine).
  t.ok((cpu.user + cpu.system) / 1e6 < 10, `${Math.round((cpu.user + cpu.system) / 1000)} ms of CPU`)
})
