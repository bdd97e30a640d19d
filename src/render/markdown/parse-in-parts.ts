/**
 * A long document parsed in parts of about PART_CHARS, at lines where the parser's state is known,
 * so that it holds one part's events at a time instead of the whole document's.
 *
 * micromark keeps every event of a document, and with each paragraph the tokenizer that parsed it,
 * until the tree is built: about 3.5 KiB per character of short blocks. 66,666 one-line paragraphs
 * (200,000 characters) peaked past 600 MiB, beyond the converter's 256 MiB heap, for a tree of 36 MiB.
 *
 * A part ends before a line L (the next part's first) in two cases, each checked on the parsed part:
 * - after a blank line, L starting at its first column with neither a space nor a list marker: a
 *   blank line and such a line close every container, so the next part starts where a document
 *   starts. Leaf blocks that a blank line does not end (fenced code, HTML of kinds 1-5) hold it,
 *   so a part whose last block reaches into the blank lines is not cut there. L is not `---`
 *   (front matter at a document's start) nor a byte order mark (dropped there);
 * - with no blank line before, L a list item at its first column: when the part ends in a list of
 *   the same marker, L is that list's next item, and the next part's first list is merged into it.
 * Nor is a part cut that holds a `$$` line that may still open a formula (mayOpenFormula), or
 * that does not hold the front matter whole. Anything else (no such line, a check that fails)
 * leaves the rest of the document in one part.
 *
 * A definition (`[label]: …`, `[^label]: …`) is known to the whole document, and decides whether
 * `[label]` before it is a reference: a document holding `]:` is parsed whole.
 */
import type { Nodes, Root, RootContent } from "mdast"

/** A part's length: its events (about 3.5 KiB a character at worst) stay far under the heap. */
export const PART_CHARS = 8_192

interface Line {
  readonly start: number
  readonly end: number // before the line ending
  readonly next: number // after it
}

const lineAt = (text: string, start: number): Line => {
  let end = start
  while (end < text.length && text.charCodeAt(end) !== 0x0a && text.charCodeAt(end) !== 0x0d) end++
  const next = text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : Math.min(end + 1, text.length)
  return { start, end, next }
}

/** The start of the line that holds `at` (a line ending belongs to the line it ends). */
const lineStart = (text: string, at: number): number => {
  if (text.charCodeAt(at) === 0x0a && text.charCodeAt(at - 1) === 0x0d) at--
  while (at > 0 && text.charCodeAt(at - 1) !== 0x0a && text.charCodeAt(at - 1) !== 0x0d) at--
  return at
}

const isBlankLine = (text: string, line: Line): boolean => /^[ \t]*$/.test(text.slice(line.start, line.end))

/** The list marker L starts with at its first column (`-`, `+`, `*`, `1.`, `1)`) where it marks an item, or null. */
const itemMarker = (text: string, at: number): string | null =>
  /^(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t\r\n]|$)/.exec(text.slice(at, at + 12))?.[0] ?? null

/** A line that, after a blank line, starts a document afresh: text at its first column, not a list item. */
const startsAfresh = (text: string, at: number): boolean => {
  const code = text.charCodeAt(at)
  // A byte order mark is dropped only at a document's start, so it cannot start a part.
  // Nor can `---`, which opens front matter at a document's start.
  return (
    code !== 0x20 &&
    code !== 0x09 &&
    code !== 0x0a &&
    code !== 0x0d &&
    code !== 0xfeff &&
    !text.startsWith("---", at) &&
    itemMarker(text, at) === null
  )
}

type Cut = { readonly at: number; readonly kind: "afresh"; readonly blankFrom: number } | { readonly at: number; readonly kind: "item" }

/** The first line at or after `from` where a part may end, or null. */
const nextCut = (text: string, from: number): Cut | null => {
  let line = lineAt(text, lineStart(text, from))
  let blankFrom = -1
  // A run of blank lines is counted from its first, which may lie before `from`.
  for (let before = line.start; isBlankLine(text, line) && before > 0; ) {
    const previous = lineAt(text, lineStart(text, before - 1))
    if (!isBlankLine(text, previous)) break
    blankFrom = before = previous.start
  }
  while (line.next < text.length) {
    if (isBlankLine(text, line)) {
      if (blankFrom < 0) blankFrom = line.start
    } else blankFrom = -1
    const at = line.next
    if (blankFrom >= 0 && startsAfresh(text, at)) return { at, kind: "afresh", blankFrom }
    if (blankFrom < 0 && line.end > line.start && itemMarker(text, at) !== null) return { at, kind: "item" }
    line = lineAt(text, at)
  }
  return null
}

/** The marker of a list at `at` (`-`, `*`, `+`, or an ordered list's `.` or `)`), or null. */
const markerAt = (text: string, at: number): string | null => {
  const marker = /^[ ]{0,3}(?:([-+*])|[0-9]{1,9}([.)]))/.exec(text.slice(at, at + 16))
  return marker === null ? null : (marker[1] ?? marker[2]!)
}

/** A line that may open a display formula (math-flow.ts): `$$` or more alone, after any container markers. */
const MATH_FENCE = /^\uFEFF?[ \t]*(?:(?:>|[-+*]|[0-9]{1,9}[.)])[ \t]*)*\${2,}[ \t]*$/gm

/**
 * Whether the part (`source`, whose offset 0 is its index `zero`) holds a line that may open a
 * display formula outside any formula or code. A formula is a block only once a line closes it,
 * and until then the parser holds the lines that follow, blank or not, as the formula's
 * (math-flow.ts): when the part ends first, the formula's lines are read as prose, yet in the
 * whole document a later line may close it.
 */
const mayOpenFormula = (source: string, part: Root, zero: number): boolean => {
  const fences = [...source.matchAll(MATH_FENCE)].map((match) => match.index + match[0].indexOf("$") - zero)
  if (fences.length === 0) return false
  const held: Array<readonly [number, number]> = []
  const stack: Array<Nodes> = [part]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "math" || node.type === "code" || node.type === "html")
      held.push([node.position!.start.offset!, node.position!.end.offset!])
    else if ("children" in node) for (const child of node.children) stack.push(child)
  }
  return fences.some((at) => !held.some(([start, end]) => start <= at && at <= end))
}

/**
 * Whether the part ending before `cut` (parsed as `part`, its offset 0 at `origin`) may end there:
 * its last block ends before the blank lines, or it ends in a list whose next item L is (the same
 * marker).
 */
const mayEnd = (text: string, cut: Cut, part: Root, origin: number): boolean => {
  const last = part.children.at(-1)
  if (cut.kind === "afresh") return last === undefined || origin + last.position!.end.offset! < cut.blankFrom
  // A block left open at the part's end (code in the last item) takes in the line ending before
  // L, which in the whole document L closes before.
  const lineEnding = text.charCodeAt(cut.at - 1) === 0x0a && text.charCodeAt(cut.at - 2) === 0x0d ? cut.at - 2 : cut.at - 1
  return (
    last?.type === "list" &&
    origin + last.position!.end.offset! <= lineEnding &&
    markerAt(text, origin + last.position!.start.offset!) === markerAt(text, cut.at)
  )
}

/** Moves every position in `nodes` by a part's start (its offset, and its first line less one). */
const shift = (nodes: ReadonlyArray<Nodes>, offset: number, lines: number): void => {
  const stack = [...nodes]
  while (stack.length > 0) {
    const node = stack.pop()!
    const position = node.position
    if (position !== undefined) {
      for (const point of [position.start, position.end]) {
        point.line += lines
        point.offset = point.offset! + offset
      }
    }
    if ("children" in node) for (const child of node.children) stack.push(child)
  }
}

const countLines = (text: string, from: number, to: number): number => {
  let lines = 0
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(at + 1) !== 0x0a)) lines++
  }
  return lines
}

/** Appends a part's blocks, its first list merged into the list the previous part ended in when a cut split them. */
const append = (root: Root, blocks: Array<RootContent>, splitList: boolean): void => {
  const last = root.children.at(-1)
  const first = blocks[0]
  if (splitList && last?.type === "list" && first?.type === "list") {
    blocks.shift()
    last.children.push(...first.children)
    last.spread = last.spread === true || first.spread === true
    last.position!.end = first.position!.end
  }
  root.children.push(...blocks)
}

/**
 * The tree `parse` gives for `text`, built from the trees of its parts, each shown to `eachPart`
 * as it is parsed (it may throw to stop the parse). A part that cannot end at the line found leaves
 * the rest to one last part, so no text is parsed twice but that part.
 */
export const treeInParts = (
  text: string,
  parse: (markdown: string) => Root,
  eachPart: (blocks: ReadonlyArray<RootContent>) => void = () => {},
  partChars = PART_CHARS
): Root => {
  // The parser drops a byte order mark at the document's start and counts offsets after it.
  const mark = text.charCodeAt(0) === 0xfeff ? 1 : 0
  if (text.length <= partChars || text.includes("]:")) {
    const tree = parse(text)
    eachPart(tree.children)
    return tree
  }
  const root: Root = { type: "root", children: [] }
  // Front matter ends at a later `---` line: the first part must hold it whole.
  const frontMatter = /^\uFEFF?---[ \t]*(?:\r\n|\r|\n)/.test(text)
  let start = 0
  let lines = 0
  let splitList = false
  for (;;) {
    // Where the part's offset 0 lies in the text: after the mark, in the first part.
    const origin = start === 0 ? mark : start
    const cut = nextCut(text, Math.min(start + partChars, text.length))
    const source = cut === null ? text.slice(start) : text.slice(start, cut.at)
    let part = parse(source)
    const ends =
      cut !== null &&
      mayEnd(text, cut, part, origin) &&
      !mayOpenFormula(source, part, origin - start) &&
      (!frontMatter || start > 0 || part.children[0]?.type === "yaml")
    if (cut !== null && !ends) part = parse(text.slice(start))
    eachPart(part.children)
    shift(part.children, origin - mark, lines)
    append(root, part.children, splitList)
    // What else a part's root carries: GFM's task list sets `checked` on the parent of a paragraph
    // that starts with `[x]` after an empty list item, the root too.
    const { type, children, position, ...carried } = part
    Object.assign(root, carried)
    if (cut === null || !ends) {
      const end = part.position!.end
      root.position = {
        start: { line: 1, column: 1, offset: 0 },
        end: { line: end.line + lines, column: end.column, offset: end.offset! + origin - mark }
      }
      return root
    }
    splitList = cut.kind === "item"
    lines += countLines(text, start, cut.at)
    start = cut.at
  }
}
