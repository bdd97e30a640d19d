/**
 * How many columns the widest GFM table of a document has, read from its lines before it is
 * parsed. micromark makes a tokenizer of about 1.7 KiB for each cell's text, so a table of 33,000
 * columns (200,000 characters) fills a worker's 256 MiB heap and fails `out_of_memory` after
 * seconds of collections; no page shows more than a few hundred columns anyway (a thousand on A4
 * are half a point each). The renderer refuses a table past MAX_TABLE_COLUMNS before it parses.
 *
 * A table is a header row and then a delimiter row of as many cells, with a pipe among them (GFM
 * spec, 4.10), both indented by at most three spaces, the header not a heading, a quote or a list
 * item. Lines that cannot hold a table are skipped: front matter, fenced code (also opened on a
 * list item's line), math blocks, and the HTML blocks that blank lines do not end (comments,
 * `<pre>`, `<script>`, `<style>`, `<textarea>`, `<?…?>`, `<!…>`, CDATA). The scan is a bound, not
 * a parser: a table it does not see (inside a block quote, after an HTML block it misreads) is
 * still bounded by the parse's heap.
 */

/** The widest table the renderer typesets. */
export const MAX_TABLE_COLUMNS = 1_000

/** A delimiter row: cells of `-` (at least one), optionally aligned by `:`, parted by `|`. No two `[ \t]*` meet, so it never backtracks. */
const DELIMITER_ROW = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?$/
/** A line that starts a heading, a quote or a list item: never a table's header row. */
const NOT_A_HEADER = /^ {0,3}(?:#|>|[-+*][ \t]|\d{1,9}[.)][ \t])/

/** A region the scan skips: the line that opens it, and a test of the line that closes it. */
interface Region {
  readonly closes: (line: string) => boolean
}

/** A fence's run of backticks or tildes, at a line's start or after list markers. */
const FENCE = /^ {0,3}(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*(`{3,}|~{3,})/
const HTML_REGIONS: ReadonlyArray<[RegExp, RegExp]> = [
  [/^ {0,3}<(?:pre|script|style|textarea)(?:[\s>]|$)/i, /<\/(?:pre|script|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/]
]

/** The region `line` opens, if any; `first` for front matter, which only the first line opens. */
const opens = (line: string, first: boolean): Region | undefined => {
  if (first && line === "---") return { closes: (next) => next === "---" || next === "..." }
  const fence = FENCE.exec(line)?.[1]
  // A backtick fence's info string holds no backtick (else the line is inline code).
  if (fence !== undefined && !(fence[0] === "`" && line.slice(line.indexOf(fence) + fence.length).includes("`"))) {
    // Closed by a line of the same character only, at least as long.
    return { closes: (next) => next.trim().startsWith(fence) && [...next.trim()].every((c) => c === fence[0]) }
  }
  if (/^ {0,3}\$\$/.test(line) && !line.trim().slice(2).includes("$$")) return { closes: (next) => next.includes("$$") }
  for (const [open, close] of HTML_REGIONS) {
    if (open.test(line)) return close.test(line.replace(open, "")) ? undefined : { closes: (next) => close.test(next) }
  }
  return undefined
}

/** The cells of a table row: split at pipes not escaped by a backslash, less an opening and a closing pipe. */
const cellCount = (line: string): number => {
  const row = line.trim()
  let pipes = 0
  let lastPipe = -1
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\") i++
    else if (row[i] === "|") {
      pipes++
      lastPipe = i
    }
  }
  const leading = row.startsWith("|") ? 1 : 0
  const trailing = row.length > 1 && lastPipe === row.length - 1 ? 1 : 0
  return pipes + 1 - leading - trailing
}

/** Whether a line of `markdown` holds at least `count` pipes (a line ends at `\n`: with `\r` alone, more is one line, so more is scanned). */
const hasLineOfPipes = (markdown: string, count: number): boolean => {
  let lineEnd = -1
  let inLine = 0
  for (let at = markdown.indexOf("|"); at >= 0; at = markdown.indexOf("|", at + 1)) {
    if (at > lineEnd) {
      lineEnd = markdown.indexOf("\n", at)
      if (lineEnd < 0) lineEnd = markdown.length
      inLine = 0
    }
    if (++inLine >= count) return true
  }
  return false
}

/**
 * The width of a table in `markdown` wider than MAX_TABLE_COLUMNS, or undefined. It runs on the
 * renderer's thread before every render, so only a document with a line of the pipes such a
 * table's delimiter row needs is scanned (the scan of a 125,000-character report: 3 ms).
 */
export const tooWideTable = (markdown: string): number | undefined => {
  if (!hasLineOfPipes(markdown, MAX_TABLE_COLUMNS)) return undefined
  const columns = widestTable(markdown)
  return columns > MAX_TABLE_COLUMNS ? columns : undefined
}

/** The column count of the document's widest table outside the regions above, 0 when it has none. */
export const widestTable = (markdown: string): number => {
  let widest = 0
  let region: Region | undefined
  let previous = ""
  for (const [index, line] of markdown.split(/\r\n?|\n/).entries()) {
    if (region !== undefined) {
      if (region.closes(line)) region = undefined
      previous = ""
      continue
    }
    region = opens(line, index === 0)
    if (region === undefined && line.includes("|") && DELIMITER_ROW.test(line)) {
      const columns = cellCount(line)
      // Only a header row of as many cells makes the delimiter row a table's.
      if (columns > widest && !NOT_A_HEADER.test(previous) && /^ {0,3}\S/.test(previous) && cellCount(previous) === columns)
        widest = columns
    }
    previous = region === undefined ? line : ""
  }
  return widest
}
