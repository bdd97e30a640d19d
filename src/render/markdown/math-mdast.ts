/**
 * mdast nodes for the tokens of math-syntax.ts, built by mdast-util-math and then shaped for
 * the converter:
 *
 * - `$…$` and `` $`…`$ ``: `{ type: "inlineMath", value }`.
 * - `$$…$$` inside a paragraph: `{ type: "inlineMath", value, data: { display: true } }`, the
 *   formula trimmed. A display formula cannot be a block inside a paragraph in mdast, and splitting
 *   the paragraph would make two of the one the writer wrote (a block equation in Typst breaks the
 *   line where it stands anyway).
 * - A `$$` block, and a paragraph that is one `$$…$$` and nothing else (`$$ x = 1 $$` on its own
 *   lines, `promoteDisplayParagraphs`): `{ type: "math", value, meta: null }`.
 *
 * mdast-util-math's hast hints (`data.hName`…) are dropped: nothing here turns mdast into HTML.
 */
import type { Nodes, Parents, Root } from "mdast"
import type { CompileContext, Extension, Handle } from "mdast-util-from-markdown"
import { type InlineMath, type Math as MathNode, mathFromMarkdown } from "mdast-util-math"
import type { Token } from "micromark-util-types"

declare module "mdast-util-math" {
  interface InlineMathData {
    /** Written `$$…$$` within a paragraph: to be set as a display (block) equation. */
    display?: boolean
  }
}

const base = mathFromMarkdown()
const baseExit = base.exit as Record<"mathText" | "mathFlow", Handle>

/** The node the handler just closed: the last child of the node now on top of the stack. */
const lastClosed = (context: CompileContext): Nodes | undefined => {
  const parent = context.stack[context.stack.length - 1] as Parents | undefined
  return parent?.children[parent.children.length - 1]
}

function exitMathText(this: CompileContext, token: Token): undefined {
  const display = this.sliceSerialize(token).startsWith("$$")
  baseExit.mathText.call(this, token)
  const node = lastClosed(this) as InlineMath
  // In a table cell, `\|` is how a pipe is written without ending the cell: like GFM does for code
  // spans (mdast-util-gfm-table), the formula gets the pipe (so ‖ in a table is written `\Vert`).
  if (this.data.inTable) node.value = node.value.replace(/\\([\\|])/g, (whole, char) => (char === "|" ? char : whole))
  if (display) {
    node.value = node.value.trim()
    node.data = { display: true }
  } else {
    delete node.data
  }
}

function exitMathFlow(this: CompileContext, token: Token): undefined {
  baseExit.mathFlow.call(this, token)
  delete (lastClosed(this) as MathNode).data
}

/**
 * A paragraph of one display formula alone becomes a display block. A pass over the finished tree
 * rather than a `paragraph` exit handler: mdast-util-from-markdown keeps one handler per token, and
 * one of ours would replace GFM's, which trims the space after a task list item's `[x]`.
 */
export const promoteDisplayParagraphs = (root: Root): void => {
  const stack: Array<Nodes> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!("children" in node)) continue
    const children = node.children as Array<Nodes>
    for (const [i, child] of children.entries()) {
      const only = child.type === "paragraph" && child.children.length === 1 ? child.children[0] : undefined
      if (only?.type === "inlineMath" && only.data?.display === true) {
        children[i] = { type: "math", meta: null, value: only.value, position: child.position } satisfies MathNode
      } else stack.push(child)
    }
  }
}

export const mathMdast = (): Extension => ({
  ...base,
  exit: { ...base.exit, mathText: exitMathText, mathFlow: exitMathFlow }
})
