/**
 * A linear pass over the Markdown, before the parser, that refuses a document whose shape would
 * cost micromark or the worker's heap far more than its length (issue 37). micromark is
 * quadratic on a few shapes that no person writes but anyone can send, and the contract accepts
 * any 200,000 characters: runs of emphasis delimiters (its attention resolver copies the events
 * between an opener and its closer at every match, and scans back over every earlier delimiter
 * for each closer), brackets and backticks by the ten thousand in one paragraph, lazy lines under
 * a block quote (`writeToChild` scans the paragraph's events back to its start at each lazy line),
 * containers nested hundreds deep on every line (each line re-checks each open container), and
 * documents of tens of thousands of blocks, whose events and tree outgrow the worker's heap.
 *
 * Each bound is counted on the text, not parsed, so it over-counts (a paragraph is approximated by
 * the lines between blank lines and list items; code blocks count like text) and lies far past
 * what real documents hold: below every bound the document is parsed as CommonMark says, exactly;
 * past one it fails at once as `rendering_failed`, with a message that names the bound.
 */
import { MAX_LINE_CONTAINER_MARKERS, markerEnd } from "./container-markers.ts"

/** The start of every message of this pass: renderer.ts shows such a message to the client as it is. */
export const DOCUMENT_LIMIT_PREFIX = "the document exceeds a limit of the renderer: "

export class DocumentLimitExceeded extends Error {
  override readonly name = "DocumentLimitExceeded"
  constructor(limit: string) {
    super(`${DOCUMENT_LIMIT_PREFIX}${limit}`)
  }
}

/**
 * Inline constructs started in one paragraph: `*`, `_`, `` ` ``, `[`, `]`, `!`, `<`, `~`, a
 * backslash escape, an entity's `&`, and the starts of GFM autolink literals (`www.`, `://`, `@`).
 */
export const MAX_INLINE_MARKERS = 10_000
/**
 * The same in the whole document: each becomes tokens, events and nodes, about 2 KiB of the
 * worker's heap while it is parsed (100,000 backslash escapes held 211 MiB).
 */
export const MAX_DOCUMENT_INLINE_MARKERS = 50_000
/** Characters micromark scans for the closers of backtick runs that have none, in one paragraph. */
export const MAX_CODE_SPAN_SCAN = 10_000_000
/** Lines in a row continuing a block quote or list item lazily (without its marker). */
export const MAX_LAZY_LINES = 2_000
/** The sum over lines of the square of each line's nesting (container markers and indentation / 2). */
export const MAX_CONTAINER_WORK = 1_000_000
/** Lines that are not blank: each is at least one block of the tree. */
export const MAX_LINES = 10_000
/** `|` characters: each table cell is one, and a node of the tree. */
export const MAX_TABLE_PIPES = 10_000

const INLINE_MARKERS = new Uint8Array(128)
for (const char of "*_`[]!<~&@") INLINE_MARKERS[char.charCodeAt(0)] = 1

/** Where the line that starts at `start` ends, before its line break. */
const lineEnd = (text: string, start: number): number => {
  let end = start
  while (end < text.length && text.charCodeAt(end) !== 0x0a && text.charCodeAt(end) !== 0x0d) end++
  return end
}

/** Past the line break at `end`. */
const nextLine = (text: string, end: number): number =>
  text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1

interface LineShape {
  /** Container markers at the start of the line: `>` and list markers, which container-markers.ts cuts, then footnote labels. */
  readonly markers: number
  readonly footnoteMarkers: number
  /** Whether the first of them is a list item marker that may interrupt a paragraph. */
  readonly startsItem: boolean
  readonly startsQuote: boolean
  /** Columns of white space before the first marker and after the last (what a marker's own space is not). */
  readonly indent: number
  readonly blank: boolean
  /** Where the line's content starts, after its markers. */
  readonly content: number
}

const isSpace = (code: number): boolean => code === 0x20 || code === 0x09

/** The longest footnote label looked for: GFM allows 999 characters. */
const MAX_LABEL = 1_000

/** `[^label]:` at `at` followed by a blank: a footnote definition, a container like a block quote. */
const footnoteMarkerEnd = (text: string, at: number, end: number): number => {
  if (text.charCodeAt(at) !== 0x5b || text.charCodeAt(at + 1) !== 0x5e) return -1
  const until = Math.min(end, at + MAX_LABEL)
  let close = at + 2
  while (close < until && text.charCodeAt(close) !== 0x5d) close++
  if (close >= until || text.charCodeAt(close + 1) !== 0x3a) return -1
  const after = close + 2
  return after >= end || isSpace(text.charCodeAt(after)) ? after : -1
}

const shapeOf = (text: string, start: number, end: number): LineShape => {
  let at = start
  let markers = 0
  let footnoteMarkers = 0
  let leading = 0
  let startsItem = false
  let startsQuote = false
  for (;;) {
    let content = at
    while (content < end && isSpace(text.charCodeAt(content))) content++
    if (markers + footnoteMarkers === 0) leading = content - at
    const shape = {
      markers,
      footnoteMarkers,
      startsItem,
      startsQuote,
      indent: leading + (markers + footnoteMarkers > 0 ? content - at : 0)
    }
    if (content >= end) return { ...shape, blank: markers + footnoteMarkers === 0 || startsQuote, content }
    let next = markerEnd(text, content)
    if (next > end) next = -1
    const footnote = next < 0
    if (footnote) next = footnoteMarkerEnd(text, content, end)
    if (next < 0) return { ...shape, blank: false, content }
    if (markers + footnoteMarkers === 0) {
      const code = text.charCodeAt(content)
      startsQuote = code === 0x3e
      // An ordered item interrupts a paragraph only when it starts at 1; an empty item never does.
      const ordered = code >= 0x30 && code <= 0x39
      startsItem =
        !footnote && !startsQuote && leading < 4 && (!ordered || text.slice(content, next - 1) === "1") && /\S/.test(text.slice(next, end))
    }
    if (footnote) footnoteMarkers++
    else markers++
    at = next
  }
}

export const checkDocumentLimits = (markdown: string): void => {
  let lines = 0
  let pipes = 0
  let containerWork = 0
  let lazy = 0
  let inContainer = false
  let inQuote = false
  // The paragraph being counted: from where it starts, its inline markers.
  let paragraphStart = 0
  let inlineMarkers = 0
  let documentInlineMarkers = 0
  const endParagraph = (end: number) => {
    if (inlineMarkers > 0) checkCodeSpans(markdown, paragraphStart, end)
    documentInlineMarkers += inlineMarkers
    inlineMarkers = 0
    if (documentInlineMarkers > MAX_DOCUMENT_INLINE_MARKERS) {
      throw new DocumentLimitExceeded(
        `more than ${MAX_DOCUMENT_INLINE_MARKERS.toLocaleString("en")} emphasis, link, image, code, escape, entity or autolink markers`
      )
    }
  }
  for (let start = 0, end = 0; start < markdown.length; start = nextLine(markdown, end)) {
    end = lineEnd(markdown, start)
    const shape = shapeOf(markdown, start, end)
    if (shape.blank) {
      endParagraph(start)
      paragraphStart = nextLine(markdown, end)
      // A blank line ends the paragraph: no line after it continues one lazily.
      inContainer = false
      lazy = 0
      continue
    }
    if (shape.startsItem) {
      endParagraph(start)
      paragraphStart = start
    }
    if (++lines > MAX_LINES) throw new DocumentLimitExceeded(`more than ${MAX_LINES.toLocaleString("en")} lines that are not blank`)
    // Markers past container-markers.ts's cut never reach the parser.
    const depth = Math.min(shape.markers, MAX_LINE_CONTAINER_MARKERS) + shape.footnoteMarkers + Math.floor(shape.indent / 2)
    containerWork += depth * depth
    if (containerWork > MAX_CONTAINER_WORK) {
      throw new DocumentLimitExceeded("block quotes, list items or indentation nested too deeply on too many lines")
    }
    if (shape.markers + shape.footnoteMarkers > 0) {
      inContainer = true
      inQuote = shape.startsQuote
      lazy = 0
    } else if (inContainer && (inQuote || shape.indent < 2) && ++lazy > MAX_LAZY_LINES) {
      // Under a block quote every line without `>` is lazy; under a list item, one not indented to its content (about).
      throw new DocumentLimitExceeded(
        `more than ${MAX_LAZY_LINES.toLocaleString("en")} lines in a row continuing a block quote or list item without its marker`
      )
    }
    for (let i = shape.content; i < end; i++) {
      const code = markdown.charCodeAt(i)
      if (code === 0x5c) {
        // A backslash escape is a construct of its own, and what it escapes is text.
        inlineMarkers++
        i++
      } else if (code === 0x7c) pipes++
      else if (code < 128) inlineMarkers += INLINE_MARKERS[code]!
      if (code === 0x77 && markdown.startsWith("www.", i)) inlineMarkers++
      else if (code === 0x3a && markdown.startsWith("://", i)) inlineMarkers++
    }
    if (inlineMarkers > MAX_INLINE_MARKERS) {
      throw new DocumentLimitExceeded(
        `more than ${MAX_INLINE_MARKERS.toLocaleString("en")} emphasis, link, image, code, escape, entity or autolink markers in one paragraph`
      )
    }
    if (pipes > MAX_TABLE_PIPES) throw new DocumentLimitExceeded(`more than ${MAX_TABLE_PIPES.toLocaleString("en")} table cells`)
  }
  endParagraph(markdown.length)
}

/**
 * A run of n backticks opens a code span only if a run of n follows in the paragraph; micromark
 * looks for it up to the paragraph's end, so each run without one costs the rest of the paragraph.
 */
const checkCodeSpans = (markdown: string, start: number, end: number): void => {
  const seenLengths = new Set<number>()
  let scanned = 0
  let at = end - 1
  while (at >= start) {
    if (markdown.charCodeAt(at) !== 0x60) {
      at--
      continue
    }
    let runStart = at
    while (runStart > start && markdown.charCodeAt(runStart - 1) === 0x60) runStart--
    const length = at - runStart + 1
    if (!seenLengths.has(length)) {
      seenLengths.add(length)
      scanned += end - at
      if (scanned > MAX_CODE_SPAN_SCAN) {
        throw new DocumentLimitExceeded("too many runs of backticks without a closing run in one paragraph")
      }
    }
    at = runStart - 1
  }
}
