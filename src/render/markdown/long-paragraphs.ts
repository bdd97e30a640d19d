/**
 * A paragraph too long for Typst to lay out as one. Typst's paragraph layout takes time that grows
 * with the square of the paragraph's length (measured with the native compiler: 10,000 words in
 * one paragraph 1.1 to 1.5 s, 20,000 words 4.3 s; the same 20,000 words in paragraphs of 500 words,
 * 0.24 s), so one paragraph of 200,000 characters, which the contract accepts, spent a render's
 * whole deadline. Past LONG_PARAGRAPH characters, a paragraph is cut into parts of about
 * PART_CHARACTERS, each typeset as a paragraph of its own that reads as a continuation
 * (`continuedParagraph`): its lines at the paragraph's leading, no spacing and no first-line
 * indent between parts. What shows is a line that ends short where a part ends; a reader copying
 * the text gets a line end there, as where a line wraps.
 *
 * The cut is made on the paragraph's inline nodes, before conversion: between top-level nodes, or
 * inside a text node at white space (which the cut replaces), after a sentence's end in Chinese or
 * Japanese, or, in a run without either, between two characters (grapheme clusters). Nothing
 * inside a link, an emphasis or code is cut: such a node stays whole in its part, however long, so
 * a paragraph that is one long emphasis, or holds inline HTML, is still typeset as one.
 */
import type { PhrasingContent, Text } from "mdast"
import { toString as plainText } from "mdast-util-to-string"
// Characters as a reader counts them: a cut never parts a mark or a joiner from its letter.
import { CLUSTER } from "./text-runs.ts"

/** Paragraphs longer than this, in characters of text, are cut (a real paragraph rarely nears it). */
export const LONG_PARAGRAPH = 8_000
/** About how many characters of text each part holds. */
export const PART_CHARACTERS = 4_000
/** How far past PART_CHARACTERS a part may run looking for white space before a run is cut between characters. */
const SPACE_SLACK = 500

/** Where a line may break and the cut may stand in: not a no-break space, which the writer set to keep words together. */
const WHITE_SPACE = /^[ \t\r\n]+$/
/** The end of a sentence in scripts written without spaces: a run of them is cut after one, never before. */
const SENTENCE_END = /^[。！？]$/u

/**
 * The paragraph's inline nodes in parts to typeset one after another, or one part holding them all
 * when the paragraph is not long or holds inline HTML (whose elements may open in one node and
 * close in another, html/fragment.ts).
 */
export const paragraphParts = (nodes: ReadonlyArray<PhrasingContent>): ReadonlyArray<ReadonlyArray<PhrasingContent>> => {
  if (nodes.some((node) => node.type === "html")) return [nodes]
  const lengths = nodes.map((node) => plainText(node).length)
  if (lengths.reduce((sum, length) => sum + length, 0) <= LONG_PARAGRAPH) return [nodes]

  const parts: Array<Array<PhrasingContent>> = []
  let part: Array<PhrasingContent> = []
  let filled = 0
  const close = () => {
    if (part.length > 0) parts.push(part)
    part = []
    filled = 0
  }
  for (const [index, node] of nodes.entries()) {
    // A hard line break where a part starts would draw an empty line.
    if (node.type === "break" && part.length === 0 && parts.length > 0) continue
    if (node.type !== "text") {
      part.push(node)
      filled += lengths[index]!
      if (filled >= PART_CHARACTERS) close()
      continue
    }
    let text = ""
    /** Ends the part with the text gathered so far. */
    const cut = () => {
      if (text !== "") part.push(textLike(node, text))
      text = ""
      close()
    }
    for (const [cluster] of node.value.matchAll(CLUSTER)) {
      const space = WHITE_SPACE.test(cluster)
      if ((space && filled >= PART_CHARACTERS) || filled >= PART_CHARACTERS + SPACE_SLACK) {
        cut()
        // The white space the cut replaces; a cut between characters keeps this one.
        if (space) continue
      }
      // White space at the start of a part would be dropped by Typst anyway.
      if (space && text === "" && part.length === 0 && parts.length > 0) continue
      text += cluster
      filled += cluster.length
      if (filled >= PART_CHARACTERS && SENTENCE_END.test(cluster)) cut()
    }
    if (text !== "") part.push(textLike(node, text))
  }
  close()
  return parts
}

/** A piece of `node`'s text, with its position (warnings point at the node's line). */
const textLike = (node: Text, value: string): Text => (value === node.value ? node : { ...node, value })
