/**
 * A table wider than MAX_TABLE_COLUMNS fails before it is parsed (markdown/table-width.ts), with a
 * message naming its width and the bound, where its parse would fill a worker's heap; a table as
 * wide as the bound renders, and what only looks like a wide table (in fenced code, without a
 * header row of as many cells) is typeset as what it is.
 */
import t from "tap"
import { MAX_TABLE_COLUMNS, tooWideTable, widestTable } from "../../src/render/markdown/table-width.ts"
import { noWorkerReplacements } from "../../src/render/engine/engine.ts"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { pathologicalInputs } from "../fixtures/pathological.ts"
import { isValidPdf, pdfText } from "../helpers/pdf.ts"

const row = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`
const table = (columns: number) => {
  const names = Array.from({ length: columns }, (_, i) => `h${i}`)
  return `${row(names)}\n${row(names.map(() => "-"))}\n${row(names.map(() => "c"))}\n`
}

t.test("the widest table's columns, as GFM reads its rows", async (t) => {
  const cases: ReadonlyArray<[string, string, number]> = [
    ["a table", "| a | b |\n|---|:-:|\n| c | d |\n", 2],
    ["without outer pipes", "a | b | c\n- | - | -\n", 3],
    ["the widest of two", `${table(3)}\n${table(5)}`, 5],
    ["an escaped pipe is in a cell", "| a \\| b | c |\n|---|---|\n", 2],
    ["a header row of other width is no table", "| a |\n|---|---|\n", 0],
    ["in fenced code", "```\n| a | b |\n|---|---|\n```\n", 0],
    ["in a longer fence that a shorter one does not close", "~~~~\n| a | b |\n|---|---|\n~~~\n| x |\n|---|\n~~~~\n", 0],
    ["after a backtick line that is no fence (backticks in its info)", "``` a`b\n| a | b |\n|---|---|\n", 2],
    ["indented code", "    | a | b |\n    |---|---|\n", 0],
    ["a setext heading", "a\n---\n", 0],
    ["a thematic break", "text\n\n- - -\n", 0],
    ["CRLF line endings", "| a | b |\r\n|---|---|\r\n", 2],
    ["a header ending in an escaped backslash and a pipe", "| a | b \\\\|\n|---|---|\n", 2],
    ["in a fence opened on a list item's line", "- ```\n  | a | b |\n  |---|---|\n  ```\n", 0],
    ["in a fence opened on an ordered item's line", "1. ```text\n   | a | b |\n   |---|---|\n   ```\n", 0],
    ["in an HTML comment", "<!--\n| a | b |\n|---|---|\n-->\n", 0],
    ["in <pre>", "<pre>\n| a | b |\n|---|---|\n</pre>\n", 0],
    ["in a math block", "$$\n| a | b |\n|---|---|\n$$\n", 0],
    ["in front matter", "---\nnotes: |\n  | a | b |\n  |---|---|\n---\nText\n", 0],
    ["after a heading", "# a | b\n|---|---|\n", 0],
    ["after a quote's line", "> a | b\n|---|---|\n", 0],
    ["after a list item", "- a | b\n|---|---|\n", 0],
    ["after a region that closed", "<!-- note -->\n\n| a | b |\n|---|---|\n", 2],
    ["after one-line display math", "$$x$$\n\n| a | b |\n|---|---|\n", 2]
  ]
  for (const [name, markdown, columns] of cases) t.equal(widestTable(markdown), columns, name)
  // The line that made an earlier pattern backtrack once per space (seconds on the server's main
  // thread): read in about a millisecond now, which this test does not time (table-width.ts).
  const nearly = `| a |\n|-${" ".repeat(199_990)}x\n`
  t.equal(widestTable(nearly), 0, "a line of spaces after a dash is no delimiter row")
})

t.test("only a table past the bound is too wide, with CRLF line endings too", async (t) => {
  t.equal(tooWideTable(table(MAX_TABLE_COLUMNS)), undefined)
  t.equal(tooWideTable(table(MAX_TABLE_COLUMNS + 1)), MAX_TABLE_COLUMNS + 1)
  t.equal(tooWideTable(table(MAX_TABLE_COLUMNS + 1).replaceAll("\n", "\r\n")), MAX_TABLE_COLUMNS + 1)
  t.equal(tooWideTable(`${"| a ".repeat(2 * MAX_TABLE_COLUMNS)}\n`), undefined, "pipes without a delimiter row")
})

t.test("a table past the bound fails before it is parsed, naming its width and the bound; one at it renders", async (t) => {
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
  t.teardown(() => renderer.close())
  const input = pathologicalInputs.find((input) => input.name === "table with thousands of columns")!
  const error = await renderer.render({ markdown: input.markdown, templateId: "clean" }).catch((e: unknown) => e)
  t.type(error, RenderingFailed)
  t.equal((error as RenderingFailed).reason, "rejected")
  t.equal((error as RenderingFailed).message, "the document has a table of 33331 columns, and a table may have at most 1000")
  t.same(renderer.workerReplacements(), noWorkerReplacements, "no worker was lost to it")

  const wide = await renderer.render({ markdown: table(MAX_TABLE_COLUMNS), templateId: "clean" })
  t.ok(isValidPdf(wide.pdf), `a table of ${MAX_TABLE_COLUMNS} columns is a PDF`)
  t.match(pdfText(wide.pdf), /h0/, "with its first header")

  const fenced = await renderer.render({ markdown: `\`\`\`\n${table(MAX_TABLE_COLUMNS + 1)}\`\`\`\n`, templateId: "clean" })
  t.match(pdfText(fenced.pdf), /\| h1000 \|/, "a wider one in fenced code is code")
})
