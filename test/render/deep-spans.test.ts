/**
 * Spans nested past MAX_SPAN_DEPTH are unwrapped as the tree is built (deep-spans.ts): the
 * converter gives the same Typst markup and warnings as for the tree built without unwrapping,
 * for runs of every span marker with links, code, math and line breaks inside; and the tree is no
 * deeper than the limit. (That 200,000 characters of such runs render: test/render/hostile-memory.test.ts,
 * through the render workers, which run the build's linear attention resolver; this file parses
 * with micromark as published.)
 */
import type { Nodes, Root } from "mdast"
import t from "tap"
import { MAX_SPAN_DEPTH } from "../../src/render/markdown/deep-spans.ts"
import { parseTree, parseTreeWhole } from "../../src/render/markdown/parse.ts"
import { toTypst } from "../../src/render/markdown/to-typst.ts"

/** How many emphasis, strong and strikethrough spans the deepest node sits in. */
const spanDepth = (root: Root): number => {
  let deepest = 0
  const stack: Array<{ node: Nodes; spans: number }> = [{ node: root, spans: 0 }]
  while (stack.length > 0) {
    const { node, spans } = stack.pop()!
    const inside = spans + (["emphasis", "strong", "delete"].includes(node.type) ? 1 : 0)
    deepest = Math.max(deepest, inside)
    if ("children" in node) for (const child of node.children) stack.push({ node: child, spans: inside })
  }
  return deepest
}

const around = (open: string, inner: string, close: string, times: number) => `${open.repeat(times)}${inner}${close.repeat(times)}`

const DOCUMENTS: ReadonlyArray<readonly [string, string]> = [
  ["300 levels of *", `${around("*", "deepest text", "*", 300)}\n`],
  ["301 levels of _ (one emphasis among the strong)", `${around("_", "deepest text", "_", 301)}\n`],
  [
    "alternating * and ~~, with a link, code and math inside",
    `${around("*a ~~b ", "[link *x*](https://example.com) `code` $x^2$", " b~~ a*", 80)}\n`
  ],
  ["a line break and an autolink literal inside", `${around("**", "first  \nsecond www.example.com", "**", 120)}\n`],
  ["deep spans in a list item and a heading", `- ${around("*", "item", "*", 200)}\n\n# ${around("_", "title", "_", 200)}\n`],
  ["spans just at the limit", `${around("**", "at the limit", "**", MAX_SPAN_DEPTH)}\n`],
  ["spans one past the limit", `${around("**", "one past", "**", MAX_SPAN_DEPTH + 1)}\n`]
]

for (const [name, markdown] of DOCUMENTS) {
  t.test(`${name}: the same Typst and warnings as the whole tree`, async (t) => {
    const cut = parseTree(markdown)
    t.same(toTypst(cut), toTypst(parseTreeWhole(markdown)))
    t.ok(spanDepth(cut) <= MAX_SPAN_DEPTH, `spans nested ${spanDepth(cut)} deep, at most ${MAX_SPAN_DEPTH}`)
  })
}
