/**
 * How many columns the widest GFM table of a document has, read from its lines before it is
 * parsed. micromark makes a tokenizer of about 1.7 KiB for each cell's text, so a table of 33,000
 * columns (200,000 characters) fills a worker's 256 MiB heap and fails `out_of_memory` after
 * seconds of collections; no page shows more than a few hundred columns anyway (a thousand on A4
 * are half a point each). The renderer refuses a table past MAX_TABLE_COLUMNS before it parses.
 *
 * A table is a header row and then a delimiter row of as many cells, with a pipe among them (GFM
 * spec, 4.10), both indented by at most three spaces. Fenced code is skipped. A table inside a
 * block quote or a list item is not seen here (its lines start with markers): the heap still
 * bounds it.
 */

/** The widest table the renderer typesets. */
export const MAX_TABLE_COLUMNS = 1_000

/** A delimiter row: cells of `-` (at least one), optionally aligned by `:`, parted by `|`. */
const DELIMITER_ROW = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/
/** A fence's opening or closing line: its character and length. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/

/** The cells of a table row: split at pipes not escaped by a backslash, less an opening and a closing pipe. */
const cellCount = (line: string): number => {
  const row = line.trim()
  let pipes = 0
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\") i++
    else if (row[i] === "|") pipes++
  }
  const leading = row.startsWith("|") ? 1 : 0
  const trailing = row.length > 1 && row.endsWith("|") && !row.endsWith("\\|") ? 1 : 0
  return pipes + 1 - leading - trailing
}

/** The column count of the document's widest table outside fenced code, 0 when it has none. */
export const widestTable = (markdown: string): number => {
  let widest = 0
  let fence: string | undefined
  let previous = ""
  for (const line of markdown.split(/\r\n?|\n/)) {
    const marker = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
    } else if (marker !== undefined && !(marker[0] === "`" && line.slice(line.indexOf(marker) + marker.length).includes("`"))) {
      fence = marker
    } else if (line.includes("|") && DELIMITER_ROW.test(line)) {
      const columns = cellCount(line)
      // Only a header row of as many cells makes the delimiter row a table's.
      if (columns > widest && cellCount(previous) === columns && /^ {0,3}\S/.test(previous)) widest = columns
    }
    previous = line
  }
  return widest
}
