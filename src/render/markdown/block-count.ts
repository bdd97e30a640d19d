/**
 * The bound on a document's blocks: paragraphs, headings, list items, quotes, table cells, code
 * and math blocks, rules, HTML blocks, each counted once at whatever depth.
 *
 * Typst lays out each block on its own, and a block of one word costs what a longer one does: past
 * a few thousand list items a document of short blocks spends seconds in the parser and the
 * compiler whatever its length (docs/performance.md, "Documents of many blocks"). 50,000 one-word
 * list items (200,000 characters) ran 30 s to the render deadline. The parser counts blocks part
 * by part (parse-in-parts.ts) and stops at the bound, so such a document fails in about the time
 * MAX_BLOCKS blocks take to parse, with a message that names the bound. Prose holds far fewer:
 * the 60-page report has 571 blocks in 70,000 characters.
 */
import type { Nodes } from "mdast"

/** The most blocks a document may have. */
export const MAX_BLOCKS = 8_000

const BLOCKS: ReadonlySet<string> = new Set([
  "paragraph",
  "heading",
  "thematicBreak",
  "blockquote",
  "listItem",
  "code",
  "math",
  "html",
  "tableCell",
  "footnoteDefinition"
])

/** The document has more than MAX_BLOCKS blocks: at least `blocks`. */
export class TooManyBlocks extends Error {
  constructor(readonly blocks: number) {
    super(
      `the document has more than ${MAX_BLOCKS} blocks (paragraphs, list items, table cells and the like), and a document may have at most ${MAX_BLOCKS}`
    )
  }
}

/** How many blocks `nodes` hold, at any depth (the text of paragraphs, headings and cells is not walked). */
export const countBlocks = (nodes: ReadonlyArray<Nodes>): number => {
  let count = 0
  const stack = [...nodes]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (BLOCKS.has(node.type)) count++
    if ("children" in node && node.type !== "paragraph" && node.type !== "heading" && node.type !== "tableCell") {
      for (const child of node.children) stack.push(child)
    }
  }
  return count
}
