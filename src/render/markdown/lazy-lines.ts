/**
 * Long runs of lazy continuation lines under a block quote, given their `>` markers before parsing.
 *
 * micromark scans the events of the open paragraph backwards at every lazy line (`writeToChild` in
 * its document initializer, micromark 4.0.3), so n lazy lines cost n²: `> a` and 40,000 lines took 74 s.
 * The same lines with their markers written out cost n. A line that starts with a letter can open
 * no block, so after a paragraph inside k block quotes it is that paragraph's lazy continuation:
 * prefixing it with k markers changes nothing in the tree but columns (only lines are reported).
 * Whether the line before a run is such a paragraph (and not code, HTML or a table inside the quote,
 * nor a quote inside a fenced code block) is left to the parser: the rewritten document is kept only
 * when each run ended up in a paragraph nested in exactly its k block quotes, else the document is
 * parsed as written. Runs shorter than MIN_LAZY_RUN are left alone: they cost little, and so no
 * CommonMark example is touched.
 */
import type { Nodes, Root } from "mdast"

export const MIN_LAZY_RUN = 100

/** Lines `first`..`last` (1-based) were lazy under `depth` block quotes and now carry their markers. */
interface LazyRun {
  readonly first: number
  readonly last: number
  readonly depth: number
}

export interface QuotedLazyLines {
  readonly markdown: string
  readonly runs: ReadonlyArray<LazyRun>
}

const LINE = /[^\r\n]*(?:\r\n?|\n|$)/gy
const LETTER = /^\p{L}/u
/** A line of k block quote markers (each followed by at most one space) and text that starts with a letter. */
const QUOTED_TEXT = /^((?:> ?)+)\p{L}/u

/** The document with every run of at least MIN_LAZY_RUN lazy lines quoted, or undefined when it has none. */
export const quoteLazyLines = (markdown: string): QuotedLazyLines | undefined => {
  const lines = markdown.match(LINE) ?? []
  const runs: Array<LazyRun> = []
  /** The quote depth of the paragraph the current line may continue lazily, 0 when none. */
  let depth = 0
  let first = 0
  const close = (line: number) => {
    if (depth > 0 && line - first >= MIN_LAZY_RUN) runs.push({ first: first + 1, last: line, depth })
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (depth > 0 && LETTER.test(line)) continue
    close(i)
    const quoted = QUOTED_TEXT.exec(line)
    depth = quoted ? quoted[1]!.split(">").length - 1 : 0
    first = i + 1
  }
  close(lines.length)
  if (runs.length === 0) return undefined
  for (const run of runs) {
    const markers = `${">".repeat(run.depth)} `
    for (let i = run.first - 1; i < run.last; i++) lines[i] = markers + lines[i]
  }
  return { markdown: lines.join(""), runs }
}

/** Whether each run is part of a paragraph, with the line before it, nested in exactly its block quotes. */
export const lazyRunsKept = (root: Root, runs: ReadonlyArray<LazyRun>): boolean => {
  const kept = new Set<LazyRun>()
  const stack: Array<{ node: Nodes; depth: number }> = [{ node: root, depth: 0 }]
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!
    if (node.type === "paragraph" && depth > 0 && node.position) {
      const { start, end } = node.position
      for (const run of runs) {
        if (run.depth === depth && start.line < run.first && end.line >= run.last) kept.add(run)
      }
    }
    if (node.type === "root" || node.type === "blockquote") {
      for (const child of node.children) stack.push({ node: child, depth: node.type === "blockquote" ? depth + 1 : depth })
    }
  }
  return kept.size === runs.length
}
