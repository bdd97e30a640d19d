/**
 * A linear pass over the Markdown, before the parser, that cuts each line's run of container
 * markers (block quote `>`, list item `-`, `+`, `*`, `1.`, `1)`, footnote definition `[^label]:`)
 * to MAX_LINE_CONTAINER_MARKERS.
 *
 * micromark copies its stack of open containers at every construct it tries, and it tries a few
 * per container on every line: a line that opens d containers costs d² in time and memory. One
 * line of 10,000 `>` took a worker from 0.6 GB to 2.5 GB and ran past the render deadline.
 * Everything nested deeper than MAX_NESTING is shown flattened at that level anyway (to-typst.ts),
 * so markers past the cut change nothing a reader sees but where paragraphs break within the
 * flattened content. The cut lies far past MAX_NESTING so that no document a person writes meets
 * it: the one line it would alter in earnest is one inside a code block that starts with more than
 * a hundred such markers.
 */
/** Past MAX_NESTING (24), so that every level the converter shows is parsed as written. */
export const MAX_LINE_CONTAINER_MARKERS = 100

/** A space, a tab, a line break or the end of the text (charCodeAt gives NaN there). */
const isBlank = (code: number): boolean => Number.isNaN(code) || code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39

/** The end of the container marker at `at`, or -1: a list marker must be followed by a blank or the line's end. */
const markerEnd = (text: string, at: number): number => {
  const code = text.charCodeAt(at)
  if (code === 0x3e) return at + 1 // >
  if (code === 0x5b) return footnoteDefinitionEnd(text, at) // [
  if (code === 0x2d || code === 0x2b || code === 0x2a) return isBlank(text.charCodeAt(at + 1)) ? at + 1 : -1 // - + *
  let end = at
  while (end - at < 9 && isDigit(text.charCodeAt(end))) end++
  if (end === at) return -1
  const delimiter = text.charCodeAt(end)
  if (delimiter !== 0x2e && delimiter !== 0x29) return -1 // . )
  return isBlank(text.charCodeAt(end + 1)) ? end + 1 : -1
}

/** GFM's longest footnote label (micromark-extension-gfm-footnote). */
const MAX_LABEL = 999

/** The end of a footnote definition's `[^label]:` at `at` (its `[`), or -1; a label holds no blank, `[` or unescaped `]`. */
const footnoteDefinitionEnd = (text: string, at: number): number => {
  if (text.charCodeAt(at + 1) !== 0x5e) return -1 // ^
  let end = at + 2
  for (;;) {
    const code = text.charCodeAt(end)
    if (isBlank(code) || code === 0x5b || end - at - 2 > MAX_LABEL) return -1
    if (code === 0x5d) break // ]
    end += code === 0x5c && !isBlank(text.charCodeAt(end + 1)) ? 2 : 1 // \ escapes the next character
  }
  if (end === at + 2 || text.charCodeAt(end + 1) !== 0x3a) return -1 // an empty label, or no :
  return end + 2
}

const LINE_BREAK = /\r\n?|\n/g

/** `markdown` with every line's container markers past the MAX_LINE_CONTAINER_MARKERS-th removed. */
export const cutContainerMarkers = (markdown: string): string => {
  const out: Array<string> = []
  /** Where the text not yet copied to `out` starts. */
  let copied = 0
  let lineStart = 0
  while (lineStart < markdown.length) {
    let at = lineStart
    let count = 0
    let cutFrom = -1
    for (;;) {
      let marker = at
      while (markdown.charCodeAt(marker) === 0x20 || markdown.charCodeAt(marker) === 0x09) marker++
      const end = markerEnd(markdown, marker)
      if (end < 0) break
      count++
      if (count === MAX_LINE_CONTAINER_MARKERS + 1) cutFrom = marker
      at = end
    }
    if (cutFrom >= 0) {
      out.push(markdown.slice(copied, cutFrom))
      copied = at
    }
    LINE_BREAK.lastIndex = at
    const lineBreak = LINE_BREAK.exec(markdown)
    if (!lineBreak) break
    lineStart = lineBreak.index + lineBreak[0].length
  }
  if (copied === 0) return markdown
  out.push(markdown.slice(copied))
  return out.join("")
}
