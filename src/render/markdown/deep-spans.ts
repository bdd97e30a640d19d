/**
 * Emphasis, strong and strikethrough spans nested past MAX_SPAN_DEPTH are unwrapped into their
 * content as the tree is built, before any other transform walks it. Runs of `*` or `_` on both
 * sides of a word nest a span per pair of markers: 200,000 characters nest 50,000 of them, and the
 * walks GFM's transforms make (unist-util-visit-parents copies a node's ancestors for each of its
 * children) cost the square of that depth; 10,000 markers took 2.3 s to parse, 200,000 ran out of
 * the worker's heap. Past MAX_NESTING levels the converter shows spans as their text all the
 * same (to-typst.ts), so unwrapping deeper ones changes nothing a reader sees.
 */
import type { Nodes, Parents, PhrasingContent, Root } from "mdast"
import type { Extension } from "mdast-util-from-markdown"
import { MAX_NESTING } from "./to-typst.ts"

/** Well past MAX_NESTING, where the converter already shows spans as their text. */
export const MAX_SPAN_DEPTH = 2 * MAX_NESTING

const SPANS: ReadonlySet<string> = new Set(["emphasis", "strong", "delete"])

/** `nodes` with every span among them replaced by its content, to any depth. */
const unwrapped = (nodes: ReadonlyArray<Nodes>): Array<Nodes> => {
  const out: Array<Nodes> = []
  const pending = [...nodes].reverse()
  while (pending.length > 0) {
    const node = pending.pop()!
    if (SPANS.has(node.type)) {
      const { children } = node as Parents
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!)
    } else {
      out.push(node)
    }
  }
  return out
}

/** Unwraps the spans nested past MAX_SPAN_DEPTH, walking the tree once with an explicit stack. */
const unwrapDeepSpans = (root: Root): undefined => {
  const stack: Array<{ readonly node: Parents; readonly spans: number }> = [{ node: root, spans: 0 }]
  while (stack.length > 0) {
    const { node, spans } = stack.pop()!
    if (spans >= MAX_SPAN_DEPTH) node.children = unwrapped(node.children) as Array<PhrasingContent>
    for (const child of node.children) {
      if ("children" in child) stack.push({ node: child, spans: spans + (SPANS.has(child.type) ? 1 : 0) })
    }
  }
  return undefined
}

/** The mdast extension that unwraps deep spans; listed first, so its transform runs before GFM's. */
export const deepSpans = (): Extension => ({ transforms: [unwrapDeepSpans] })
