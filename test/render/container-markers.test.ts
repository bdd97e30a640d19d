/**
 * The cut of container markers before parsing (container-markers.ts): it leaves every CommonMark
 * example as written, and a line of 10,000 `>` keeps its text at the deepest level shown.
 */
import spec from "commonmark-spec"
import t from "tap"
import { cutContainerMarkers, MAX_LINE_CONTAINER_MARKERS } from "../../src/render/markdown/container-markers.ts"
import { parseMarkdown } from "../../src/render/markdown/parse.ts"
import { MAX_NESTING, toTypst } from "../../src/render/markdown/to-typst.ts"

t.test("every CommonMark example is left as written", async (t) => {
  const changed = (spec.tests as ReadonlyArray<{ markdown: string; number: number }>).filter(
    (example) => cutContainerMarkers(example.markdown) !== example.markdown
  )
  t.same(
    changed.map((example) => example.number),
    []
  )
})

t.test("markers past the cut are dropped, the rest of the line and the other lines kept", async (t) => {
  const keep = `${"> ".repeat(MAX_LINE_CONTAINER_MARKERS)}kept\n`
  t.equal(cutContainerMarkers(keep), keep, "a line with as many markers as the cut")
  t.equal(cutContainerMarkers(`a\r\n${">".repeat(10_000)} deep\r\nb`), `a\r\n${">".repeat(MAX_LINE_CONTAINER_MARKERS)} deep\r\nb`)
  t.equal(cutContainerMarkers(`${"- 1. > ".repeat(50)}x\n`), `${"- 1. > ".repeat(33)}-  x\n`, "list markers count as markers")
  t.equal(
    cutContainerMarkers(`x[^a]\n\n${"[^a]: ".repeat(MAX_LINE_CONTAINER_MARKERS + 400)}deep\n`),
    `x[^a]\n\n${"[^a]: ".repeat(MAX_LINE_CONTAINER_MARKERS)} deep\n`,
    "footnote definitions count as markers"
  )
  t.equal(
    cutContainerMarkers(`${"[^a] ".repeat(500)}\n${"[^a b]: ".repeat(500)}\n${"[^]: ".repeat(500)}\n`),
    `${"[^a] ".repeat(500)}\n${"[^a b]: ".repeat(500)}\n${"[^]: ".repeat(500)}\n`,
    "footnote references and labels GFM refuses are no markers"
  )
  t.equal(
    cutContainerMarkers(`${"-".repeat(500)}\n${"*a ".repeat(500)}\n`),
    `${"-".repeat(500)}\n${"*a ".repeat(500)}\n`,
    "runs that are no markers"
  )
})

t.test("a line nested 10,000 deep converts as the converter shows it past its limit", async (t) => {
  const deep = toTypst(parseMarkdown(`${">".repeat(10_000)} deepest text\n`).root)
  const atLimit = toTypst(parseMarkdown(`${">".repeat(MAX_NESTING + 1)} deepest text\n`).root)
  t.equal(deep.markup, atLimit.markup, "the same markup as one level past the limit")
  t.same(
    deep.warnings.map((w) => w.code),
    ["nesting_flattened"]
  )
})
